package reconciler

import (
	"context"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// observed is an External whose Observe always reports obs.
type observed struct{ obs providers.Observation }

func (o observed) Observe(context.Context, *testv1alpha1.Widget) (providers.Observation, error) {
	return o.obs, nil
}
func (observed) Create(context.Context, *testv1alpha1.Widget) error { return nil }
func (observed) Update(context.Context, *testv1alpha1.Widget, providers.Difference) error {
	return nil
}
func (observed) Delete(context.Context, *testv1alpha1.Widget) error { return nil }

// TestNextLookAfterAMatch: a matching object is looked at again at its
// resync interval, except for a transition that finishes by itself
// (NextLook while unavailable) and a match that rests on a write not
// yet read back (Unconfirmed): nothing else wakes that one, since the read
// that confirms the write shows no drift, and the status would report the
// read from before the write until the resync.
func TestNextLookAfterAMatch(t *testing.T) {
	const (
		resync     = 5 * time.Minute
		afterWrite = 2 * time.Second
	)
	match := providers.Matches()
	with := func(change func(*providers.Observation)) providers.Observation {
		o := match
		change(&o)
		return o
	}
	cases := []struct {
		name string
		obs  providers.Observation
		want time.Duration
	}{
		{"confirmed match: resync", match, resync},
		{"confirmed match with a recheck hint: resync", with(func(o *providers.Observation) { o.NextLook = time.Second }), resync},
		{"transition finishing by itself: its recheck", with(func(o *providers.Observation) {
			o.Available, o.NextLook = false, 3*time.Second
		}), 3 * time.Second},
		{"unconfirmed match: when a read can confirm it", with(func(o *providers.Observation) {
			o.Unconfirmed, o.NextLook = true, 10*time.Second
		}), 10 * time.Second},
		{"unconfirmed match without a hint: after a write's wait", with(func(o *providers.Observation) { o.Unconfirmed = true }), afterWrite},
		{"unconfirmed match, hint beyond the resync: resync", with(func(o *providers.Observation) {
			o.Unconfirmed, o.NextLook = true, time.Hour
		}), resync},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New[*testv1alpha1.Widget](nil, nil, "widget",
				func() *testv1alpha1.Widget { return &testv1alpha1.Widget{} },
				providers.Connected[*testv1alpha1.Widget](observed{tc.obs}),
				Options{PollInterval: resync, AfterWrite: afterWrite})
			w := newWidget("w", 1, nil)
			res, err := r.sync(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(w)}, w)
			if err != nil {
				t.Fatal(err)
			}
			// succeeded adds up to jitterFactor.
			if res.RequeueAfter < tc.want || res.RequeueAfter > time.Duration(float64(tc.want)*(1+jitterFactor)) {
				t.Fatalf("looked at again after %s, want %s (+%.0f%% jitter)", res.RequeueAfter, tc.want, jitterFactor*100)
			}
		})
	}
}

// TestAnObservationWithoutAnOutcomeIsAnError: an adapter that fills in no
// outcome has a bug; the pass fails (and backs off) instead of reading
// the zero value as one of the four outcomes, such as a create.
func TestAnObservationWithoutAnOutcomeIsAnError(t *testing.T) {
	r := New[*testv1alpha1.Widget](nil, nil, "widget",
		func() *testv1alpha1.Widget { return &testv1alpha1.Widget{} },
		providers.Connected[*testv1alpha1.Widget](observed{providers.Observation{}}), Options{})
	w := newWidget("w", 1, nil)
	_, err := r.sync(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(w)}, w)
	if err == nil || !strings.Contains(err.Error(), "no outcome") {
		t.Fatalf("err = %v, want the pass to fail for want of an outcome", err)
	}
}
