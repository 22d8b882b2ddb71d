package bench

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/bridge"
)

// Figure 10, measure 4 (issue 39 item 12): a neighbour's change while a
// tenant edits without pause on the same bridge. The tenant's bursts keep
// the bridge's gathering going, one after the other; the neighbour's
// single change, in another namespace, must not wait for them. Its time is
// from its patch being accepted to the bulb holding the new brightness,
// first with the bridge idle, then during the tenant's edits.
const (
	neighbourNS = "bench-neighbour"
	// tenantEvery and tenantBatch are the tenant's pace: a handful of its
	// HueLights patched together, again and again, faster than a gathering
	// lets go (100 ms to 0.5 s after the last of a burst).
	tenantEvery = 250 * time.Millisecond
	tenantBatch = 5
	// neighbourChanges are the neighbour's changes in each phase,
	// neighbourEvery apart: during the edits they span more than two
	// gatherings' 5 s limit.
	neighbourChanges = 8
	neighbourEvery   = 1500 * time.Millisecond
)

// neighbourGoal bounds the neighbour's worst change during the edits: one
// group slot (a change that joins the tenant's next temporary scene waits
// for the bridge's group budget), not the 5 s a gathering may last.
var neighbourGoal = bridge.GroupSlot

// neighbourDuringBursts runs measure 4 on sim (whose HueLights, the
// tenant's, are tenant) and returns the neighbour's HueLight, which took
// the tenant's last bulb: the caller's lists name it instead.
func (r *run) neighbourDuringBursts(ctx context.Context, f *figureResult, sim *huesim.Server, tenant []*huev1alpha1.HueLight) (*huev1alpha1.HueLight, error) {
	// The tenant's last HueLight leaves its bulb (onDelete: Keep sends
	// nothing) to a HueLight of another namespace.
	last := tenant[len(tenant)-1]
	tenant = tenant[:len(tenant)-1]
	if err := r.c.Delete(ctx, last); err != nil {
		return nil, err
	}
	if err := WaitUntil(ctx, time.Minute, 100*time.Millisecond, func() (bool, error) {
		err := r.c.Get(ctx, client.ObjectKeyFromObject(last), &huev1alpha1.HueLight{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}); err != nil {
		return nil, err
	}
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: neighbourNS}}); client.IgnoreAlreadyExists(err) != nil {
		return nil, err
	}
	n := newLight(neighbourNS, "neighbour", "neighbour", last.Spec.BridgeRef.Name, last.Spec.Name, 1)
	if err := r.c.Create(ctx, n); err != nil {
		return nil, err
	}
	if _, err := r.waitReady(ctx, false, wantAll([]client.Object{n}), time.Minute, nil); err != nil {
		return nil, err
	}
	bulb, ok := sim.LightByName(last.Spec.Name)
	if !ok {
		return nil, fmt.Errorf("no bulb %q", last.Spec.Name)
	}

	bri := 1
	change := func() (time.Duration, error) {
		bri = 2 + (bri+97)%250
		want := bri
		if err := r.c.Patch(ctx, n, client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"brightness":%d}}`, want))); err != nil {
			return 0, err
		}
		accepted := time.Now()
		var at time.Time
		err := WaitUntil(ctx, 30*time.Second, 2*time.Millisecond, func() (bool, error) {
			l, _ := sim.Light(bulb.ID)
			at = time.Now()
			return l.State.Bri == want, nil
		})
		return at.Sub(accepted), err
	}
	phase := func() ([]time.Duration, error) {
		var out []time.Duration
		for range neighbourChanges {
			d, err := change()
			if err != nil {
				return nil, err
			}
			out = append(out, d)
			if err := r.sleep(ctx, neighbourEvery-d); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	idle, err := phase()
	if err != nil {
		return nil, err
	}

	editing, stop := context.WithCancel(ctx)
	edits, done := 0, make(chan error, 1)
	go func() { done <- r.editWithoutPause(editing, tenant, &edits) }()
	busy, err := phase()
	stop()
	if editErr := <-done; err == nil {
		err = editErr
	}
	if err != nil {
		return nil, err
	}
	if _, err := r.waitReady(ctx, false, wantAll(objects(tenant)), 2*time.Minute, nil); err != nil {
		return nil, err
	}

	f.add("neighbour_idle_p50", "a neighbour's change alone (another namespace, same bridge), bridge idle: patch accepted to bulb set, p50", "ms", ms(percentile(idle, 50)), nil)
	f.add("neighbour_idle_max", "the same, slowest", "ms", ms(percentile(idle, 100)), nil)
	f.add("neighbour_busy_p50", fmt.Sprintf("the same while a tenant edits without pause (%d of its HueLights every %s): p50", tenantBatch, tenantEvery), "ms", ms(percentile(busy, 50)), nil)
	f.add("neighbour_busy_max", "the same, slowest", "s", secs(percentile(busy, 100)), &goal{Op: "<=", Limit: secs(neighbourGoal)})
	f.why("%d neighbour changes in each phase, %s apart; the tenant made %d edits meanwhile", neighbourChanges, neighbourEvery, edits)
	return n, nil
}

// editWithoutPause patches tenantBatch of the tenant's HueLights, each a
// state of its own, every tenantEvery until ctx ends, and counts them.
func (r *run) editWithoutPause(ctx context.Context, tenant []*huev1alpha1.HueLight, edits *int) error {
	tick := time.NewTicker(tenantEvery)
	defer tick.Stop()
	for round := 0; ; round++ {
		batch := make([]client.Object, tenantBatch)
		for i := range batch {
			batch[i] = tenant[(round*tenantBatch+i)%len(tenant)]
		}
		if _, err := r.patchEach(ctx, batch, tenantBatch, func(i int) string {
			return fmt.Sprintf(`{"spec":{"brightness":%d}}`, 2+(round*31+i*7)%252)
		}); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		*edits += tenantBatch
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
