package hue

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Session is Tether's connection to one physical bridge, shared by every
// HueBridge object that names it (sessions are keyed by bridge id), so all
// HueLights on a bridge share one command budget and one set of claims.
// It is built from parts that depend one way:
//
//	client (port) <- cache (reads, drift, health) <- claims <- sender
//
// The session owns them and the loop that feeds the cache; the sender sees
// the rest only through narrow callbacks (senderDeps). Wake-ups leave as
// object keys through the registry's channels.
type Session struct {
	bridgeID  string
	interval  time.Duration
	perSecond float64
	log       logr.Logger

	clientMu  sync.Mutex
	client    wire.Client
	endStream context.CancelFunc // ends the event stream of client

	cache  *cache
	claims *claims
	sender *sender
	rooms  *roomsState // HueGroups (session_rooms.go)

	wakeLights  func([]types.NamespacedName)
	wakeBridges func()
	// orphaned reports (and deregisters) a session no HueBridge names any
	// more without Delete having dropped it: deleted while paused.
	orphaned func(context.Context) bool

	readMu sync.Mutex // one read of the lights at a time
	stop   context.CancelFunc

	configMu sync.Mutex
	config   wire.BridgeConfig

	// The event stream (eventstream.go), for clients that have one.
	stream         *streamHealth
	streamSettings StreamSettings
}

// sessionOptions are what the registry gives a new session.
type sessionOptions struct {
	bridgeID    string
	client      wire.Client
	interval    time.Duration
	perSecond   float64
	config      wire.BridgeConfig
	wakeLights  func([]types.NamespacedName)
	wakeBridges func()
	wakeGroups  func([]types.NamespacedName) // nil: none
	log         logr.Logger
	stream      StreamSettings
}

func newSession(o sessionOptions) *Session {
	s := &Session{
		bridgeID:       o.bridgeID,
		interval:       o.interval,
		perSecond:      o.perSecond,
		log:            o.log.WithValues("bridgeID", o.bridgeID),
		client:         o.client,
		cache:          newCache(),
		claims:         newClaims(),
		wakeLights:     o.wakeLights,
		wakeBridges:    o.wakeBridges,
		config:         o.config,
		stream:         &streamHealth{settings: o.stream.withDefaults()},
		streamSettings: o.stream.withDefaults(),
	}
	s.cache.markConfigRead() // the registry read it to learn the bridge id
	s.rooms = newRoomsState(o.wakeGroups)
	s.sender = newSender(senderDeps{
		client:     s.currentClient,
		answered:   s.cache.answered,
		wake:       s.wake,
		wanted:     s.cache.wantedBodies,
		lightIDs:   s.cache.lightIDs,
		log:        s.log,
		wakeGroups: func(keys []types.NamespacedName) { s.rooms.wake(keys) },
		answering:  s.cache.answering,
		unanswered: s.cache.unanswered,
	}, o.perSecond)
	return s
}

// currentClient is the bridge client the session uses now.
func (s *Session) currentClient() wire.Client {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	return s.client
}

// useClient switches the session to another HueBridge's client for the same
// bridge (the one it used was deleted or changed).
func (s *Session) useClient(c wire.Client) {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	if s.client != c && s.endStream != nil {
		s.endStream() // the stream of the old client: runStream reconnects with the new one
	}
	s.client = c
}

// run reads the bridge every interval, and sends through its sender, until
// ctx ends. While an event stream is live (v2) changes arrive by events,
// and run reads only once per StreamSettings.SafetyRead.
func (s *Session) run(ctx context.Context) {
	go s.sender.run(ctx)
	go s.runStream(ctx)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		if s.orphaned != nil && s.orphaned(ctx) {
			s.log.Info("no HueBridge names this bridge any more; its session stops")
			s.stop()
			return
		}
		now := time.Now()
		if s.stream.settle(now) {
			s.log.Info("the event stream stayed up; polling stops")
			s.wakeBridges()
		}
		if answering, _ := s.cache.answering(); !answering || !s.stream.live() || s.stream.safetyDue(now) {
			// A HueLight's first Observe may just have read: skip, not
			// repeat. While the bridge does not answer, this read is what
			// finds it back, for the sender's held commands too, even
			// with a stream that still looks up.
			_ = s.refresh(ctx, s.interval/2)
		}
		s.refreshGroups(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll reads all lights now and wakes the HueLights that need it.
func (s *Session) Poll(ctx context.Context) error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	return s.readLocked(ctx)
}

// refresh reads unless the last read is younger than maxAge.
func (s *Session) refresh(ctx context.Context, maxAge time.Duration) error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if _, err, fresh := s.cache.current(maxAge); fresh {
		return err
	}
	return s.readLocked(ctx)
}

