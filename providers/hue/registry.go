package hue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// rebuildAfterUnauthorized spaces re-reads of the credentials Secret while
// the bridge refuses the username.
const rebuildAfterUnauthorized = 10 * time.Second

// Wake is a wake-up for one object, by key: the controllers turn it into a
// reconcile request through a controller-runtime channel source.
type Wake = bridge.Wake

// Registry binds HueBridge objects to bridge sessions: one session per
// physical bridge (by bridge id), however many HueBridges name it. It is a
// manager Runnable: its sessions stop with the manager.
//
// Its lock guards only its maps: the Secret read and the /config call that
// binds a HueBridge run outside it, one at a time per HueBridge. The
// sessions know nothing of it: they send keys on its channels.
type Registry struct {
	reader   client.Reader // HueBridges (cached)
	secrets  client.Reader // credentials (uncached)
	settings Settings
	lights   chan Wake
	bridges  chan Wake
	groups   chan Wake
	scenes   chan Wake
	// bridgeIDs carries the sessions' wake-ups of their HueBridges, by
	// bridge id (relayBridgeWakes).
	bridgeIDs chan string
	log       logr.Logger

	base   context.Context
	cancel context.CancelFunc

	dialer *dialer

	mu       sync.Mutex
	bindings map[string]*binding // HueBridge name ->
	sessions map[string]*running // bridge id ->
	binders  map[string]*binder  // HueBridge name ->
	// groupBudgets are the bridges' group budgets (bridge id ->), kept
	// across their sessions: a stopping session's last deletions and its
	// successor's first writes take the same slots.
	groupBudgets map[string]*rate.Limiter
}

// running is a bridge's session as the registry holds it, with the client
// it speaks through now: one of its HueBridges' clients.
type running struct {
	id      string
	session *bridge.Session
	client  wire.Client
}

// binding is one HueBridge object's use of a session.
type binding struct {
	fingerprint string
	run         *running
	client      wire.Client // with this HueBridge's address and username
	address     string      // where client reaches the bridge
	secret      huev1alpha1.SecretReference
	builtAt     time.Time
	// unrecorded holds the credentials bound with while their Secret
	// records no proof and this binding may record it (proofToRecord).
	unrecorded *credentials
}

// Binding is what a HueBridge's status says of its connection.
type Binding struct {
	API         string // V1 or V2
	Address     string
	Certificate wire.CertificateInfo
	Stream      bridge.StreamStatus
}

// BindingOf describes the connection the HueBridge is bound to.
func (r *Registry) BindingOf(ctx context.Context, b *huev1alpha1.HueBridge) (Binding, bool) {
	r.mu.Lock()
	bd, ok := r.bindings[b.Name]
	var c wire.Client
	if ok {
		// The session's client: HueBridges naming one bridge share its
		// session, which speaks through one of their clients.
		c = bd.run.client
	}
	r.mu.Unlock()
	if !ok {
		return Binding{}, false
	}
	addr, _ := r.dialer.address(ctx, b)
	return Binding{API: wire.APIOf(c), Address: addr, Certificate: wire.CertificateOf(c), Stream: bd.run.session.Status().Stream}, true
}

// StreamOf is the event stream of the session b is bound to; false when
// b is not bound (then it has no stream).
func (r *Registry) StreamOf(b *huev1alpha1.HueBridge) (bridge.StreamStatus, bool) {
	r.mu.Lock()
	bd, ok := r.bindings[b.Name]
	r.mu.Unlock()
	if !ok {
		return bridge.StreamStatus{}, false
	}
	return bd.run.session.Status().Stream, true
}

// binder serialises the binding of one HueBridge and remembers its last
// failure, so a bridge that does not answer is asked at most once per poll
// interval however many HueLights want it.
type binder struct {
	mu          sync.Mutex
	fingerprint string
	err         error
	failedAt    time.Time
}

