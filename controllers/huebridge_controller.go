package controllers

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/reconciler"
)

// +kubebuilder:rbac:groups=hue.tether.dev,resources=huebridges,verbs=list;watch;patch
// +kubebuilder:rbac:groups=hue.tether.dev,resources=huebridges/status,verbs=patch
// Credentials Secrets only in the manager's namespace ("system" becomes it in
// config/default; the Helm chart grants the same Role in each of
// credentialsNamespaces), by name (providers/hue/secretaccess.go).
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=get;create;update

// hueBridgeResync is how often the HueBridge's status (last contact, light
// count) is refreshed from its session's cache, at no cost to the bridge:
// its health is the session's own GET /lights, and the session wakes the
// HueBridge within a poll when the bridge stops or starts answering or its
// light count changes. /config is read only when the HueBridge is bound (on
// first contact, after its address or credentials change) and after the
// bridge comes back.
const hueBridgeResync = 30 * time.Second

// SetupHueBridge registers the HueBridge controller (pairing and health).
func SetupHueBridge(mgr ctrl.Manager, registry *hue.Registry) error {
	connector := &hue.BridgeExternal{Client: mgr.GetClient(), Registry: registry}
	r := reconciler.New(mgr.GetClient(), mgr.GetEventRecorder("tether-huebridge"), "huebridge",
		func() *huev1alpha1.HueBridge { return &huev1alpha1.HueBridge{} }, connector,
		reconciler.Options{
			PollInterval: hueBridgeResync,
			Customize: func(b *builder.Builder) *builder.Builder {
				return b.WatchesRawSource(wakeSource(registry.BridgeWakes()))
			},
		})
	return r.SetupWithManager(mgr)
}
