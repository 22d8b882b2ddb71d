package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/tcpproxy"
)

// Figure 11 (issue 12): CLIP v2 beside v1, in a world of its own: the API
// server, the operator, and two simulated bridges with the same bulbs, one
// spoken to over v1 (polled) and one over CLIP v2 (HTTPS, its event
// stream), the v2 one behind a TCP proxy that counts connections and can
// drop them (the bridge leaving the network). Measured: apply-to-light
// latency on both, the steady cost of each (reads per poll interval), drift
// correction by push (one light at a time, then many at once), and the
// calls to a v2 bridge during an outage.

const (
	bridgeV1  = "pushv1"
	bridgeV2  = "pushv2"
	pushV1NS  = "bench-push-v1"
	pushV2NS  = "bench-push-v2"
	pushLight = 100 // every push light's brightness
)

// Issue 12's goals for figure 11, as ratios to their floors: v2's p99
// within twice v1's; a drift corrected within the bridge's event batching
// (one message a second), and 50 at once within half a batch more (the
// group budget's one command a second).
const (
	v2LatencyRatio  = 2
	v2DriftRatio    = 1
	v2DriftAllRatio = 1.5
)

func init() {
	registerAlone(11, "CLIP v2 beside v1: latency, steady cost, drift by push, outage", true, (*run).push)
}

func (r *run) push(ctx context.Context, bin string) error {
	w, err := r.startPushWorld(ctx, bin)
	if err != nil {
		return err
	}
	f := r.fig(11)
	lat1, err := r.pushLatency(ctx, w.v1, w.v1Lights)
	if err != nil {
		return fmt.Errorf("v1 latency: %w", err)
	}
	lat2, err := r.pushLatency(ctx, w.v2, w.v2Lights)
	if err != nil {
		return fmt.Errorf("v2 latency: %w", err)
	}
	v1p99, v2p99 := percentile(lat1, 99), percentile(lat2, 99)
	f.add("latency_v1_p99", "apply-to-light latency on v1, p99", "ms", ms(v1p99), nil)
	f.addFloored("latency_v2_p99", "apply-to-light latency on v2, p99", "ms", ms(v2p99),
		floor{What: "v1's p99 in this run, the same path without HTTPS (measured)", Value: ms(v1p99)}, v2LatencyRatio)
	f.why("v2 commands go over HTTPS with at most 3 requests at the bridge at once")
	f.add("latency_v2_p50", "apply-to-light latency on v2, p50", "ms", ms(percentile(lat2, 50)), nil)

	if err := r.pushSteadyCost(ctx, w, f); err != nil {
		return err
	}
	if err := r.pushDrift(ctx, w, f); err != nil {
		return err
	}
	if err := r.pushOutage(ctx, w, f); err != nil {
		return err
	}
	f.note("Two bridges with %d bulbs each (LCT015), every bulb held by a HueLight; the operator polls v1 every %s and keeps one event stream per v2 bridge "+
		"(safety read every 10 min, reconnect after 5 min of silence: the operator's defaults).", len(w.v1Lights), r.sc.HuePoll)
	return nil
}

// pushWorld is figure 11's world.
type pushWorld struct {
	v1, v2             *huesim.Server
	proxy              *tcpproxy.Proxy
	v1Lights, v2Lights []*huev1alpha1.HueLight
}

func (r *run) startPushWorld(ctx context.Context, bin string) (*pushWorld, error) {
	kubeconfig, err := r.startControlPlane(r.runDir)
	if err != nil {
		return nil, err
	}
	n := max(r.sc.DriftLights, singleDrifts) + maxLatencyLights
	w := &pushWorld{}
	for _, name := range []string{bridgeV1, bridgeV2} {
		opts := huesim.Options{Usernames: []string{benchUser}, BridgeID: fmt.Sprintf("001788FFFE%06X", rand.N(1<<24))}
		for i := range n {
			opts.Lights = append(opts.Lights, fmt.Sprintf("%s-%d", name, i+1))
		}
		sim, err := huesim.Start(opts, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		r.onStop(sim.Close)
		if name == bridgeV1 {
			w.v1 = sim
		} else {
			w.v2 = sim
		}
	}
	if w.proxy, err = tcpproxy.New(w.v2.TLSAddr()); err != nil {
		return nil, err
	}
	r.onStop(w.proxy.Close)
	for _, ns := range []string{secretsNS, pushV1NS, pushV2NS} {
		if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	for _, b := range []struct {
		name     string
		bridgeID string
		spec     huev1alpha1.HueBridgeSpec
	}{
		{bridgeV1, w.v1.BridgeID(), huev1alpha1.HueBridgeSpec{Address: w.v1.Addr(), APIVersion: huev1alpha1.APIV1}},
		{bridgeV2, w.v2.BridgeID(), huev1alpha1.HueBridgeSpec{Address: w.proxy.Addr(), APIVersion: huev1alpha1.APIV2, CABundle: string(w.v2.CACertPEM()),
			BridgeID: w.v2.BridgeID()}},
	} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: b.name + "-credentials"},
			Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte(benchUser), huev1alpha1.BridgeIDKey: []byte(b.bridgeID)}}
		if err := r.c.Create(ctx, secret); err != nil {
			return nil, err
		}
		b.spec.CredentialsSecretRef = huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name}
		if err := r.c.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: b.name}, Spec: b.spec}); err != nil {
			return nil, err
		}
	}
	if err := r.startHueOperator(ctx, bin, kubeconfig); err != nil {
		return nil, err
	}
	w.v1Lights = lightsOn(bridgeV1, pushV1NS, n, pushLight)
	w.v2Lights = lightsOn(bridgeV2, pushV2NS, n, pushLight)
	all := append(objects(w.v1Lights), objects(w.v2Lights)...)
	if err := r.createAll(ctx, all); err != nil {
		return nil, err
	}
	if _, err := r.waitReady(ctx, false, wantAll(all), 3*time.Minute, nil); err != nil {
		return nil, err
	}
	return w, nil
}

