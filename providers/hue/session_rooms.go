package hue

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// roomsState is a session's part for HueGroups: the last read of the
// bridge's groups, what each HueGroup wants of its members (to tell drift
// from the lights the session reads anyway), and which HueGroup holds which
// bulb. GET /groups is read only while HueGroups watch the bridge, once per
// poll interval, to see membership changed in the Hue app.
type roomsState struct {
	wake func([]types.NamespacedName)

	mu       sync.Mutex
	groups   []wire.Group
	groupErr error
	readAt   time.Time
	watchers map[types.NamespacedName]groupWatch
	// claims are the HueGroups that want each bulb, by light id.
	claims map[string]map[types.NamespacedName]metav1.Time
}

// groupWatch is what a HueGroup wants of its members: the projected state of
// each member it sets (all of them, or a scene's), and which were
// reachable, and the members its group had.
type groupWatch struct {
	groupID   string
	lightIDs  []string
	want      map[string]wire.Desired
	reachable map[string]bool
}

func newRoomsState(wake func([]types.NamespacedName)) *roomsState {
	if wake == nil {
		wake = func([]types.NamespacedName) {}
	}
	return &roomsState{wake: func(keys []types.NamespacedName) {
		if len(keys) > 0 {
			wake(keys)
		}
	}, watchers: map[types.NamespacedName]groupWatch{},
		claims: map[string]map[types.NamespacedName]metav1.Time{}}
}

// Groups returns the bridge's groups as last read, reading first when that
// read is older than the poll interval (or maxAge 0: always).
func (s *Session) Groups(ctx context.Context, maxAge time.Duration) ([]wire.Group, error) {
	r := s.rooms
	r.mu.Lock()
	fresh := !r.readAt.IsZero() && time.Since(r.readAt) < maxAge
	groups, err := r.groups, r.groupErr
	r.mu.Unlock()
	if fresh {
		return groups, err
	}
	rc, ok := wire.RoomsOf(s.currentClient())
	if !ok {
		return nil, wire.ErrNoRooms
	}
	groups, err = rc.ListGroups(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups, r.groupErr, r.readAt = groups, err, time.Now()
	return groups, err
}

// refreshGroups reads the groups when HueGroups watch the bridge and wakes
// those whose group changed (lights added or removed in the Hue app, the
// group deleted).
func (s *Session) refreshGroups(ctx context.Context) {
	r := s.rooms
	r.mu.Lock()
	watched := len(r.watchers) > 0
	r.mu.Unlock()
	if !watched {
		return
	}
	groups, err := s.Groups(ctx, s.interval/2)
	if err != nil {
		return
	}
	byID := map[string]wire.Group{}
	for _, g := range groups {
		byID[g.ID] = g
	}
	var wake []types.NamespacedName
	r.mu.Lock()
	for k, w := range r.watchers {
		g, ok := byID[w.groupID]
		if !ok || !sameIDs(g.LightIDs, w.lightIDs) {
			wake = append(wake, k)
		}
	}
	r.mu.Unlock()
	r.wake(wake)
}

// WatchGroup records what a HueGroup wants of its members.
func (s *Session) WatchGroup(key types.NamespacedName, w groupWatch) {
	s.rooms.mu.Lock()
	defer s.rooms.mu.Unlock()
	s.rooms.watchers[key] = w
}

// ForgetGroup stops watching a HueGroup, drops its command and its claims,
// and wakes the HueGroups that wanted the same bulbs.
func (s *Session) ForgetGroup(key types.NamespacedName) {
	s.sender.dropGroup(key)
	r := s.rooms
	r.mu.Lock()
	delete(r.watchers, key)
	var others []types.NamespacedName
	for id, holders := range r.claims {
		if _, held := holders[key]; !held {
			continue
		}
		delete(holders, key)
		for k := range holders {
			others = append(others, k)
		}
		if len(holders) == 0 {
			delete(r.claims, id)
		}
	}
	r.mu.Unlock()
	r.wake(others)
}

// PauseGroup stops acting for a HueGroup until it is observed again.
func (s *Session) PauseGroup(key types.NamespacedName) {
	s.sender.dropGroup(key)
	s.rooms.mu.Lock()
	defer s.rooms.mu.Unlock()
	delete(s.rooms.watchers, key)
}

// ClaimGroup records that a HueGroup wants the bulbs lightIDs (and no
// others) and returns, for each bulb an earlier HueGroup holds, that
// HueGroup (earlier by creationTimestamp, then namespace/name).
func (s *Session) ClaimGroup(key types.NamespacedName, lightIDs []string, created metav1.Time) map[string]types.NamespacedName {
	r := s.rooms
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, holders := range r.claims {
		if !slices.Contains(lightIDs, id) {
			delete(holders, key)
			if len(holders) == 0 {
				delete(r.claims, id)
			}
		}
	}
	held := map[string]types.NamespacedName{}
	for _, id := range lightIDs {
		if r.claims[id] == nil {
			r.claims[id] = map[types.NamespacedName]metav1.Time{}
		}
		r.claims[id][key] = created
		if h := earliest(r.claims[id]); h != key {
			held[id] = h
		}
	}
	return held
}

// LightHolders returns the HueLight holding each of the bulbs that one
// holds: a bulb held by a HueLight is that HueLight's, never a group's.
func (s *Session) LightHolders(lightIDs []string) map[string]types.NamespacedName {
	c := s.claims
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]types.NamespacedName{}
	for _, id := range lightIDs {
		if len(c.m[id]) > 0 {
			out[id] = c.holderLocked(id)
		}
	}
	return out
}

