package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Session is Tether's connection to one physical bridge, shared by every
// HueBridge object that names it (the registry keys sessions by bridge
// id), so all HueLights on a bridge share one command budget and one set
// of claims. Its parts depend one way, and none knows the session:
//
//	sender   -> cache, client
//	rooms    -> cache
//	streamer -> client
//	claims
//
// The session owns them and the loops that feed the cache (run, and a
// streamer for a bridge that pushes its changes). Nothing in it calls the
// objects above: wake-ups leave as keys on the channels of Wakes.
type Session struct {
	bridgeID string
	settings Settings
	log      logr.Logger
	wakes    *wakes

	client *clientRef
	cache  *cache
	claims *claims
	rooms  *rooms
	sender *sender
	stream *streamHealth

	readMu sync.Mutex // one read of the lights at a time

	configMu sync.Mutex
	config   wire.BridgeConfig

	cancel context.CancelFunc
	done   chan struct{} // closed when the poll loop ends
}

// Options are what a new session is made of.
type Options struct {
	BridgeID string
	Client   wire.Client
	// Config is the bridge's /config, as read to learn its id.
	Config   wire.BridgeConfig
	Settings Settings
	Wakes    Wakes
	Log      logr.Logger
	// GroupBudget is the bridge's group budget (NewGroupBudget), shared by
	// its sessions one after the other; nil gives the session one of its
	// own.
	GroupBudget *rate.Limiter
}

// Settings are a session's own: its HueBridge's poll interval and light
// command rate, whether lights that want states of their own go as a
// temporary scene, and how its event stream behaves.
type Settings struct {
	Interval          time.Duration
	CommandsPerSecond float64
	TemporaryScenes   bool
	Stream            StreamSettings
}

// New makes a session; Start runs it.
func New(o Options) *Session {
	o.Settings.Stream = o.Settings.Stream.withDefaults()
	s := &Session{
		bridgeID: o.BridgeID,
		settings: o.Settings,
		log:      o.Log.WithValues("bridgeID", o.BridgeID),
		client:   &clientRef{client: o.Client},
		cache:    newCache(),
		claims:   newClaims(),
		rooms:    newRooms(),
		config:   o.Config,
		stream:   &streamHealth{settings: o.Settings.Stream},
		done:     make(chan struct{}),
	}
	s.wakes = &wakes{Wakes: o.Wakes, log: s.log}
	s.cache.markConfigRead() // the registry read it to learn the bridge id
	s.sender = newSender(s.client, s.cache, s.wakes, s.log, o.Settings.CommandsPerSecond, o.Settings.TemporaryScenes, o.GroupBudget)
	return s
}

// start runs the session's loops until ctx ends or Stop.
func (s *Session) start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	go s.sender.run(ctx)
	st := &streamer{bridgeID: s.bridgeID, client: s.client, health: s.stream, settings: s.settings.Stream,
		interval: s.settings.Interval, wakes: s.wakes, log: s.log, deliver: s.applyStreamRead}
	go st.run(ctx)
	go s.readBacks(ctx)
	go s.run(ctx)
}

// stop ends the session's loops.
func (s *Session) stop() {
	if s.cancel != nil {
		s.cancel()
	}
}

// run reads the bridge every interval until ctx ends. While an event
// stream is live (v2) changes arrive by events, and run reads only once
// per StreamSettings.SafetyRead.
func (s *Session) run(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.settings.Interval)
	defer t.Stop()
	for ctx.Err() == nil {
		now := time.Now()
		if s.stream.settle(now) {
			s.log.Info("the event stream stayed up; polling stops")
			s.wakes.bridge(s.bridgeID)
		}
		answering, _ := s.cache.answering()
		read := !answering || !s.stream.live() || s.stream.safetyDue(now)
		if read {
			// A HueLight's first Observe may just have read: skip, not
			// repeat. While the bridge does not answer, this read is what
			// finds it back, for the sender's held commands too, even
			// with a stream that still looks up.
			_ = s.refresh(ctx, s.settings.Interval/2)
			// The groups likewise: a live stream pushes a room or zone
			// that changed (applyStreamRead), so they are read with the
			// safety read only.
			s.refreshGroups(ctx)
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
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
// hold readMu. A read asked for with a context that ended is not made.
func (s *Session) readLocked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// A read taken as of its start: a command the bridge accepts while it
	// is on the way is not taken for read back.
	started := time.Now()
	lights, err := s.client.get().Lights(ctx)
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
// gather) but for those whose command is in line, every HueLight when the
// bridge's health changed, the HueGroups one of whose members drifted, and
// the HueBridges when the bridge's health or number of lights changed.
// Poll and stream share it so that an event wakes a HueGroup as a poll
// does.
func (s *Session) afterRead(out readOutcome) {
	wake := s.sender.drifted(out.wake)
	if out.everyone {
		wake = out.wake // each status says how the bridge is, in line or not
	}
	s.wakes.lights(wake)
	s.wakes.lights(out.readBack)
	s.wakes.groups(s.rooms.drifted(s.cache, out.readBackLights))
	if !out.first && (out.health || out.count) {
		s.wakes.bridge(s.bridgeID)
	}
}

// lights returns the last read's lights, reading first when there is no
// recent one (the first HueLight of a bridge, or a stuck loop).
func (s *Session) lights(ctx context.Context) (Lights, error) {
	maxAge := 3 * s.settings.Interval
	lights, err, fresh := s.cache.current(maxAge)
	if fresh || s.stream.live() {
		return lights, err
	}
	if err := s.refresh(ctx, maxAge); err != nil {
		return nil, err
	}
	lights, _, _ = s.cache.current(maxAge)
	return lights, nil
}

// readConfig reads /config again when the bridge came back after failing
// reads (it may have been updated meanwhile).
func (s *Session) readConfig(ctx context.Context) (wire.BridgeConfig, error) {
	if !s.cache.needsConfig() {
		s.configMu.Lock()
		defer s.configMu.Unlock()
		return s.config, nil
	}
	cfg, err := s.client.get().Config(ctx)
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

// refreshGroups reads the groups when HueGroups watch the bridge and wakes
// those whose group changed.
func (s *Session) refreshGroups(ctx context.Context) {
	if !s.rooms.watched() {
		return
	}
	groups, err := s.rooms.read(ctx, s.client.get(), s.settings.Interval/2)
	if err != nil {
		return
	}
	s.wakes.groups(s.rooms.changed(groups))
}

// applyStreamRead hands a read from the stream to the cache, one read at a
// time with the poll loop's.
func (s *Session) applyStreamRead(r wire.Read) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if r.Full {
		s.stream.fullRead(r.At)
	} else {
		s.stream.event(r.At)
	}
	s.afterRead(s.cache.apply(r, nil))
	if r.Groups != nil {
		// A room or zone changed in the Hue app wakes its HueGroup now,
		// as a drifted light wakes its HueLight.
		s.rooms.took(r.Groups)
		s.wakes.groups(s.rooms.changed(r.Groups))
	}
	if len(r.Scenes) > 0 {
		// So does a scene changed there, its HueScene.
		s.wakes.scenes(s.rooms.scenesChanged(r.Scenes))
	}
}