// NewRegistry creates the registry; reader serves HueBridges, secrets reads
// credentials Secrets.
func NewRegistry(reader, secrets client.Reader, settings Settings, log logr.Logger) *Registry {
	base, cancel := context.WithCancel(context.Background())
	r := &Registry{
		reader:       reader,
		secrets:      secrets,
		settings:     settings.withDefaults(),
		lights:       make(chan Wake, 4096),
		bridges:      make(chan Wake, 64),
		groups:       make(chan Wake, 1024),
		scenes:       make(chan Wake, 1024),
		bridgeIDs:    make(chan string, 64),
		log:          log,
		base:         base,
		cancel:       cancel,
		bindings:     map[string]*binding{},
		sessions:     map[string]*running{},
		groupBudgets: map[string]*rate.Limiter{},
		binders:      map[string]*binder{},
	}
	r.dialer = &dialer{settings: r.settings, secrets: secrets, found: &discovered{}, log: log}
	go r.relayBridgeWakes()
	return r
}

// LightWakes carries the HueLights to reconcile (drift, reachability, a
// bulb let go, a command sent); feed it to the HueLight controller.
func (r *Registry) LightWakes() <-chan Wake { return r.lights }

// BridgeWakes carries the HueBridges whose bridge stopped or started
// answering or changed its number of lights.
func (r *Registry) BridgeWakes() <-chan Wake { return r.bridges }

// GroupWakes carries the HueGroups to reconcile (a member drifted or
// changed reachability, the group's lights changed, a command sent).
func (r *Registry) GroupWakes() <-chan Wake { return r.groups }

// SceneWakes carries the HueScenes whose scene an event showed changed.
func (r *Registry) SceneWakes() <-chan Wake { return r.scenes }

// Start blocks until ctx ends, then stops every session.
func (r *Registry) Start(ctx context.Context) error {
	<-ctx.Done()
	r.Stop()
	return nil
}

// Stop stops every session.
func (r *Registry) Stop() { r.cancel() }

// For returns the session of the bridge the HueBridge names, binding it
// first (reading its credentials and the bridge's /config) when it is new,
// when its address, credentials or settings changed, or when the bridge
// refuses its username. Errors are already classified.
func (r *Registry) For(ctx context.Context, b *huev1alpha1.HueBridge) (*bridge.Session, error) {
	if s, ok := r.bound(b); ok {
		return s, nil
	}
	return r.bind(ctx, b)
}

// bound returns the HueBridge's session if its binding is current.
func (r *Registry) bound(b *huev1alpha1.HueBridge) (*bridge.Session, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	bd, ok := r.bindings[b.Name]
	if !ok || bd.fingerprint != fingerprint(b) || r.needsRebuild(bd) {
		return nil, false
	}
	return bd.run.session, true
}

// needsRebuild is true when the bridge refuses the username and the
// credentials may have been replaced since (re-pairing).
func (r *Registry) needsRebuild(bd *binding) bool {
	return bd.run.session.Status().Unauthorized && time.Since(bd.builtAt) > rebuildAfterUnauthorized
}

// bind binds the HueBridge, one caller at a time per HueBridge. Its
// username goes to the bridge only once the bridge proved the id the
// credentials belong to and the HueBridge may share that bridge's session
// (dial); nothing is sent before.
func (r *Registry) bind(ctx context.Context, b *huev1alpha1.HueBridge) (*bridge.Session, error) {
	fp := fingerprint(b)
	bn := r.binderOf(b.Name)
	bn.mu.Lock()
	defer bn.mu.Unlock()
	if s, ok := r.bound(b); ok {
		return s, nil // bound while this caller waited
	}
	if bn.fingerprint == fp && time.Since(bn.failedAt) < r.settings.PollInterval {
		return nil, bn.err
	}
	// The credentials first: a Secret that is missing or refused costs
	// the bridge nothing, and is read again at once next time (pairing
	// waits for it).
	cred, err := r.credentialsOf(ctx, b)
	if err != nil {
		return nil, err
	}
	s, err := r.connect(ctx, b, fp, cred)
	if err != nil {
		if b.Spec.Address == "" {
			r.dialer.found.forget(b.Spec.BridgeID) // look for it again next time
		}
		bn.fingerprint, bn.err, bn.failedAt = fp, Classify(b.Name, err), time.Now()
		return nil, bn.err
	}
	bn.fingerprint, bn.err = "", nil
	return s, nil
}

// credentialsOf reads the HueBridge's credentials, if it may use them.
func (r *Registry) credentialsOf(ctx context.Context, b *huev1alpha1.HueBridge) (credentials, error) {
	if err := allowCredentialsRef(r.settings.CredentialsNamespaces, b); err != nil {
		return credentials{}, err
	}
	cred, err := readCredentials(ctx, r.secrets, b)
	if err != nil {
		return credentials{}, err
	}
	cred.mayRecord, err = checkSecretUser(ctx, r.reader, b, cred, r.boundWith(b.Spec.CredentialsSecretRef, b.Name))
	return cred, err
}

