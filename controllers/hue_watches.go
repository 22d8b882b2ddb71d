package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
)

// The watches the Hue kinds share: wake-ups from a bridge's session, a
// HueBridge becoming ready or not, and which objects a HueBridge concerns.

// wakeSource turns wake-ups by object key into reconcile requests.
func wakeSource(wakes <-chan hue.Wake) source.Source {
	return source.Channel(wakes, handler.TypedFuncs[types.NamespacedName, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[types.NamespacedName], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(reconcile.Request{NamespacedName: e.Object})
		},
	})
}

// bridgeReadinessChanged passes HueBridge creations, deletions, spec changes
// and Ready/Paired flips, not every status write (last contact time).
func bridgeReadinessChanged() predicate.Predicate {
	return updatesWhere(func(o, n *huev1alpha1.HueBridge) bool {
		if o.Generation != n.Generation {
			return true
		}
		for _, t := range []string{commonv1alpha1.Ready, huev1alpha1.ConditionPaired} {
			if meta.IsStatusConditionTrue(o.Status.Conditions, t) != meta.IsStatusConditionTrue(n.Status.Conditions, t) {
				return true
			}
		}
		return false
	})
}

// onBridge says whether an object's bridgeRef names the HueBridge name,
// or leaves it to the only one (which this may be).
func onBridge(ref *huev1alpha1.BridgeReference, name string) bool {
	return ref == nil || ref.Name == name
}
