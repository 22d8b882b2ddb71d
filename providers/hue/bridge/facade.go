package bridge

import (
	"context"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The facade: every way into a session, and so to its bridge. The
// adapters use it and nothing else of this package's parts; every write to
// the bridge below it goes through the sender's budgets. A HueLight's pass
// makes one call to look (LookAt: its claim, its bulb, its command in
// line) and one to end its look (Settle) or hand its command over (Send);
// HueGroups and HueScenes go through the session's Rooms (rooms_facade.go).

// The session's life, for the registry.

// Start runs the session's loops until ctx ends or Stop.
func (s *Session) Start(ctx context.Context) { s.start(ctx) }

// Stop ends the session's loops; Done is closed once its poll loop ended,
// after which the session starts no read of its own.
func (s *Session) Stop() { s.stop() }

// Done is closed when the poll loop of a started session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// UseClient switches the session to another HueBridge's client for the
// same bridge (the one it used was deleted or changed).
func (s *Session) UseClient(c wire.Client) { s.client.use(c) }

// Settings are the session's own; Settings().Interval is how often it
// reads the bridge.
func (s *Session) Settings() Settings { return s.settings }

// Status is what the session knows of its bridge without reading it.
type Status struct {
	// Answering: the bridge answered the last read or command.
	Answering bool
	// Unauthorized: the bridge refused the username at the last read.
	Unauthorized bool
	// Stream is the session's event stream, for the HueBridge's status.
	Stream StreamStatus
}

// Status is the bridge as the session's last read and command left it.
func (s *Session) Status() Status {
	answering, _ := s.cache.answering()
	return Status{
		Answering:    answering,
		Unauthorized: wire.ErrorType(s.cache.health().Err) == wire.TypeUnauthorized,
		Stream:       s.stream.status(),
	}
}

// The bridge itself, for the HueBridge adapter.

// Config is the bridge's identity, read again only when the bridge came
// back after failing reads.
func (s *Session) Config(ctx context.Context) (wire.BridgeConfig, error) { return s.readConfig(ctx) }

// Health is the last read's view of the bridge, reading first when there
// is no recent one.
func (s *Session) Health(ctx context.Context) Health {
	_, _ = s.lights(ctx)
	return s.cache.health()
}

// Poll reads all lights now and wakes the HueLights that need it.
func (s *Session) Poll(ctx context.Context) error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	return s.readLocked(ctx)
}

// HueLights. A pass looks (LookAt), then ends its look (Settle) or hands
// its command over (Send).

// Lights returns the last read's lights, reading first when there is no
// recent one (the first HueLight of a bridge, or a stuck loop).
func (s *Session) Lights(ctx context.Context) (Lights, error) { return s.lights(ctx) }

// LightLook is what a HueLight's pass sees of its bulb on the session.
type LightLook struct {
	// Holder is the HueLight that holds the bulb: the earliest claimant
	// (unset in what Send returns, which claims nothing).
	Holder types.NamespacedName
	// View is the bulb as the session knows it now: the last read with
	// what the bridge accepted since.
	View LightView
	// Queued is the HueLight's command in the sender's line, if any.
	Queued Queued
	// Answering: the bridge answered the last read or command.
	Answering bool
	// Interval is the session's poll interval.
	Interval time.Duration
}

// LookAt registers key as wanting the bulb light and returns what its pass
// needs: who holds the bulb, the bulb as the session knows it (light, as
// the HueLight found it, until a read shows it), and its command in line.
func (s *Session) LookAt(key types.NamespacedName, light model.Light, created metav1.Time) LightLook {
	look := s.look(key, light)
	look.Holder = s.claims.claim(key, light.ID, created)
	return look
}

// look is LookAt without the claim.
func (s *Session) look(key types.NamespacedName, light model.Light) LightLook {
	v, ok := s.cache.view(light.ID)
	if !ok {
		v = LightView{Known: model.Known{Light: light}}
	}
	answering, _ := s.cache.answering()
	return LightLook{View: v, Queued: s.sender.queued(key), Answering: answering, Interval: s.settings.Interval}
}

// Settling is how a HueLight's look ends on the session.
type Settling struct {
	// Want is what the HueLight wants of its bulb now, to wake it on
	// drift; Unwatch stops watching it (its claim stays). With neither,
	// what it watches stays as it was.
	Want    *Want
	Unwatch bool
	// Generation is the HueLight's, and End what its pass does next.
	Generation int64
	End        PassEnd
}

// PassEnd is what a HueLight's pass does after its look.
type PassEnd int

const (
	// PassSends: Update follows with a command; the line waits for it.
	PassSends PassEnd = iota
	// PassSendsNothing: the line no longer waits for the HueLight.
	PassSendsNothing
	// PassMatched: the bulb shows the spec (or the HueLight is paused): a
	// command still in line for it, or the error of one nobody waited
	// for, is moot.
	PassMatched
)

// Settle ends a HueLight's look: what it watches, and what the sender's
// line makes of it.
func (s *Session) Settle(key types.NamespacedName, st Settling) {
	switch {
	case st.Want != nil:
		s.cache.watch(key, *st.Want)
	case st.Unwatch:
		s.cache.unwatch(key)
	}
	switch st.End {
	case PassSendsNothing:
		s.sender.arrived(key, st.Generation)
	case PassMatched:
		s.sender.drop(key, st.Generation)
	}
}

// Send hands a HueLight's command to the sender and, when it is alone in
// line and the bridge's next slot comes within maxWait, waits for it. It
// reports whether the command went out (then err is the bridge's answer),
// and the bulb and the command's place in line after; one still in line
// is sent later, and its HueLight woken then.
func (s *Session) Send(ctx context.Context, c Change, maxWait time.Duration) (sent bool, after LightLook, err error) {
	sent, err = s.sender.send(ctx, c, maxWait)
	after = s.look(c.Key, model.Light{ID: c.LightID})
	if !after.Queued.For(c.Full) {
		after.Queued = Queued{}
	}
	return sent, after, err
}

// Release lets go of a HueLight: its watch, its queued command and its
// claim, and wakes the HueLights and HueGroups that waited for its bulb.
func (s *Session) Release(key types.NamespacedName) {
	s.sender.drop(key, math.MaxInt64)
	s.sender.forgetArrivals(key)
	s.cache.unwatch(key)
	held := s.claims.heldBy(key)
	s.wakes.lights(s.claims.release(key))
	s.wakes.groups(s.rooms.claimantsOf(held))
}

// Expect tells the session that a HueLight is about to send a command for
// generation gen (the informer saw its spec change), so that HueLights
// changed together are sent together.
func (s *Session) Expect(key types.NamespacedName, gen int64) { s.sender.expectGeneration(key, gen) }