// boundWith is a HueBridge other than name bound with the Secret, or "".
func (r *Registry) boundWith(ref huev1alpha1.SecretReference, name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for other, bd := range r.bindings {
		if other != name && bd.secret == ref {
			return other
		}
	}
	return ""
}

// connect dials the HueBridge's bridge with its credentials and attaches
// it to the bridge's session.
func (r *Registry) connect(ctx context.Context, b *huev1alpha1.HueBridge, fp string, cred credentials) (*bridge.Session, error) {
	c, cfg, rc, err := r.dialer.dial(ctx, b, cred, r.checkIdentity)
	switch {
	case err != nil:
	case !cfg.Authorized:
		err = wire.UnauthorizedError()
	case cfg.BridgeID == "":
		err = &wire.ProtocolError{Detail: "/config names no bridgeid"}
	default:
		err = checkSpecBridgeID(b, cfg)
	}
	if err != nil {
		return nil, err
	}
	return r.attach(b, fp, c, cfg, rc.address, cred)
}

func (r *Registry) binderOf(name string) *binder {
	r.mu.Lock()
	defer r.mu.Unlock()
	bn, ok := r.binders[name]
	if !ok {
		bn = &binder{}
		r.binders[name] = bn
	}
	return bn
}

// attach binds the HueBridge to its bridge's session, starting one when
// none runs, when the HueBridge alone uses it and its settings or identity
// changed, or when the HueBridge proves the bridge's identity more strongly
// than the session's client (identity.go); a HueBridge that proves less
// is refused and the session keeps its client.
func (r *Registry) attach(b *huev1alpha1.HueBridge, fp string, c wire.Client, cfg wire.BridgeConfig, address string, cred credentials) (*bridge.Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	settings := r.settingsOf(b)
	id := wire.IdentityOf(c, address)
	run, ok := r.sessions[cfg.BridgeID]
	if ok && r.onlyUserLocked(b.Name, run) {
		if _, held := r.holderLocked(run); held != id || !sameSettings(run.session.Settings(), settings) {
			r.unbindLocked(b.Name) // stops the session: it had no other HueBridge
			ok = false
		}
	}
	if ok {
		evict, err := r.admitLocked(b, run, id)
		if err != nil {
			if old, bound := r.bindings[b.Name]; bound && old.run == run {
				r.unbindLocked(b.Name) // its new spec no longer proves the bridge
			}
			return nil, err
		}
		if evict {
			r.evictLocked(run)
			ok = false
		}
	}
	if old, bound := r.bindings[b.Name]; bound && (!ok || old.run != run) {
		r.unbindLocked(b.Name)
	}
	if !ok {
		run = r.startLocked(cfg, c, settings)
	}
	// Its credentials were just checked: the newest are the likeliest to
	// be accepted (after a re-pairing), and they prove what the session's
	// did.
	r.useClientLocked(run, c)
	bd := &binding{fingerprint: fp, run: run, client: c, address: address, secret: b.Spec.CredentialsSecretRef, builtAt: time.Now()}
	if cred.mayRecord {
		bd.unrecorded = &cred
	}
	r.bindings[b.Name] = bd
	return run.session, nil
}

// proofToRecord is what the HueBridge's binding proves of its bridge and
// the credentials it was bound with, while their Secret records no proof
// and this binding may record it (the HueBridge adapter writes it:
// recordProof).
func (r *Registry) proofToRecord(name string) (wire.Identity, credentials, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	bd, ok := r.bindings[name]
	if !ok || bd.unrecorded == nil {
		return wire.Identity{}, credentials{}, false
	}
	return wire.IdentityOf(bd.client, bd.address), *bd.unrecorded, true
}

// recorded tells the registry the HueBridge's proof is in its Secret.
func (r *Registry) recorded(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if bd, ok := r.bindings[name]; ok {
		bd.unrecorded = nil
	}
}

