package bridge

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// rooms is a session's part for HueGroups and HueScenes: the last read of
// the bridge's groups and scenes, what each HueGroup wants of its members
// (to tell drift from the lights the session reads anyway), and which
// HueGroup holds which bulb. GET /groups is read only while HueGroups watch
// the bridge, once per poll interval, to see membership changed in the Hue
// app; on CLIP v2 the event stream brings them as soon as they change
// (Session.applyStreamRead); a scene is read at most once per poll
// interval, and again after the session wrote one.
type rooms struct {
	mu       sync.Mutex
	groups   []wire.Group
	groupErr error
	readAt   time.Time
	watchers map[types.NamespacedName]GroupWant
	// claims are the HueGroups that want each bulb.
	claims *claims
	scenes sceneReads
	// sceneWatchers are the HueScenes' scenes, by HueScene: an event that
	// changes one wakes its HueScene.
	sceneWatchers map[types.NamespacedName]string
}

// GroupWant is what a HueGroup wants of its members: the group's lights as
// it saw them, the projected state of each member it sets (all of them, or
// a scene's), and which of them were reachable.
type GroupWant struct {
	GroupID string
	// Name and LightIDs are the group's as the HueGroup last saw them: a
	// read that shows others wakes it (changed).
	Name      string
	LightIDs  []string
	Desired   map[string]model.Desired
	Reachable map[string]bool
}

// sceneReads are the scenes as last read: the list, and each scene read by
// id, with when.
type sceneReads struct {
	list   []wire.Scene
	listAt time.Time
	byID   map[string]sceneRead
}

type sceneRead struct {
	scene wire.Scene
	err   error
	at    time.Time
}

func newRooms() *rooms {
	return &rooms{watchers: map[types.NamespacedName]GroupWant{}, claims: newClaims(), sceneWatchers: map[types.NamespacedName]string{}}
}

// read returns the bridge's groups as last read, reading them through c
// first when that read is older than maxAge (0: always).
func (r *rooms) read(ctx context.Context, c wire.Client, maxAge time.Duration) ([]wire.Group, error) {
	r.mu.Lock()
	fresh := !r.readAt.IsZero() && time.Since(r.readAt) < maxAge
	groups, err := r.groups, r.groupErr
	r.mu.Unlock()
	if fresh {
		return groups, err
	}
	rc, ok := wire.RoomsOf(c)
	if !ok {
		return nil, wire.ErrNoRooms
	}
	groups, err = rc.ListGroups(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups, r.groupErr, r.readAt = groups, err, time.Now()
	return groups, err
}

// took records the rooms and zones a read brought (a CLIP v2 full read, or
// an event that changed one) as the groups' last read: the event stream
// keeps them current as it keeps the lights.
func (r *rooms) took(groups []wire.Group) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups, r.groupErr, r.readAt = groups, nil, time.Now()
}

// watched reports whether HueGroups watch the bridge.
func (r *rooms) watched() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.watchers) > 0
}

// changed lists the HueGroups whose group groups shows changed (lights
// added or removed in the Hue app, the group deleted).
func (r *rooms) changed(groups []wire.Group) []types.NamespacedName {
	byID := map[string]wire.Group{}
	for _, g := range groups {
		byID[g.ID] = g
	}
	var out []types.NamespacedName
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, w := range r.watchers {
		g, ok := byID[w.GroupID]
		if !ok || g.Name != w.Name || !g.HasLights(w.LightIDs) {
			out = append(out, k)
		}
	}
	return out
}

func (r *rooms) watch(key types.NamespacedName, w GroupWant) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watchers[key] = w
}

func (r *rooms) unwatch(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.watchers, key)
}

// forget stops watching a HueGroup, drops its claims and returns the
// HueGroups that wanted the same bulbs.
func (r *rooms) forget(key types.NamespacedName) []types.NamespacedName {
	r.unwatch(key)
	return r.claims.release(key)
}

// claim records that a HueGroup wants the bulbs lightIDs (and no others)
// and returns, for each bulb an earlier HueGroup holds, that HueGroup.
func (r *rooms) claim(key types.NamespacedName, lightIDs []string, created metav1.Time) map[string]types.NamespacedName {
	held := r.claims.claimAll(key, lightIDs, created)
	maps.DeleteFunc(held, func(_ string, h types.NamespacedName) bool { return h == key })
	return held
}

// claimantsOf lists the HueGroups that want one of the bulbs.
func (r *rooms) claimantsOf(lightIDs []string) []types.NamespacedName {
	return r.claims.claimants(lightIDs)
}

// drifted lists the HueGroups one of whose members differs from what the
// group wants of it, or became reachable or unreachable, as the lights the
// cache read last show them, and those with a member that read is the
// first to show since a write (readBack): their write is confirmed.
func (r *rooms) drifted(c *cache, readBack map[string]bool) []types.NamespacedName {
	r.mu.Lock()
	watchers := maps.Clone(r.watchers)
	r.mu.Unlock()
	var out []types.NamespacedName
	for k, w := range watchers {
		for _, id := range w.LightIDs {
			if readBack[id] {
				out = append(out, k)
				break
			}
			v, ok := c.view(id)
			if !ok || v.State.Reachable != w.Reachable[id] {
				out = append(out, k)
				break
			}
			if want, set := w.Desired[id]; set && v.State.Reachable && model.Compare(want, v.State) != nil {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// scene returns a scene as last read, reading it through rc when that read
// is older than maxAge; sceneList returns the list likewise.
func (r *rooms) scene(ctx context.Context, rc wire.RoomsClient, id string, maxAge time.Duration) (wire.Scene, error) {
	r.mu.Lock()
	last, ok := r.scenes.byID[id]
	r.mu.Unlock()
	if ok && time.Since(last.at) < maxAge {
		return last.scene, last.err
	}
	sc, err := rc.Scene(ctx, id)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scenes.byID == nil {
		r.scenes.byID = map[string]sceneRead{}
	}
	r.scenes.byID[id] = sceneRead{scene: sc, err: err, at: time.Now()}
	return sc, err
}

func (r *rooms) sceneList(ctx context.Context, rc wire.RoomsClient, maxAge time.Duration) ([]wire.Scene, error) {
	r.mu.Lock()
	list, at := r.scenes.list, r.scenes.listAt
	r.mu.Unlock()
	if !at.IsZero() && time.Since(at) < maxAge {
		return list, nil
	}
	list, err := rc.Scenes(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scenes.list, r.scenes.listAt = list, time.Now()
	return list, nil
}

// watchScene records the scene a HueScene stored ("" stops watching).
func (r *rooms) watchScene(key types.NamespacedName, sceneID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sceneID == "" {
		delete(r.sceneWatchers, key)
		return
	}
	r.sceneWatchers[key] = sceneID
}

// scenesChanged drops the scenes read and returns the HueScenes whose
// scene is one of ids.
func (r *rooms) scenesChanged(ids []string) []types.NamespacedName {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scenes = sceneReads{}
	var out []types.NamespacedName
	for k, id := range r.sceneWatchers {
		if slices.Contains(ids, id) {
			out = append(out, k)
		}
	}
	return out
}

// forgetScenes drops the scenes read: the session wrote one.
func (r *rooms) forgetScenes() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scenes = sceneReads{}
}
