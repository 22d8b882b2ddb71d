package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

func init() {
	registerMain(1, "Apply-to-light latency", (*run).latency)
}

// Figure 1: from a HueLight update being accepted by the API server (the
// client's Patch returned) to the PUT arriving at the bridge (the
// simulator's command log), one change at a time.
func (r *run) latency(ctx context.Context) error {
	sim := r.bridge[bridgeLatency]
	r.latencyLights = lightsOn(bridgeLatency, latencyNS, latencyLights(r.sc), 100)
	objs := objects(r.latencyLights)
	// Creates first, one at a time: a create also adds the finalizer
	// before anything is sent, so it is reported apart from updates.
	var creates []time.Duration
	for i, o := range objs {
		from := len(sim.Commands())
		if err := r.c.Create(ctx, o); err != nil {
			return err
		}
		accepted := time.Now()
		at, err := waitForPut(ctx, sim, from, fmt.Sprintf("/lights/%d/state", i+1), 100)
		if err != nil {
			return fmt.Errorf("create %d: %w", i, err)
		}
		creates = append(creates, at.Sub(accepted))
		if err := r.sleep(ctx, 150*time.Millisecond); err != nil {
			return err
		}
	}
	if _, err := r.waitReady(ctx, false, wantAll(objs), time.Minute, nil); err != nil {
		return err
	}
	seen, stopSeeing, err := r.watchDeliveries(ctx, &huev1alpha1.HueLight{})
	if err != nil {
		return err
	}
	defer stopSeeing()
	current := map[int]int{}
	var samples, fromSent, delivered []time.Duration
	for k := range r.sc.LatencyChanges {
		i := k % len(objs)
		bri := 2 + (k*37)%250
		if bri == current[i] {
			bri++
		}
		current[i] = bri
		from := len(sim.Commands())
		sent := time.Now()
		if err := r.c.Patch(ctx, objs[i], client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"brightness":%d}}`, bri))); err != nil {
			return err
		}
		accepted := time.Now()
		at, err := waitForPut(ctx, sim, from, fmt.Sprintf("/lights/%d/state", i+1), bri)
		if err != nil {
			return fmt.Errorf("change %d (bri %d on light %d): %w", k, bri, i+1, err)
		}
		samples = append(samples, at.Sub(accepted))
		fromSent = append(fromSent, at.Sub(sent))
		got, err := seen.wait(ctx, keyOf(objs[i]), objs[i].GetResourceVersion())
		if err != nil {
			return fmt.Errorf("change %d: the harness's own watch: %w", k, err)
		}
		delivered = append(delivered, got.Sub(accepted))
		// Single changes: let the bridge's budget (10/s) refill, so the
		// figure is the operator's reaction, not the limiter's pacing.
		if err := r.sleep(ctx, 150*time.Millisecond); err != nil {
			return err
		}
	}
	f := r.fig(1)
	f.add("p50", "p50 latency", "ms", ms(percentile(samples, 50)), &goal{Op: "<=", Limit: 30})
	f.why("the reaction to a single change (watch event, reconcile, PUT) is slow; see the operator's reconcile latency")
	f.add("p50_floor", "p50 floor: the API server's own watch delivery of the same changes to the harness (measured)", "ms", ms(percentile(delivered, 50)), nil)
	f.add("p50_ratio", "p50 latency / its floor", "x", ratioOf(ms(percentile(samples, 50)), ms(percentile(delivered, 50))), nil)
	f.add("p99", "p99 latency", "ms", ms(percentile(samples, 99)), &goal{Op: "<=", Limit: 150})
	f.why("a few changes waited; the max is %.0f ms; the API server's own watch delivery p99 was %.1f ms", ms(percentile(samples, 100)), ms(percentile(delivered, 99)))
	f.add("p99_floor", "p99 floor: the API server's own watch delivery (measured)", "ms", ms(percentile(delivered, 99)), nil)
	f.add("p99_ratio", "p99 latency / its floor", "x", ratioOf(ms(percentile(samples, 99)), ms(percentile(delivered, 99))), nil)
	f.add("max", "max latency", "ms", ms(percentile(samples, 100)), nil)
	f.add("min", "min latency (negative: the PUT came before the client had the API server's answer)", "ms", ms(percentile(samples, 0)), nil)
	f.add("create_p50", fmt.Sprintf("p50 from a create (%d creates, apart from the updates above)", len(creates)), "ms", ms(percentile(creates, 50)), nil)
	f.add("create_max", "max from a create", "ms", ms(percentile(creates, 100)), nil)
	f.add("p50_sent", "p50 from the client sending the change (an upper bound)", "ms", ms(percentile(fromSent, 50)), nil)
	f.add("p99_sent", "p99 from the client sending the change", "ms", ms(percentile(fromSent, 99)), nil)
	f.note("%d single brightness changes on %d HueLights of one bridge, one at a time, 150 ms apart (so the bridge's 10 commands/s budget never delays one); "+
		"the clock starts when the client's Patch returns and stops at the simulator's log entry for the PUT. "+
		"The floor is the same clock stopped when the harness's own watch of HueLights (an informer, as the operator's) receives the change, what the API server takes to tell a watcher; "+
		"that watch shares the harness's process with its clients, so its tail can be slower than the operator's own (a p99 ratio under 1). "+
		"The goals stay issue 6's latencies; the floor says how much of them the API server takes on this machine.", len(samples), len(objs))
	return nil
}

// waitForPut waits for a PUT to path with the brightness bri in the
// simulator's command log after index from, and returns its time.
func waitForPut(ctx context.Context, sim *huesim.Server, from int, path string, bri int) (time.Time, error) {
	var at time.Time
	err := WaitUntil(ctx, 10*time.Second, 2*time.Millisecond, func() (bool, error) {
		cmds := sim.Commands()
		for _, c := range cmds[min(from, len(cmds)):] {
			if c.Method != "PUT" || c.Path != path {
				continue
			}
			var body struct {
				Bri *int `json:"bri"`
			}
			if json.Unmarshal(c.Body, &body) == nil && body.Bri != nil && *body.Bri == bri {
				at = c.Time
				return true, nil
			}
		}
		return false, nil
	})
	return at, err
}