// holderLocked is the HueBridge whose client the session speaks through,
// and what that client proves. Callers hold r.mu.
func (r *Registry) holderLocked(run *running) (string, wire.Identity) {
	for name, bd := range r.bindings {
		if bd.run == run && bd.client == run.client {
			return name, wire.IdentityOf(bd.client, bd.address)
		}
	}
	return "", wire.Identity{}
}

// admitLocked is admit for a session, against the HueBridge that holds it.
// Callers hold r.mu.
func (r *Registry) admitLocked(b *huev1alpha1.HueBridge, run *running, id wire.Identity) (evict bool, err error) {
	holder, held := r.holderLocked(run)
	return admit(b, run.id, id, holder, held)
}

// checkIdentity is admitLocked before any credentials go out: a newcomer
// that would be refused learns it before it sends a username.
func (r *Registry) checkIdentity(b *huev1alpha1.HueBridge, bridgeID string, id wire.Identity) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	run, ok := r.sessions[bridgeID]
	if !ok || r.onlyUserLocked(b.Name, run) {
		return nil
	}
	_, err := r.admitLocked(b, run, id)
	return err
}

// evictLocked unbinds every HueBridge of a session and stops it, for a
// newcomer that proves more; they are woken, and refused when they bind
// again. Callers hold r.mu.
func (r *Registry) evictLocked(run *running) {
	for name, bd := range r.bindings {
		if bd.run != run {
			continue
		}
		delete(r.bindings, name)
		r.log.Info("a HueBridge that proves the bridge's identity more strongly takes the session over", "hueBridge", name, "bridgeID", run.id)
		select {
		case r.bridges <- Wake{Object: types.NamespacedName{Name: name}}:
		default:
		}
	}
	r.stopLocked(run)
}

// useClientLocked switches a session to a HueBridge's client.
func (r *Registry) useClientLocked(run *running, c wire.Client) {
	run.client = c
	run.session.UseClient(c)
}

// onlyUserLocked reports whether the HueBridge is the only one bound to a
// session.
func (r *Registry) onlyUserLocked(name string, run *running) bool {
	for other, bd := range r.bindings {
		if other != name && bd.run == run {
			return false
		}
	}
	return true
}

// settingsOf is the session settings the HueBridge asks for: its poll
// interval and command rate (or the operator's), and temporary scenes
// (spec.temporaryScenes, default true).
func (r *Registry) settingsOf(b *huev1alpha1.HueBridge) bridge.Settings {
	s := bridge.Settings{Interval: r.settings.PollInterval, CommandsPerSecond: r.settings.CommandsPerSecond,
		TemporaryScenes: b.Spec.TemporaryScenes == nil || *b.Spec.TemporaryScenes, Stream: r.settings.Stream}
	if b.Spec.PollInterval != nil {
		s.Interval = b.Spec.PollInterval.Duration
	}
	if b.Spec.CommandsPerSecond != nil {
		s.CommandsPerSecond = float64(*b.Spec.CommandsPerSecond)
	}
	return s
}

// sameSettings reports whether a HueBridge asks for the settings a session
// has (the stream's are the operator's, the same for all).
func sameSettings(a, b bridge.Settings) bool {
	return a.Interval == b.Interval && a.CommandsPerSecond == b.CommandsPerSecond && a.TemporaryScenes == b.TemporaryScenes
}

// startLocked starts a session for a bridge. Two HueBridges naming one
// bridge share the settings of the one that started it.
func (r *Registry) startLocked(cfg wire.BridgeConfig, c wire.Client, settings bridge.Settings) *running {
	budget, ok := r.groupBudgets[cfg.BridgeID]
	if !ok {
		budget = bridge.NewGroupBudget()
		r.groupBudgets[cfg.BridgeID] = budget
	}
	s := bridge.New(bridge.Options{BridgeID: cfg.BridgeID, Client: c, Config: cfg, Settings: settings, Log: r.log,
		Wakes: bridge.Wakes{Lights: r.lights, Groups: r.groups, Scenes: r.scenes, Bridge: r.bridgeIDs}, GroupBudget: budget})
	run := &running{id: cfg.BridgeID, session: s, client: c}
	r.sessions[cfg.BridgeID] = run
	s.Start(r.base)
	go r.dropWhenUnnamed(run)
	return run
}

// Running returns the session the HueBridge is bound to, without binding.
func (r *Registry) Running(name string) (*bridge.Session, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	bd, ok := r.bindings[name]
	if !ok {
		return nil, false
	}
	return bd.run.session, true
}

