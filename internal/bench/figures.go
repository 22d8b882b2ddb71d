package bench

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// run is one run's state: the world, what the figures created, and results.
type run struct {
	*env
	sc   Scale
	logf func(string, ...any)

	latencyLights []*huev1alpha1.HueLight
	alphaLights   []*huev1alpha1.HueLight
	betaLights    []*huev1alpha1.HueLight
	outageLights  []*huev1alpha1.HueLight
	tables        []*awsv1alpha1.DynamoDBTable
	// lastChange is when the last change of figures 1 to 6 settled (figure
	// 3's window starts one poll interval later).
	lastChange time.Time

	results map[int]*figureResult
}

func (r *run) fig(id int) *figureResult {
	if r.results == nil {
		r.results = map[int]*figureResult{}
	}
	f, ok := r.results[id]
	if !ok {
		f = &figureResult{ID: id, Title: figureTitles[id]}
		r.results[id] = f
	}
	return f
}

// figures are the main world's figures, 1 to 6.
func (r *run) figures() []figureResult {
	var out []figureResult
	for id := 1; id <= 6; id++ {
		out = append(out, *r.fig(id))
	}
	return out
}

func (r *run) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func ms(d time.Duration) float64   { return float64(d) / float64(time.Millisecond) }
func secs(d time.Duration) float64 { return d.Seconds() }

func diff(after, before map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func formatFloatCounts(m map[string]float64) string {
	ints := make(map[string]int, len(m))
	for k, v := range m {
		ints[k] = int(v)
	}
	return FormatCounts(ints)
}

// sampleEverySecond records how much total() grew in each second until the
// returned stop is called, which returns the per-second growth.
func sampleEverySecond(total func() int) (stop func() []float64) {
	var (
		mu      sync.Mutex
		buckets []float64
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		prev := total()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			now := total()
			mu.Lock()
			buckets = append(buckets, float64(now-prev))
			mu.Unlock()
			prev = now
		}
	}()
	return func() []float64 {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return buckets
	}
}

// startHueOperator starts the manager for a world of Hue objects only, at
// the scale's Hue poll interval, stopped with the run. No DynamoDBTable is
// in such a world, so its DynamoDB endpoint (a closed port) is never called.
func (r *run) startHueOperator(ctx context.Context, bin, kubeconfig string) error {
	op, err := StartOperator(ctx, bin, kubeconfig, "http://127.0.0.1:9", filepath.Join(r.runDir, "operator.log"),
		"--hue-poll-interval="+r.sc.HuePoll.String())
	if err != nil {
		return err
	}
	r.op = op
	r.onStop(op.Stop)
	return nil
}
