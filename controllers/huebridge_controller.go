package controllers

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
)

// +kubebuilder:rbac:groups=hue.tether.dev,resources=huebridges,verbs=list;watch;patch
// +kubebuilder:rbac:groups=hue.tether.dev,resources=huebridges/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update

// hueBridgeResync is how often a bridge's /config is read to report its
// health; between resyncs the poller wakes the HueBridge when the bridge
// stops or starts answering.
const hueBridgeResync = 30 * time.Second

// SetupHueBridge registers the HueBridge controller (pairing and health).
func SetupHueBridge(mgr ctrl.Manager, registry *hue.Registry) error {
	external := &hue.BridgeExternal{Client: mgr.GetClient(), Registry: registry}
	r := NewManagedReconciler(mgr.GetClient(), mgr.GetEventRecorder("tether-huebridge"), "huebridge",
		func() *huev1alpha1.HueBridge { return &huev1alpha1.HueBridge{} }, external,
		Options{
			PollInterval: hueBridgeResync,
			Customize: func(b *builder.Builder) *builder.Builder {
				return b.WatchesRawSource(source.Channel(registry.BridgeEvents(), &handler.EnqueueRequestForObject{}))
			},
		})
	return r.SetupWithManager(mgr)
}