// readLocked reads the lights and hands the read to the cache; callers
// hold readMu.
func (s *Session) readLocked(ctx context.Context) error {
	// A read taken as of its start: a command the bridge accepts while it
	// is on the way is not taken for read back.
	started := time.Now()
	lights, err := s.currentClient().Lights(ctx)
	if err == nil {
		s.stream.fullRead(started)
	}
	out := s.cache.apply(wire.Read{Lights: lights, At: started}, err)
	if err != nil {
		s.log.V(1).Info("reading the lights failed", "error", err.Error())
	}
	s.afterRead(out)
	return err
}

// afterRead wakes what a read (a poll, or an event stream's message)
// changed: the HueLights whose bulbs drifted (each likely to send: let them
// gather), the HueGroups one of whose members did, and the HueBridges when
// the bridge's health or number of lights changed. Poll and stream share
// it so that an event wakes a HueGroup as a poll does.
func (s *Session) afterRead(out readOutcome) {
	s.sender.expect(out.wake)
	s.wake(out.wake)
	s.rooms.wake(s.driftedGroups())
	if !out.first && (out.health || out.count) {
		s.wakeBridges()
	}
}

// Lights returns the last read's lights, reading first when there is no
// recent one (the first HueLight of a bridge, or a stuck loop).
func (s *Session) Lights(ctx context.Context) (lightsByID, error) {
	lights, err, fresh := s.cache.current(3 * s.interval)
	if fresh || s.stream.live() {
		return lights, err
	}
	if err := s.refresh(ctx, 3*s.interval); err != nil {
		return nil, err
	}
	lights, _, _ = s.cache.current(3 * s.interval)
	return lights, nil
}

// light is one bulb as the cache has it now.
func (s *Session) light(id string) (wire.Light, bool) {
	lights, _, _ := s.cache.current(0)
	l, ok := lights[id]
	return l, ok
}

// health returns the last read's view of the bridge, reading first when
// there is no recent one.
func (s *Session) health(ctx context.Context) bridgeHealth {
	_, _ = s.Lights(ctx)
	return s.cache.health()
}

// Config is the bridge's identity as last read.
func (s *Session) Config() wire.BridgeConfig {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	return s.config
}

// readConfig reads /config again when the bridge came back after failing
// reads (it may have been updated meanwhile).
func (s *Session) readConfig(ctx context.Context) (wire.BridgeConfig, error) {
	if !s.cache.needsConfig() {
		return s.Config(), nil
	}
	cfg, err := s.currentClient().Config(ctx)
	if err != nil {
		return wire.BridgeConfig{}, err
	}
	s.configMu.Lock()
	s.config = cfg
	s.configMu.Unlock()
	if cfg.Authorized {
		s.cache.markConfigRead()
	}
	return cfg, nil
}

// Claim registers key as wanting the bulb and returns who holds it.
func (s *Session) Claim(key types.NamespacedName, lightID string, created metav1.Time) types.NamespacedName {
	return s.claims.claim(key, lightID, created)
}

// Watch records what a HueLight wants of its bulb, for drift detection.
func (s *Session) Watch(key types.NamespacedName, w watch) { s.cache.watch(key, w) }

// Unwatch stops waking a HueLight on drift; its claim stays.
func (s *Session) Unwatch(key types.NamespacedName) { s.cache.unwatch(key) }

// Pause stops acting for a HueLight (at generation gen) until it is
// observed again: no watch (so no drift wakes it and group 0 does not count
// it as wanting a state) and no queued command. Its claim on the bulb stays.
func (s *Session) Pause(key types.NamespacedName, gen int64) {
	s.sender.drop(key, gen)
	s.cache.unwatch(key)
}

// Forget stops watching a HueLight, drops its queued command and its claim,
// and wakes the HueLights that were waiting for that bulb.
func (s *Session) Forget(key types.NamespacedName) {
	s.sender.drop(key, math.MaxInt64)
	s.sender.forgetArrivals(key)
	s.cache.unwatch(key)
	held := s.claims.heldBy(key)
	s.wake(s.claims.release(key))
	s.wakeGroupsOf(held) // a HueGroup may have waited for them
}

// wake enqueues HueLights without blocking the session.
func (s *Session) wake(keys []types.NamespacedName) {
	if len(keys) > 0 {
		s.wakeLights(keys)
	}
}