// pushLatency times single brightness changes on the first lights, from
// the Patch returning to the command in the simulator's log (either API).
func (r *run) pushLatency(ctx context.Context, sim *huesim.Server, lights []*huev1alpha1.HueLight) ([]time.Duration, error) {
	objs := objects(lights[:min(maxLatencyLights, len(lights))])
	var out []time.Duration
	for k := range r.sc.LatencyChanges {
		i := k % len(objs)
		bri := 2 + (k*37)%250
		if bri == pushLight {
			bri++
		}
		from := len(sim.Commands())
		if err := r.c.Patch(ctx, objs[i], client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"brightness":%d}}`, bri))); err != nil {
			return nil, err
		}
		accepted := time.Now()
		at, err := waitForLightCommand(ctx, sim, from, strconv.Itoa(i+1), bri)
		if err != nil {
			return nil, fmt.Errorf("change %d: %w", k, err)
		}
		out = append(out, at.Sub(accepted))
		if err := r.sleep(ctx, 150*time.Millisecond); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// waitForLightCommand waits for a command to light id setting bri (v1) or
// its brightness (v2) after index from, and returns its time.
func waitForLightCommand(ctx context.Context, sim *huesim.Server, from int, id string, bri int) (time.Time, error) {
	want := math.Round(float64(bri-1)/253*100*100) / 100
	var at time.Time
	err := WaitUntil(ctx, 10*time.Second, 2*time.Millisecond, func() (bool, error) {
		cmds := sim.Commands()
		for _, c := range cmds[min(from, len(cmds)):] {
			if !c.ForLight(id) {
				continue
			}
			var body struct {
				Bri     *int `json:"bri"`
				Dimming *struct {
					Brightness float64 `json:"brightness"`
				} `json:"dimming"`
			}
			if json.Unmarshal(c.Body, &body) == nil && (body.Bri != nil && *body.Bri == bri || body.Dimming != nil && body.Dimming.Brightness == want) {
				at = c.Time
				return true, nil
			}
		}
		return false, nil
	})
	return at, err
}

// pushSteadyCost counts each bridge's reads over WatchIntervals poll
// intervals with nothing changing.
func (r *run) pushSteadyCost(ctx context.Context, w *pushWorld, f *figureResult) error {
	w.v1.ResetGetCounts()
	w.v2.ResetGetCounts()
	if err := r.sleep(ctx, time.Duration(r.sc.WatchIntervals)*r.sc.HuePoll); err != nil {
		return err
	}
	intervals := float64(r.sc.WatchIntervals)
	v1, v2 := w.v1.GetCounts(), w.v2.GetCounts()
	f.add("steady_v1", "steady state on v1: full reads (GET /lights) per poll interval", "GETs", float64(v1["/lights"])/intervals, nil)
	f.add("steady_v2", "steady state on v2: full reads (GET /clip/v2/resource) per poll interval", "GETs", float64(v2["/clip/v2/resource"])/intervals,
		&goal{Op: "<=", Limit: 0, Text: "0 (only the safety read, every 10 min)"})
	f.why("GETs on v2: %s", FormatCounts(v2))
	f.note("Steady cost: %d poll intervals of %s with nothing changing; a quiet v2 bridge also costs one full read per 5 min of silence (the stream is reconnected: bridges send no keep-alive) and the safety read every 10 min.",
		r.sc.WatchIntervals, r.sc.HuePoll)
	return nil
}

// pushDrift dims v2 bulbs from "the Hue app": one at a time at random
// moments, then DriftLights at once; the time to the correcting command.
func (r *run) pushDrift(ctx context.Context, w *pushWorld, f *figureResult) error {
	first := maxLatencyLights + 1 // the lights the latency part did not touch
	var singles []time.Duration
	for i := range singleDrifts {
		if err := r.sleep(ctx, 500*time.Millisecond+rand.N(r.sc.HuePoll)); err != nil {
			return err
		}
		dt, err := driftV2(ctx, w.v2, []string{strconv.Itoa(first + i)})
		if err != nil {
			return err
		}
		singles = append(singles, dt...)
	}
	if err := r.sleep(ctx, 2*time.Second); err != nil {
		return err
	}
	var ids []string
	for i := range r.sc.DriftLights {
		ids = append(ids, strconv.Itoa(first+i))
	}
	start := time.Now()
	many, err := driftV2(ctx, w.v2, ids)
	if err != nil {
		return err
	}
	batch := floor{What: "the bridge's event batching, at most one message a second (computed)", Value: huesim.EventBatch.Seconds()}
	f.addFloored("drift_v2_p99", fmt.Sprintf("drift on v2: one light alone, out-of-band change to the correcting command, p99 of %d", len(singles)), "s",
		secs(percentile(singles, 99)), batch, v2DriftRatio)
	f.why("the bridge sends at most one event message a second, so a change can wait up to 1 s before it is pushed")
	f.addFloored("drift_v2_all", fmt.Sprintf("drift on v2: %d lights changed at once, until the last is corrected", len(ids)), "s",
		secs(percentile(many, 100)), batch, v2DriftAllRatio)
	f.why("the bridge's batching (1 message/s) and the group budget (1 command/s) both apply; done in %s", time.Since(start).Round(10*time.Millisecond))
	f.add("drift_v2_all_p50", "drift on v2: many at once, median", "s", secs(percentile(many, 50)), nil)
	return nil
}

// driftV2 dims bulbs through the simulator's "Hue app" control and returns,
// per bulb, the time from the change to the command that put it back.
func driftV2(ctx context.Context, sim *huesim.Server, ids []string) ([]time.Duration, error) {
	from := len(sim.Commands())
	changed := map[string]time.Time{}
	for _, id := range ids {
		if err := sim.ChangeLight(id, func(st *huesim.LightState) { st.Bri = 10 }); err != nil {
			return nil, err
		}
		changed[id] = time.Now()
	}
	done := map[string]time.Duration{}
	err := WaitUntil(ctx, 30*time.Second, 10*time.Millisecond, func() (bool, error) {
		for id := range changed {
			if _, ok := done[id]; ok {
				continue
			}
			if l, _ := sim.Light(id); l.State.Bri != pushLight {
				continue
			}
			// The command that put it back: a light command or a group's.
			for _, c := range sim.Commands()[from:] {
				if c.ForLight(id) || c.Light == "" && c.Method == "PUT" {
					done[id] = max(0, c.Time.Sub(changed[id]))
					break
				}
			}
		}
		return len(done) == len(changed), nil
	})
	if err != nil {
		return nil, fmt.Errorf("v2 drift: %d of %d corrected: %w", len(done), len(changed), err)
	}
	out := make([]time.Duration, 0, len(done))
	for _, d := range done {
		out = append(out, d)
	}
	return out, nil
}

// pushOutage takes the v2 bridge off the network for Outage (its
// connections dropped, the event stream with them), changes every v2
// light half-way, and counts the connections the operator attempts.
func (r *run) pushOutage(ctx context.Context, w *pushWorld, f *figureResult) error {
	objs := objects(w.v2Lights)
	w.proxy.SetOffline(true)
	start := time.Now()
	if err := r.sleep(ctx, r.sc.Outage/2); err != nil {
		return err
	}
	want, err := r.patchAll(ctx, objs, `{"spec":{"brightness":77}}`)
	if err != nil {
		return err
	}
	if err := r.sleep(ctx, r.sc.Outage-time.Since(start)); err != nil {
		return err
	}
	calls := w.proxy.SetOffline(false)
	back := time.Now()
	outage := back.Sub(start)
	last, err := r.waitReady(ctx, false, want, 5*time.Minute, nil)
	if err != nil {
		return fmt.Errorf("recovery after the v2 outage: %w", err)
	}
	polls := math.Ceil(outage.Seconds() / r.sc.HuePoll.Seconds())
	bound := polls + 5
	f.add("outage_v2_calls", fmt.Sprintf("v2: connections to the offline bridge in %s (%d HueLights, the event stream's reconnects included)", r.sc.Outage, len(objs)),
		"connections", float64(calls), &goal{Op: "<=", Limit: bound, Text: fmt.Sprintf("<= %.0f (one poll per interval + 5, as figure 6)", bound)})
	f.add("outage_v2_recovery", "v2: from back online to all Ready with the change made during the outage", "s", secs(last.Sub(back)), nil)
	f.note("Outage: the TCP proxy in front of the v2 bridge closed its connections (the event stream's too) and refused new ones for %s; half-way every v2 light was changed. "+
		"While the stream is down Tether polls every interval, and a stream connect that failed is tried again only after a poll succeeds (the stream's own backoff does not retry against a bridge that does not answer); "+
		"commands, and the deletion of a temporary group left by the drift correction just before, wait for a poll the bridge answers.", r.sc.Outage)
	return nil
}
