package reconciler

import (
	"context"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// pushed is an adapter whose push channel covers its objects when covered
// says so, with interval between looks.
type pushed struct {
	observed
	covered  bool
	interval time.Duration
}

func (p pushed) ResyncInterval(*testv1alpha1.Widget) (time.Duration, bool) {
	return p.interval, p.covered
}

// TestResyncerSetsTheIntervalOfCoveredObjects: while an adapter's push
// channel covers an object (the DynamoDB change feed), the object is looked
// at again after the adapter's interval instead of the poll interval; when
// it does not, after the poll interval.
func TestResyncerSetsTheIntervalOfCoveredObjects(t *testing.T) {
	const resync, safety = 5 * time.Minute, 30 * time.Minute
	match := observed{providers.Matches()}
	for _, tc := range []struct {
		name    string
		covered bool
		want    time.Duration
	}{
		{"covered: the adapter's interval", true, safety},
		{"not covered: the poll interval", false, resync},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New[*testv1alpha1.Widget](nil, nil, "widget",
				func() *testv1alpha1.Widget { return &testv1alpha1.Widget{} },
				providers.Connected[*testv1alpha1.Widget](pushed{observed: match, covered: tc.covered, interval: safety}),
				Options{PollInterval: resync})
			w := newWidget("w", 1, nil)
			res, err := r.sync(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(w)}, w)
			if err != nil {
				t.Fatal(err)
			}
			if res.RequeueAfter < tc.want || res.RequeueAfter > time.Duration(float64(tc.want)*(1+jitterFactor)) {
				t.Fatalf("looked at again after %s, want %s", res.RequeueAfter, tc.want)
			}
		})
	}
}