// Drop unbinds a HueBridge (deleted); its session stops when no other
// HueBridge names the bridge.
func (r *Registry) Drop(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unbindLocked(name)
}

// unbindLocked removes a binding. A session left without HueBridges stops;
// one whose client came from this binding takes another's.
func (r *Registry) unbindLocked(name string) {
	bd, ok := r.bindings[name]
	if !ok {
		return
	}
	delete(r.bindings, name)
	run := bd.run
	for _, other := range r.bindings {
		if other.run == run {
			if run.client == bd.client {
				r.useClientLocked(run, other.client)
			}
			return
		}
	}
	r.stopLocked(run)
}

// stopLocked stops a session and forgets it.
func (r *Registry) stopLocked(run *running) {
	run.session.Stop()
	if r.sessions[run.id] == run {
		delete(r.sessions, run.id)
	}
}

// Which session an object may use: the HueBridge it names (or the only
// one), when its namespace is among the allowedNamespaces of that
// HueBridge and of every other HueBridge that shares the session.

// findBridge is the HueBridge ref names, or the only one when ref is nil.
func findBridge(ctx context.Context, reader client.Reader, ref *huev1alpha1.BridgeReference) (*huev1alpha1.HueBridge, error) {
	if ref != nil {
		var b huev1alpha1.HueBridge
		err := reader.Get(ctx, types.NamespacedName{Name: ref.Name}, &b)
		if apierrors.IsNotFound(err) {
			return nil, providers.RetryAfter(notFoundDelay, ReasonBridgeNotFound, fmt.Errorf("HueBridge %q does not exist", ref.Name))
		}
		return &b, err
	}
	var list huev1alpha1.HueBridgeList
	if err := reader.List(ctx, &list); err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, providers.RetryAfter(notFoundDelay, ReasonBridgeNotFound, fmt.Errorf("no HueBridge exists: create one"))
	case 1:
		return &list.Items[0], nil
	}
	names := make([]string, 0, len(list.Items))
	for _, b := range list.Items {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	// A retry, not terminal: deleting the extra bridge also fixes it.
	return nil, providers.RetryAfter(time.Minute, ReasonBridgeAmbiguous, fmt.Errorf(
		"%d HueBridges exist (%s): set spec.bridgeRef.name", len(names), strings.Join(names, ", ")))
}

// sessionFor is the connect stage's common part: the HueBridge ref names
// and its session, once the namespace ns may use them (the HueBridge's
// allowedNamespaces, and those of every HueBridge sharing its session).
// letGo drops what the object holds on a session (claims, watches, a
// queued command): on the bridge it was on (old) when ref names another,
// and on this one when its namespace may not use it, so that an object the
// bridge does accept can take its bulbs. A nil letGo holds nothing.
func sessionFor(ctx context.Context, reader client.Reader, reg *Registry, ref *huev1alpha1.BridgeReference, ns, old string,
	letGo func(*bridge.Session)) (*huev1alpha1.HueBridge, *bridge.Session, error) {
	if letGo == nil {
		letGo = func(*bridge.Session) {}
	}
	b, err := findBridge(ctx, reader, ref)
	if err != nil {
		return nil, nil, err
	}
	if s, ok := reg.Running(old); ok && old != b.Name {
		letGo(s)
	}
	if err := allowedNS(b, ns); err != nil {
		if s, ok := reg.Running(b.Name); ok {
			letGo(s)
		}
		return nil, nil, err
	}
	s, err := reg.For(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	if err := reg.AllowedBySharers(ctx, b, s, ns); err != nil {
		letGo(s)
		return nil, nil, err
	}
	return b, s, nil
}

// allowedNS refuses namespaces the bridge's allowedNamespaces leave out. It
// is a retry, not terminal: the bridge's owner may add the namespace.
func allowedNS(b *huev1alpha1.HueBridge, ns string) error {
	if len(b.Spec.AllowedNamespaces) == 0 || slices.Contains(b.Spec.AllowedNamespaces, ns) {
		return nil
	}
	return providers.RetryAfter(time.Minute, ReasonNamespaceNotAllowed, fmt.Errorf(
		"HueBridge %s only accepts HueLights from namespaces %s", b.Name, strings.Join(b.Spec.AllowedNamespaces, ", ")))
}

// AllowedBySharers refuses a namespace that another HueBridge sharing b's
// session leaves out of its allowedNamespaces: a second HueBridge for the
// same bridge must not widen who drives it. b's own list is the caller's
// check (allowedNS), made before the session is bound.
func (r *Registry) AllowedBySharers(ctx context.Context, b *huev1alpha1.HueBridge, s *bridge.Session, ns string) error {
	for _, name := range r.namesOf(s) {
		if name == b.Name {
			continue
		}
		var other huev1alpha1.HueBridge
		err := r.reader.Get(ctx, types.NamespacedName{Name: name}, &other)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := allowedNS(&other, ns); err != nil {
			return providers.RetryAfter(time.Minute, ReasonNamespaceNotAllowed, fmt.Errorf(
				"HueBridge %s names the same bridge as HueBridge %s, which accepts only namespaces %s", b.Name, name, strings.Join(other.Spec.AllowedNamespaces, ", ")))
		}
	}
	return nil
}

// namesOf lists the HueBridges bound to s.
func (r *Registry) namesOf(s *bridge.Session) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for name, bd := range r.bindings {
		if bd.run.session == s {
			names = append(names, name)
		}
	}
	return names
}

