package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/reconciler"
)

// +kubebuilder:rbac:groups=hue.tether.dev,resources=huegroups,verbs=list;watch;patch
// +kubebuilder:rbac:groups=hue.tether.dev,resources=huegroups/status,verbs=patch

// SetupHueGroup registers the HueGroup controller: the generic reconciler,
// woken by its bridge's session (a member drifted, the group's lights
// changed, its command sent), by its bridge's readiness, and by its
// HueScene (stored or changed: shown again).
func SetupHueGroup(mgr ctrl.Manager, registry *hue.Registry) error {
	connector := &hue.GroupExternal{Reader: mgr.GetClient(), Registry: registry}
	r := reconciler.New(mgr.GetClient(), mgr.GetEventRecorder("tether-huegroup"), "huegroup",
		func() *huev1alpha1.HueGroup { return &huev1alpha1.HueGroup{} }, connector,
		reconciler.Options{
			PollInterval: hueLightResync,
			// A room or zone Tether created is removed with its HueGroup:
			// the annotation tells it from an adopted one after a crash.
			RecordCreateStart: true,
			Customize: func(b *builder.Builder) *builder.Builder {
				return b.
					WatchesRawSource(wakeSource(registry.GroupWakes())).
					Watches(&huev1alpha1.HueBridge{},
						handler.EnqueueRequestsFromMapFunc(groupsOfBridge(mgr.GetClient())),
						builder.WithPredicates(bridgeReadinessChanged())).
					Watches(&huev1alpha1.HueScene{},
						handler.EnqueueRequestsFromMapFunc(groupsShowing(mgr.GetClient())),
						builder.WithPredicates(sceneStoredOrChanged()))
			},
		})
	return r.SetupWithManager(mgr)
}

// groupsOfBridge maps a HueBridge to the HueGroups on it.
func groupsOfBridge(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		return requestsFor(ctx, c, obj, &huev1alpha1.HueGroupList{}, func(g *huev1alpha1.HueGroup) bool {
			return onBridge(g.Spec.BridgeRef, obj.GetName())
		})
	}
}

// groupsShowing maps a HueScene to the HueGroups of its namespace whose
// spec.scene names it.
func groupsShowing(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		return requestsFor(ctx, c, obj, &huev1alpha1.HueGroupList{}, func(g *huev1alpha1.HueGroup) bool {
			return g.Spec.Scene == obj.GetName()
		}, client.InNamespace(obj.GetNamespace()))
	}
}

// sceneStoredOrChanged passes a HueScene's creation and deletion, and
// updates that change its spec, its scene id or its readiness for its
// generation: then the groups showing it look again.
func sceneStoredOrChanged() predicate.Predicate {
	return updatesWhere(func(o, n *huev1alpha1.HueScene) bool {
		return o.Generation != n.Generation || o.Status.SceneID != n.Status.SceneID ||
			readyAt(o.Status.Conditions) != readyAt(n.Status.Conditions)
	})
}

// readyAt is the generation Ready is True for, or -1.
func readyAt(conds []metav1.Condition) int64 {
	c := meta.FindStatusCondition(conds, commonv1alpha1.Ready)
	if c == nil || c.Status != "True" {
		return -1
	}
	return c.ObservedGeneration
}
