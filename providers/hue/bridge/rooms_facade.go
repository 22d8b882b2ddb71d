package bridge

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// Rooms is the session's part for HueGroups and HueScenes: the bridge's
// rooms, zones and scenes, the HueGroups' claims on bulbs and their group
// commands. It is the same session (one set of claims, one sender, one
// cache), seen from the adapters of the rooms; writes to the bridge take
// the session's budgets as the sender does.
type Rooms struct{ s *Session }

// Rooms is the session's part for HueGroups and HueScenes.
func (s *Session) Rooms() Rooms { return Rooms{s: s} }

// Has reports whether the bridge's API has rooms, zones and scenes.
func (r Rooms) Has() bool {
	_, ok := wire.RoomsOf(r.s.client.get())
	return ok
}

// Read is what a HueGroup or HueScene connects to: the bridge's lights and
// its groups (read at most once per poll interval); wire.ErrNoRooms when
// its API has no rooms.
func (r Rooms) Read(ctx context.Context) (Lights, []wire.Group, error) {
	s := r.s
	if !r.Has() {
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

// View is a member light as the session knows it now: the last read with
// what the bridge accepted since.
func (r Rooms) View(lightID string) (LightView, bool) { return r.s.cache.view(lightID) }

// Claim records that a HueGroup wants the bulbs lightIDs (and no others)
// and returns who holds any of them first: the HueLight holding each bulb
// one holds (a bulb held by a HueLight is that HueLight's, never a
// group's), and for each bulb an earlier HueGroup holds, that HueGroup.
func (r Rooms) Claim(key types.NamespacedName, lightIDs []string, created metav1.Time) (byLight, byGroup map[string]types.NamespacedName) {
	return r.s.claims.holders(lightIDs), r.s.rooms.claim(key, lightIDs, created)
}

// Settle ends a HueGroup's look: want is what it wants of its members now
// (nil stops watching it), and moot says a command in line for it, or the
// error of one nobody waited for, is moot (its members show its spec, or
// it waits or is paused).
func (r Rooms) Settle(key types.NamespacedName, want *GroupWant, moot bool) {
	if want != nil {
		r.s.rooms.watch(key, *want)
	} else {
		r.s.rooms.unwatch(key)
	}
	if moot {
		r.s.sender.dropGroup(key)
	}
}

// Forget stops watching a HueGroup, drops its command and its claims, and
// wakes the HueGroups that wanted the same bulbs.
func (r Rooms) Forget(key types.NamespacedName) {
	r.s.sender.dropGroup(key)
	r.s.wakes.groups(r.s.rooms.forget(key))
}

// Send hands a HueGroup's command to the sender's group loop and waits up
// to maxWait for it when the group slot comes that soon.
func (r Rooms) Send(ctx context.Context, c GroupChange, maxWait time.Duration) (sent bool, err error) {
	return r.s.sender.sendGroup(ctx, c, maxWait)
}

// Pending reports whether the HueGroup has the command fullKey in line or
// being sent, and when it should go out.
func (r Rooms) Pending(key types.NamespacedName, fullKey string) (time.Duration, bool) {
	return r.s.sender.groupPending(key, fullKey)
}

// CreateRoom creates a room or zone, on the group budget, and reads the
// groups again.
func (r Rooms) CreateRoom(ctx context.Context, spec wire.GroupSpec) (string, error) {
	s := r.s
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
func (r Rooms) SetGroupLights(ctx context.Context, id string, lightIDs []string) error {
	return r.changeGroup(ctx, func(rc wire.RoomsClient) error { return rc.SetGroupLights(ctx, id, lightIDs) })
}

// RenameGroup gives a group the name name, on the group budget, and reads
// the groups again.
func (r Rooms) RenameGroup(ctx context.Context, id, name string) error {
	return r.changeGroup(ctx, func(rc wire.RoomsClient) error { return rc.RenameGroup(ctx, id, name) })
}

// changeGroup makes one change to a group on the group budget and reads
// the groups again, whatever the bridge answered.
func (r Rooms) changeGroup(ctx context.Context, change func(wire.RoomsClient) error) error {
	s := r.s
	rc, err := s.roomsWrite(ctx, s.sender.groups)
	if err != nil {
		return err
	}
	err = change(rc)
	_, _ = s.rooms.read(ctx, s.client.get(), 0)
	return err
}

// DeleteGroup deletes a room or zone, on the group budget, and reads the
// groups again.
func (r Rooms) DeleteGroup(ctx context.Context, id string) error {
	s := r.s
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
func (r Rooms) Scene(ctx context.Context, id string) (wire.Scene, error) {
	rc, ok := wire.RoomsOf(r.s.client.get())
	if !ok {
		return wire.Scene{}, wire.ErrNoRooms
	}
	return r.s.rooms.scene(ctx, rc, id, r.s.settings.Interval)
}

// Scenes lists the bridge's scenes, without their states, as Scene does.
func (r Rooms) Scenes(ctx context.Context) ([]wire.Scene, error) {
	rc, ok := wire.RoomsOf(r.s.client.get())
	if !ok {
		return nil, wire.ErrNoRooms
	}
	return r.s.rooms.sceneList(ctx, rc, r.s.settings.Interval)
}

// WatchScene records the scene a HueScene stored, so that an event
// changing it (in the Hue app) wakes the HueScene; "" stops watching.
func (r Rooms) WatchScene(key types.NamespacedName, sceneID string) {
	r.s.rooms.watchScene(key, sceneID)
}

// CreateScene stores a scene, paced like a light command (the bridge
// writes a lightstate per light).
func (r Rooms) CreateScene(ctx context.Context, spec wire.SceneSpec) (string, error) {
	s := r.s
	rc, err := s.roomsWrite(ctx, s.sender.lights)
	if err != nil {
		return "", err
	}
	defer s.rooms.forgetScenes()
	return rc.CreateScene(ctx, spec)
}

// UpdateScene makes a scene's lights and states spec's, paced as
// CreateScene.
func (r Rooms) UpdateScene(ctx context.Context, id string, spec wire.SceneSpec) error {
	s := r.s
	rc, err := s.roomsWrite(ctx, s.sender.lights)
	if err != nil {
		return err
	}
	defer s.rooms.forgetScenes()
	return rc.UpdateScene(ctx, id, spec)
}

// DeleteScene deletes a scene, paced as CreateScene; one already gone is
// success.
func (r Rooms) DeleteScene(ctx context.Context, id string) error {
	s := r.s
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