// earliest is the earliest claimant (creationTimestamp, then name).
func earliest(claimants map[types.NamespacedName]metav1.Time) types.NamespacedName {
	var best types.NamespacedName
	var bestTime metav1.Time
	first := true
	for k, t := range claimants {
		if first || t.Before(&bestTime) || (t.Equal(&bestTime) && k.String() < best.String()) {
			best, bestTime, first = k, t, false
		}
	}
	return best
}

// driftedGroups lists the HueGroups one of whose members differs from what
// the group wants of it, or became reachable or unreachable, as the lights
// read last show them.
func (s *Session) driftedGroups() []types.NamespacedName {
	r := s.rooms
	r.mu.Lock()
	watchers := maps.Clone(r.watchers)
	r.mu.Unlock()
	var out []types.NamespacedName
	for k, w := range watchers {
		for _, id := range w.lightIDs {
			v, ok := s.cache.view(id)
			if !ok || v.State.Reachable != w.reachable[id] {
				out = append(out, k)
				break
			}
			if want, set := w.want[id]; set && v.State.Reachable && wire.Compare(want, v.State) != nil {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// sameIDs reports whether two id lists hold the same ids.
func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// heldBy lists the bulbs key claims.
func (c *claims) heldBy(key types.NamespacedName) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for id, holders := range c.m {
		if _, ok := holders[key]; ok {
			out = append(out, id)
		}
	}
	return out
}

// wakeGroupsOf wakes the HueGroups that want one of the bulbs.
func (s *Session) wakeGroupsOf(lightIDs []string) {
	r := s.rooms
	r.mu.Lock()
	var wake []types.NamespacedName
	for _, id := range lightIDs {
		for k := range r.claims[id] {
			wake = append(wake, k)
		}
	}
	r.mu.Unlock()
	r.wake(wake)
}

// roomsView is what a HueGroup or HueScene connects to: the bridge's rooms
// client, its lights and its groups, errors classified for bridge.
func (s *Session) roomsView(ctx context.Context, bridge string) (wire.RoomsClient, lightsByID, []wire.Group, error) {
	rc, ok := wire.RoomsOf(s.currentClient())
	if !ok {
		return nil, nil, nil, wire.ClassifyRooms(bridge, wire.ErrNoRooms)
	}
	lights, err := s.Lights(ctx)
	if err != nil {
		return nil, nil, nil, wire.Classify(bridge, err)
	}
	groups, err := s.Groups(ctx, s.interval)
	if err != nil {
		return nil, nil, nil, wire.Classify(bridge, err)
	}
	return rc, lights, groups, nil
}
