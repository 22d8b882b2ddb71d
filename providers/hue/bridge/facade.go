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
// the bridge below it goes through the sender's budgets.

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

// Settings are the session's own.
func (s *Session) Settings() Settings { return s.settings }

// Interval is the session's poll interval: how often it reads the bridge.
func (s *Session) Interval() time.Duration { return s.settings.Interval }

// Answering reports whether the bridge answers, as far as the session
// knows (the last read or command).
func (s *Session) Answering() bool {
	ok, _ := s.cache.answering()
	return ok
}

// Stream is the session's event stream, for the HueBridge's status.
func (s *Session) Stream() StreamStatus { return s.stream.status() }

// Unauthorized reports whether the bridge refused the username at the last
// read.
func (s *Session) Unauthorized() bool {
	return wire.ErrorType(s.cache.health().Err) == wire.TypeUnauthorized
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

// HueLights. A pass ends with one of Settled, Matched or Send.

// Lights returns the last read's lights, reading first when there is no
// recent one (the first HueLight of a bridge, or a stuck loop).
func (s *Session) Lights(ctx context.Context) (Lights, error) { return s.lights(ctx) }

// View is a light as the session knows it now: the last read with what
// the bridge accepted since.
func (s *Session) View(lightID string) (LightView, bool) { return s.cache.view(lightID) }

// Claim registers key as wanting the bulb and returns who holds it.
func (s *Session) Claim(key types.NamespacedName, lightID string, created metav1.Time) types.NamespacedName {
	return s.claims.claim(key, lightID, created)
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

// Watch records what a HueLight wants of its bulb, to wake it on drift.
func (s *Session) Watch(key types.NamespacedName, w Want) { s.cache.watch(key, w) }

// Unwatch stops waking a HueLight on drift; its claim stays.
func (s *Session) Unwatch(key types.NamespacedName) { s.cache.unwatch(key) }

// Pause stops acting for a HueLight (at generation gen) until it is
// observed again: no watch (so no drift wakes it and group 0 does not count
// it as wanting a state) and no queued command. Its claim on the bulb stays.
func (s *Session) Pause(key types.NamespacedName, gen int64) {
	s.sender.drop(key, gen)
	s.cache.unwatch(key)
}

// Expect tells the session that a HueLight is about to send a command for
// generation gen (the informer saw its spec change), so that HueLights
// changed together are sent together.
func (s *Session) Expect(key types.NamespacedName, gen int64) { s.sender.expectGeneration(key, gen) }

// Settled ends a pass of a HueLight at generation gen that sends nothing:
// the line no longer waits for it.
func (s *Session) Settled(key types.NamespacedName, gen int64) { s.sender.arrived(key, gen) }

// Matched ends a pass of a HueLight whose bulb shows generation gen's
// spec: a command still in line for it, or the error of one nobody waited
// for, is moot.
func (s *Session) Matched(key types.NamespacedName, gen int64) { s.sender.drop(key, gen) }

// Pending reports whether the HueLight has a command in line or being sent
// for the state full, when it should go out, and how long it has waited.
func (s *Session) Pending(key types.NamespacedName, full model.StateBody) (eta, waited time.Duration, ok bool) {
	return s.sender.pending(key, full.Key())
}

// Send hands a HueLight's command to the sender and, when it is alone in
// line and the bridge's next slot comes within maxWait, waits for it. It
// reports whether the command went out (then err is the bridge's answer);
// one still in line is sent later, and its HueLight woken then.
func (s *Session) Send(ctx context.Context, c Change, maxWait time.Duration) (sent bool, err error) {
	return s.sender.send(ctx, c, maxWait)
}

// HueGroups and HueScenes.

// Rooms are what a HueGroup or HueScene connects to: the bridge's lights
// and its groups (read at most once per poll interval); wire.ErrNoRooms
// when its API has no rooms.
func (s *Session) Rooms(ctx context.Context) (Lights, []wire.Group, error) {
	if !s.HasRooms() {
		return nil, nil, wire.ErrNoRooms
	}
	lights, err := s.lights(ctx)
	if err != nil {
		return nil, nil, err
	}
	groups, err := s.rooms.read(ctx, s.client.get(), s.settings.Interval)
	if err != nil {
		return nil, nil, err
	}
	return lights, groups, nil
}

// HasRooms reports whether the bridge's API has rooms, zones and scenes.
func (s *Session) HasRooms() bool {
	_, ok := wire.RoomsOf(s.client.get())
	return ok
}

// WatchGroup records what a HueGroup wants of its members.
func (s *Session) WatchGroup(key types.NamespacedName, w GroupWant) { s.rooms.watch(key, w) }

// ForgetGroup stops watching a HueGroup, drops its command and its claims,
// and wakes the HueGroups that wanted the same bulbs.
func (s *Session) ForgetGroup(key types.NamespacedName) {
	s.sender.dropGroup(key)
	s.wakes.groups(s.rooms.forget(key))
}

// PauseGroup stops acting for a HueGroup until it is observed again.
func (s *Session) PauseGroup(key types.NamespacedName) {
	s.sender.dropGroup(key)
	s.rooms.unwatch(key)
}

// ClaimGroup records that a HueGroup wants the bulbs lightIDs (and no
// others) and returns, for each bulb an earlier HueGroup holds, that
// HueGroup.
func (s *Session) ClaimGroup(key types.NamespacedName, lightIDs []string, created metav1.Time) map[string]types.NamespacedName {
	return s.rooms.claim(key, lightIDs, created)
}

// LightHolders returns the HueLight holding each of the bulbs that one
// holds: a bulb held by a HueLight is that HueLight's, never a group's.
func (s *Session) LightHolders(lightIDs []string) map[string]types.NamespacedName {
	return s.claims.holders(lightIDs)
}

// SendGroup hands a HueGroup's command to the sender's group loop and
// waits up to maxWait for it when the group slot comes that soon.
func (s *Session) SendGroup(ctx context.Context, c GroupChange, maxWait time.Duration) (sent bool, err error) {
	return s.sender.sendGroup(ctx, c, maxWait)
}

// GroupPending reports whether the HueGroup has the command fullKey in
// line or being sent, and when it should go out.
func (s *Session) GroupPending(key types.NamespacedName, fullKey string) (time.Duration, bool) {
	return s.sender.groupPending(key, fullKey)
}

// GroupMatched: the HueGroup's members show its spec; a command in line
// for it, or the error of one nobody waited for, is moot.
func (s *Session) GroupMatched(key types.NamespacedName) { s.sender.dropGroup(key) }

// CreateRoom creates a room or zone, on the group budget, and reads the
// groups again.
func (s *Session) CreateRoom(ctx context.Context, spec wire.GroupSpec) (string, error) {
	rc, err := s.roomsWrite(ctx, s.sender.groups)
	if err != nil {
		return "", err
	}
	id, err := rc.CreateRoom(ctx, spec)
	if err == nil {
		_, _ = s.rooms.read(ctx, s.client.get(), 0)
	}
	return id, err
}

// SetGroupLights makes lightIDs a group's lights, on the group budget, and
// reads the groups again.
func (s *Session) SetGroupLights(ctx context.Context, id string, lightIDs []string) error {
	rc, err := s.roomsWrite(ctx, s.sender.groups)
	if err != nil {
		return err
	}
	err = rc.SetGroupLights(ctx, id, lightIDs)
	_, _ = s.rooms.read(ctx, s.client.get(), 0)
	return err
}

// DeleteGroup deletes a room or zone, on the group budget, and reads the
// groups again.
func (s *Session) DeleteGroup(ctx context.Context, id string) error {
	if err := s.sender.groups.Wait(ctx); err != nil {
		return err
	}
	if err := s.client.get().DeleteGroup(ctx, id); err != nil {
		return err
	}
	_, _ = s.rooms.read(ctx, s.client.get(), 0)
	return nil
}

// Scene reads one scene with its states, at most once per poll interval
// (and again after the session wrote a scene).
func (s *Session) Scene(ctx context.Context, id string) (wire.Scene, error) {
	rc, ok := wire.RoomsOf(s.client.get())
	if !ok {
		return wire.Scene{}, wire.ErrNoRooms
	}
	return s.rooms.scene(ctx, rc, id, s.settings.Interval)
}

// Scenes lists the bridge's scenes, without their states, as Scene does.
func (s *Session) Scenes(ctx context.Context) ([]wire.Scene, error) {
	rc, ok := wire.RoomsOf(s.client.get())
	if !ok {
		return nil, wire.ErrNoRooms
	}
	return s.rooms.sceneList(ctx, rc, s.settings.Interval)
}

// CreateScene stores a scene, paced like a light command (the bridge
// writes a lightstate per light).
func (s *Session) CreateScene(ctx context.Context, spec wire.SceneSpec) (string, error) {
	rc, err := s.roomsWrite(ctx, s.sender.lights)
	if err != nil {
		return "", err
	}
	defer s.rooms.forgetScenes()
	return rc.CreateScene(ctx, spec)
}

// UpdateScene makes a scene's lights and states spec's, paced as
// CreateScene.
func (s *Session) UpdateScene(ctx context.Context, id string, spec wire.SceneSpec) error {
	rc, err := s.roomsWrite(ctx, s.sender.lights)
	if err != nil {
		return err
	}
	defer s.rooms.forgetScenes()
	return rc.UpdateScene(ctx, id, spec)
}

// DeleteScene deletes a scene, paced as CreateScene; one already gone is
// success.
func (s *Session) DeleteScene(ctx context.Context, id string) error {
	rc, err := s.roomsWrite(ctx, s.sender.lights)
	if err != nil {
		return err
	}
	defer s.rooms.forgetScenes()
	return rc.DeleteScene(ctx, id)
}

// roomsWrite is the bridge's rooms client once budget grants a slot.
func (s *Session) roomsWrite(ctx context.Context, budget interface{ Wait(context.Context) error }) (wire.RoomsClient, error) {
	rc, ok := wire.RoomsOf(s.client.get())
	if !ok {
		return nil, wire.ErrNoRooms
	}
	if err := budget.Wait(ctx); err != nil {
		return nil, err
	}
	return rc, nil
}
