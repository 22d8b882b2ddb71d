package controllers

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
)

func init() { kindSetups = append(kindSetups, setupHue) }

// hueKinds are the kinds whose first object starts the Hue controllers.
var hueKinds = []string{"HueBridge", "HueLight", "HueGroup", "HueScene"}

// setupHue starts the Hue controllers (their informers, worker pools and
// the registry of bridge sessions) once the cluster holds an object of a Hue
// kind, so that a manager of DynamoDB tables alone holds none of them
// (bench figure 16 measures its memory). Until then a metadata-only
// informer per Hue kind waits for the first object; once they have started
// the controllers stay, whatever is deleted later.
func setupHue(mgr ctrl.Manager, cfg Config) error {
	return mgr.Add(&hueStarter{mgr: mgr, cfg: cfg})
}

// hueStarter is the manager's runnable that waits for a Hue object. It needs
// leader election, as the controllers it starts do.
type hueStarter struct {
	mgr ctrl.Manager
	cfg Config
}

func (s *hueStarter) Start(ctx context.Context) error {
	seen := make(chan struct{})
	var once sync.Once
	watches := make([]*metav1.PartialObjectMetadata, 0, len(hueKinds))
	for _, kind := range hueKinds {
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(huev1alpha1.GroupVersion.WithKind(kind))
		informer, err := s.mgr.GetCache().GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { once.Do(func() { close(seen) }) },
		}); err != nil {
			return err
		}
		watches = append(watches, obj)
	}
	select {
	case <-ctx.Done():
		return nil
	case <-seen:
	}
	s.mgr.GetLogger().Info("a Hue object exists: starting the Hue controllers")
	if err := setupHueControllers(s.mgr, s.cfg); err != nil {
		return err
	}
	// The controllers' own informers hold the objects now.
	for _, obj := range watches {
		if err := s.mgr.GetCache().RemoveInformer(ctx, obj); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

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