// dropWhenUnnamed looks once per poll interval, for as long as a session
// runs, whether the HueBridges bound to it still exist: deleting one
// unbinds it, but a paused one is released without that call.
func (r *Registry) dropWhenUnnamed(run *running) {
	t := time.NewTicker(run.session.Settings().Interval)
	defer t.Stop()
	for {
		select {
		case <-run.session.Done():
			return
		case <-t.C:
		}
		if r.dropIfUnnamed(r.base, run) {
			return
		}
	}
}

// dropIfUnnamed unbinds the HueBridges of a session that no longer exist
// and reports whether the session is left without any, and so stopped. A
// session none names stops before the registry lets go of it, so it reads
// the bridge no more once it is no longer Running.
func (r *Registry) dropIfUnnamed(ctx context.Context, run *running) bool {
	names := r.namesOf(run.session)
	var gone []string
	for _, name := range names {
		err := r.reader.Get(ctx, types.NamespacedName{Name: name}, &huev1alpha1.HueBridge{})
		if apierrors.IsNotFound(err) {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return false
	}
	if len(gone) == len(names) {
		r.log.Info("no HueBridge names this bridge any more; its session stops", "bridgeID", run.id)
		run.session.Stop()
		<-run.session.Done()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range gone {
		if bd, ok := r.bindings[name]; ok && bd.run == run {
			r.unbindLocked(name)
		}
	}
	return r.sessions[run.id] != run
}

// relayBridgeWakes turns the sessions' wake-ups, by bridge id, into
// wake-ups of the HueBridges bound to them, until the registry stops.
func (r *Registry) relayBridgeWakes() {
	for {
		select {
		case <-r.base.Done():
			return
		case id := <-r.bridgeIDs:
			r.wakeBridgesOf(id)
		}
	}
}

// wakeBridgesOf wakes every HueBridge bound to the session of bridge id.
func (r *Registry) wakeBridgesOf(id string) {
	r.mu.Lock()
	var names []string
	for name, bd := range r.bindings {
		if bd.run.id == id {
			names = append(names, name)
		}
	}
	r.mu.Unlock()
	for _, name := range names {
		select {
		case r.bridges <- Wake{Object: types.NamespacedName{Name: name}}:
		default:
		}
	}
}

// fingerprint changes when the binding must be rebuilt.
func fingerprint(b *huev1alpha1.HueBridge) string {
	return fmt.Sprintf("%s/%d", b.UID, b.Generation)
}

// Expect tells the session of the bridge a HueLight names (name "": it
// names none, so the only one) that the HueLight is about to send a
// command, so that HueLights changed together are sent together. The
// controller calls it when the informer sees the HueLight's spec change,
// before the reconcile.
func (r *Registry) Expect(name string, key types.NamespacedName, generation int64) {
	r.mu.Lock()
	var s *bridge.Session
	if bd, ok := r.bindings[name]; ok {
		s = bd.run.session
	} else if name == "" && len(r.sessions) == 1 {
		for _, only := range r.sessions {
			s = only.session
		}
	}
	r.mu.Unlock()
	if s != nil {
		s.Expect(key, generation)
	}
}
