package controllers

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/reconciler"
)

// +kubebuilder:rbac:groups=hue.tether.dev,resources=huelights,verbs=list;watch;patch
// +kubebuilder:rbac:groups=hue.tether.dev,resources=huelights/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// hueLightResync is a backstop only: the bridge's session wakes a HueLight
// within one poll interval when its bulb drifts.
const hueLightResync = 5 * time.Minute

// hueLightWorkers is how many HueLights are reconciled at once. A pass
// makes no bridge call of its own (it reads the session's cache and hands
// commands to the session's sender, which paces the bridge); its time is
// the status write to the API server, so a burst of changes needs more
// workers than the generic default for those writes not to queue behind
// each other.
const hueLightWorkers = 16

// SetupHueLight registers the HueLight controller: the generic reconciler,
// woken by its bridge's session (drift, a command sent, a bulb let go) and
// by its bridge's readiness.
func SetupHueLight(mgr ctrl.Manager, registry *hue.Registry) error {
	connector := &hue.LightExternal{Reader: mgr.GetClient(), Registry: registry}
	r := reconciler.New(mgr.GetClient(), mgr.GetEventRecorder("tether-huelight"), "huelight",
		func() *huev1alpha1.HueLight { return &huev1alpha1.HueLight{} }, connector,
		reconciler.Options{
			PollInterval:            hueLightResync,
			MaxConcurrentReconciles: hueLightWorkers,
			Customize: func(b *builder.Builder) *builder.Builder {
				return b.
					WatchesRawSource(wakeSource(registry.LightWakes())).
					Watches(&huev1alpha1.HueLight{}, expectSends(registry)).
					Watches(&huev1alpha1.HueBridge{},
						handler.EnqueueRequestsFromMapFunc(lightsOfBridge(mgr.GetClient())),
						builder.WithPredicates(bridgeReadinessChanged()))
			},
		})
	return r.SetupWithManager(mgr)
}

// expectSends tells the HueLight's bridge session, as soon as the informer
// sees a HueLight created or its spec changed, that it is about to send a
// command: HueLights changed together are then sent together (one scene or
// group command) however slowly their reconciles follow. It enqueues
// nothing itself.
func expectSends(registry *hue.Registry) handler.EventHandler {
	expect := func(obj client.Object) {
		l, ok := obj.(*huev1alpha1.HueLight)
		if !ok {
			return
		}
		bridge := ""
		if ref := l.Spec.BridgeRef; ref != nil {
			bridge = ref.Name
		}
		registry.Expect(bridge, client.ObjectKeyFromObject(l), l.Generation)
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			expect(e.Object)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				expect(e.ObjectNew)
			}
		},
	}
}

// lightsOfBridge maps a HueBridge to the HueLights that use it (by name, or
// by leaving bridgeRef out).
func lightsOfBridge(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		return requestsFor(ctx, c, obj, &huev1alpha1.HueLightList{}, func(l *huev1alpha1.HueLight) bool {
			return onBridge(l.Spec.BridgeRef, obj.GetName())
		})
	}
}
