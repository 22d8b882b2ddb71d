package reconciler

import (
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// jitterFactor spreads resyncs of many objects so they do not all call the
// backend in the same second.
const jitterFactor = 0.1

// pollInterval is the object's resync interval: the adapter's while a push
// channel covers the object (providers.Resyncer), otherwise the annotation
// when it is a valid duration, otherwise the kind's default. A bad
// annotation is reported back as a warning for the Synced condition's
// message.
func (r *Reconciler[O]) pollInterval(obj O) (time.Duration, string) {
	d, warning := commonv1alpha1.PollInterval(obj.GetAnnotations(), r.opts.PollInterval)
	if rs, ok := r.connector.(providers.Resyncer[O]); ok {
		if pushed, covered := rs.ResyncInterval(obj); covered {
			return pushed, warning
		}
	}
	return d, warning
}

// jitter adds up to 10% to d.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return wait.Jitter(d, jitterFactor)
}

func isPaused(obj client.Object) bool {
	return obj.GetAnnotations()[commonv1alpha1.AnnotationReconcile] == commonv1alpha1.ReconcilePaused
}

// userAnnotationChanged wakes the controller when a user changes an
// annotation (pause, poll interval, adopt, ...), not when Tether writes its
// own create-started note: that write must not cost another look outside.
func userAnnotationChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !maps.Equal(userAnnotations(e.ObjectOld), userAnnotations(e.ObjectNew))
		},
		CreateFunc:  func(event.CreateEvent) bool { return true },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		GenericFunc: func(event.GenericEvent) bool { return true },
	}
}

func userAnnotations(obj client.Object) map[string]string {
	out := maps.Clone(obj.GetAnnotations())
	delete(out, commonv1alpha1.AnnotationCreateStarted)
	return out
}
