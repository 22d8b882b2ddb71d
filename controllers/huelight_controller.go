package controllers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
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

func init() { kindSetups = append(kindSetups, setupHue) }

// setupHueControllers registers the Hue kinds around one registry of
// bridge sessions, shared so that each bridge is read once for all its
// lights.
func setupHueControllers(mgr ctrl.Manager, cfg Config) error {
	registry := hue.NewRegistry(mgr.GetClient(), mgr.GetAPIReader(), hue.Settings{
		PollInterval:          cfg.HueBridgePollInterval,
		CommandsPerSecond:     cfg.HueCommandsPerSecond,
		CredentialsNamespaces: cfg.CredentialsNamespaces,
		Stream:                bridge.StreamSettings{SafetyRead: cfg.HueSafetyReadInterval, Silence: cfg.HueEventStreamSilence},
	}, mgr.GetLogger().WithName("hue"))
	if err := mgr.Add(registry); err != nil {
		return err
	}
	if err := SetupHueLight(mgr, registry); err != nil {
		return err
	}
	if err := SetupHueGroup(mgr, registry); err != nil {
		return err
	}
	if err := SetupHueScene(mgr, registry); err != nil {
		return err
	}
	return SetupHueBridge(mgr, registry)
}

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

// wakeSource turns wake-ups by object key into reconcile requests.
func wakeSource(wakes <-chan hue.Wake) source.Source {
	return source.Channel(wakes, handler.TypedFuncs[types.NamespacedName, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[types.NamespacedName], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(reconcile.Request{NamespacedName: e.Object})
		},
	})
}

// lightsOfBridge maps a HueBridge to the HueLights that use it (by name, or
// by leaving bridgeRef out).
func lightsOfBridge(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var lights huev1alpha1.HueLightList
		if err := c.List(ctx, &lights); err != nil {
			return nil
		}
		var out []reconcile.Request
		for _, l := range lights.Items {
			if ref := l.Spec.BridgeRef; ref == nil || ref.Name == obj.GetName() {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&l)})
			}
		}
		return out
	}
}

// bridgeReadinessChanged passes HueBridge creations, deletions, spec changes
// and Ready/Paired flips, not every status write (last contact time).
func bridgeReadinessChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldB, ok1 := e.ObjectOld.(*huev1alpha1.HueBridge)
			newB, ok2 := e.ObjectNew.(*huev1alpha1.HueBridge)
			if !ok1 || !ok2 || oldB.Generation != newB.Generation {
				return true
			}
			for _, t := range []string{commonv1alpha1.Ready, huev1alpha1.ConditionPaired} {
				if meta.IsStatusConditionTrue(oldB.Status.Conditions, t) != meta.IsStatusConditionTrue(newB.Status.Conditions, t) {
					return true
				}
			}
			return false
		},
	}
}
