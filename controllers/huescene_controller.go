package controllers

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/reconciler"
)

// +kubebuilder:rbac:groups=hue.tether.dev,resources=huescenes,verbs=list;watch;patch
// +kubebuilder:rbac:groups=hue.tether.dev,resources=huescenes/status,verbs=patch

// SetupHueScene registers the HueScene controller: the generic reconciler,
// woken when its HueGroup gets (or changes) its room or zone, and when the
// bridge's event stream shows its scene changed.
func SetupHueScene(mgr ctrl.Manager, registry *hue.Registry) error {
	connector := &hue.SceneExternal{Reader: mgr.GetClient(), Registry: registry}
	r := reconciler.New(mgr.GetClient(), mgr.GetEventRecorder("tether-huescene"), "huescene",
		func() *huev1alpha1.HueScene { return &huev1alpha1.HueScene{} }, connector,
		reconciler.Options{
			PollInterval: hueLightResync,
			Customize: func(b *builder.Builder) *builder.Builder {
				return b.Watches(&huev1alpha1.HueGroup{},
					handler.EnqueueRequestsFromMapFunc(scenesOfGroup(mgr.GetClient())),
					builder.WithPredicates(groupPlaced())).
					WatchesRawSource(wakeSource(registry.SceneWakes()))
			},
		})
	return r.SetupWithManager(mgr)
}

// scenesOfGroup maps a HueGroup to the HueScenes of its namespace for it.
func scenesOfGroup(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		return requestsFor(ctx, c, obj, &huev1alpha1.HueSceneList{}, func(s *huev1alpha1.HueScene) bool {
			return s.Spec.GroupRef.Name == obj.GetName()
		}, client.InNamespace(obj.GetNamespace()))
	}
}

// groupPlaced passes a HueGroup's creation and deletion, and updates that
// change its bridge, its group id or its lights.
func groupPlaced() predicate.Predicate {
	return updatesWhere(func(o, n *huev1alpha1.HueGroup) bool {
		return o.Status.Bridge != n.Status.Bridge || o.Status.GroupID != n.Status.GroupID ||
			o.Status.MemberCount != n.Status.MemberCount || o.Generation != n.Generation
	})
}
