package hue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Settings are the operator-wide defaults; a HueBridge's spec overrides the
// poll interval and command rate for itself.
type Settings struct {
	PollInterval      time.Duration // default 5s
	CommandsPerSecond float64       // default 10
	CallTimeout       time.Duration // default DefaultCallTimeout
	// CredentialsNamespaces are where credentials Secrets may be
	// (secretaccess.go); none allows none.
	CredentialsNamespaces []string
	// NewClient builds a bridge client; tests may swap it.
	NewClient func(address, user string, timeout time.Duration) Client
}

func (s Settings) withDefaults() Settings {
	if s.PollInterval <= 0 {
		s.PollInterval = 5 * time.Second
	}
	if s.CommandsPerSecond <= 0 {
		s.CommandsPerSecond = 10
	}
	if s.CallTimeout <= 0 {
		s.CallTimeout = DefaultCallTimeout
	}
	if s.NewClient == nil {
		s.NewClient = NewClient
	}
	return s
}

// rebuildAfterUnauthorized spaces re-reads of the credentials Secret while
// the bridge refuses the username.
const rebuildAfterUnauthorized = 10 * time.Second

// Registry holds one Poller per HueBridge. It is a manager Runnable: its
// pollers stop with the manager.
type Registry struct {
	reader   client.Reader // HueBridges (cached)
	secrets  client.Reader // credentials (uncached: no cluster-wide Secret informer)
	settings Settings
	events   chan event.GenericEvent
	bridges  chan event.GenericEvent
	log      logr.Logger

	base   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	pollers map[string]*registered
}

type registered struct {
	poller      *Poller
	fingerprint string
}

// NewRegistry creates the registry; reader serves HueBridges, secrets reads
// credentials Secrets.
func NewRegistry(reader, secrets client.Reader, settings Settings, log logr.Logger) *Registry {
	base, cancel := context.WithCancel(context.Background())
	return &Registry{
		reader:   reader,
		secrets:  secrets,
		settings: settings.withDefaults(),
		events:   make(chan event.GenericEvent, 4096),
		bridges:  make(chan event.GenericEvent, 64),
		log:      log,
		base:     base,
		cancel:   cancel,
		pollers:  map[string]*registered{},
	}
}

// Events is the channel of HueLights to reconcile (drift, reachability,
// bridge back online); feed it to the HueLight controller as source.Channel.
func (r *Registry) Events() <-chan event.GenericEvent { return r.events }

// BridgeEvents is the channel of HueBridges whose bridge stopped or started
// answering; feed it to the HueBridge controller as source.Channel.
func (r *Registry) BridgeEvents() <-chan event.GenericEvent { return r.bridges }

// Start blocks until ctx ends, then stops every poller.
func (r *Registry) Start(ctx context.Context) error {
	<-ctx.Done()
	r.Stop()
	return nil
}

// Stop stops every poller.
func (r *Registry) Stop() { r.cancel() }

// For returns the poller of bridge, starting it or restarting it when the
// bridge's address, credentials or settings changed.
func (r *Registry) For(ctx context.Context, bridge *huev1alpha1.HueBridge) (*Poller, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fp := fingerprint(bridge)
	if reg, ok := r.pollers[bridge.Name]; ok && reg.fingerprint == fp && !reg.poller.needsRebuild() {
		return reg.poller, nil
	}
	user, err := r.username(ctx, bridge)
	if err != nil {
		return nil, err
	}
	r.dropLocked(bridge.Name)
	p := r.build(bridge, user)
	r.pollers[bridge.Name] = &registered{poller: p, fingerprint: fp}
	return p, nil
}

// Running returns the bridge's poller if one runs, without starting one.
func (r *Registry) Running(bridge string) (*Poller, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reg, ok := r.pollers[bridge]
	if !ok {
		return nil, false
	}
	return reg.poller, true
}

// Drop stops the poller of a bridge (deleted, or its credentials changed).
func (r *Registry) Drop(bridge string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(bridge)
}

func (r *Registry) dropLocked(bridge string) {
	if reg, ok := r.pollers[bridge]; ok {
		reg.poller.stop()
		delete(r.pollers, bridge)
	}
}

// dropIfGone deregisters p when its HueBridge no longer exists. Deleting a
// HueBridge normally drops its poller (BridgeExternal.Delete), but a paused
// one is released without that call, and its poller would poll forever.
func (r *Registry) dropIfGone(ctx context.Context, bridge string, p *Poller) bool {
	err := r.reader.Get(ctx, types.NamespacedName{Name: bridge}, &huev1alpha1.HueBridge{})
	if !apierrors.IsNotFound(err) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if reg, ok := r.pollers[bridge]; ok && reg.poller == p {
		delete(r.pollers, bridge)
	}
	return true
}

func (r *Registry) build(bridge *huev1alpha1.HueBridge, user string) *Poller {
	interval, perSecond := r.settings.PollInterval, r.settings.CommandsPerSecond
	if bridge.Spec.PollInterval != nil {
		interval = bridge.Spec.PollInterval.Duration
	}
	if bridge.Spec.CommandsPerSecond != nil {
		perSecond = float64(*bridge.Spec.CommandsPerSecond)
	}
	c := r.settings.NewClient(bridge.Spec.Address, user, r.settings.CallTimeout)
	p := newPoller(bridge.Name, c, interval, perSecond, r.events, r.bridges, r.log)
	ctx, cancel := context.WithCancel(r.base)
	p.stop = cancel
	p.orphaned = func(ctx context.Context) bool { return r.dropIfGone(ctx, bridge.Name, p) }
	go p.run(ctx)
	return p
}

// username reads the bridge's credentials Secret. The value is never logged
// nor put in an error.
func (r *Registry) username(ctx context.Context, bridge *huev1alpha1.HueBridge) (string, error) {
	if err := allowCredentialsRef(r.settings.CredentialsNamespaces, bridge); err != nil {
		return "", err
	}
	ref := bridge.Spec.CredentialsSecretRef
	var s corev1.Secret
	err := r.secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) || (err == nil && len(s.Data[huev1alpha1.CredentialsKey]) == 0) {
		return "", providers.RetryAfter(10*time.Second, ReasonNotPaired, fmt.Errorf(
			"HueBridge %s is not paired yet (no %q in Secret %s/%s): see its Paired condition",
			bridge.Name, huev1alpha1.CredentialsKey, ref.Namespace, ref.Name))
	}
	if err != nil {
		return "", err
	}
	return string(s.Data[huev1alpha1.CredentialsKey]), nil
}

// fingerprint changes when the poller must be rebuilt.
func fingerprint(b *huev1alpha1.HueBridge) string {
	return fmt.Sprintf("%s/%d", b.UID, b.Generation)
}

// needsRebuild is true when the bridge refuses the username and the
// credentials may have been replaced since (re-pairing).
func (p *Poller) needsRebuild() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return apiErrorType(p.err) == errUnauthorized && time.Since(p.builtAt) > rebuildAfterUnauthorized
}
