package hue

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// SceneExternal is the HueScene adapter's connect stage: it finds the
// HueScene's HueGroup, that group's bridge session and room or zone.
//
// A HueScene is stored as a light scene of its lights (a v1 group scene
// would also store the group's other lights at their state of the moment,
// and recall them too), each light's state projected onto the bulb as a
// HueLight's is, and marked with appdata "tether-" and part of its UID so
// that a scene stored just before a crash is found again, not stored twice.
// Its writes go through the session, paced like light commands (the bridge
// writes a lightstate per light), and the stored scene is read at most once
// per poll interval; a HueGroup showing the scene recalls it with its own
// group command.
type SceneExternal struct {
	Reader   client.Reader // HueBridges, HueGroups (cached)
	Registry *Registry
}

var (
	_ providers.Connector[*huev1alpha1.HueScene] = (*SceneExternal)(nil)
	_ providers.External[*huev1alpha1.HueScene]  = (*sceneConn)(nil)
)

// sceneConn is a HueScene connected to its bridge for one pass.
type sceneConn struct {
	bridge  string
	session *bridge.Session
	rooms   bridge.Rooms // the session's rooms part
	group   *huev1alpha1.HueGroup
	members []string // the group's lights on the bridge
	lights  bridge.Lights
	stored  *wire.Scene // nil: not on the bridge
}

// Which scene is a HueScene's is decided on the bridge, never by its
// status: status.bridge and status.sceneID are written by anyone with patch
// on the status subresource, so they are only where to look. A scene is
// the HueScene's when it carries the HueScene's mark (sceneMark: appdata
// Tether stored with it, from the HueScene's UID, which a tenant cannot
// choose), read from the live bridge; only such a scene is updated or
// deleted. A scene at status.sceneID without the mark is someone else's:
// the HueScene looks for its own by the mark instead.

// Connect resolves the HueScene's group and bridge, and reads its scene.
func (e *SceneExternal) Connect(ctx context.Context, sc *huev1alpha1.HueScene) (providers.External[*huev1alpha1.HueScene], error) {
	c, err := e.connect(ctx, sc)
	if err != nil && !sc.DeletionTimestamp.IsZero() {
		// Deleting: the scene is deleted through the bridge it was stored
		// on, even if its HueGroup is gone, once that bridge shows it
		// carries this HueScene's mark.
		if s, ok := e.Registry.Running(sc.Status.Bridge); ok && sc.Status.SceneID != "" && s.Rooms().Has() {
			own := &sceneConn{bridge: sc.Status.Bridge, session: s, rooms: s.Rooms()}
			stored, ferr := own.find(ctx, sc)
			if ferr != nil {
				return nil, ClassifyRooms(own.bridge, ferr)
			}
			if stored == nil {
				// The bridge holds no scene with this HueScene's mark:
				// nothing of it is left to delete there.
				return providers.Released[*huev1alpha1.HueScene](), nil
			}
			own.stored = stored
			return own, nil
		}
		if isGone(err) || sc.Status.SceneID == "" {
			return providers.Released[*huev1alpha1.HueScene](), nil
		}
	}
	return c, err
}

func (e *SceneExternal) connect(ctx context.Context, sc *huev1alpha1.HueScene) (*sceneConn, error) {
	var g huev1alpha1.HueGroup
	err := e.Reader.Get(ctx, types.NamespacedName{Namespace: sc.Namespace, Name: sc.Spec.GroupRef.Name}, &g)
	if apierrors.IsNotFound(err) {
		return nil, providers.RetryAfter(notFoundDelay, ReasonGroupNotFound, fmt.Errorf("HueGroup %s/%s does not exist", sc.Namespace, sc.Spec.GroupRef.Name))
	}
	if err != nil {
		return nil, err
	}
	if g.Status.GroupID == "" || g.Status.Bridge == "" {
		return nil, providers.RetryAfter(notFoundDelay, ReasonGroupNotFound, fmt.Errorf("HueGroup %s has no room or zone on a bridge yet", g.Name))
	}
	// The namespace is checked here, as for HueLights and HueGroups: the
	// HueGroup's status says which bridge, not that this namespace may
	// use it (any more).
	b, s, err := sessionFor(ctx, e.Reader, e.Registry, &huev1alpha1.BridgeReference{Name: g.Status.Bridge}, sc.Namespace, "", nil)
	if err != nil {
		return nil, err
	}
	lights, groups, err := s.Rooms().Read(ctx)
	if err != nil {
		return nil, ClassifyRooms(b.Name, err)
	}
	c := &sceneConn{bridge: b.Name, session: s, rooms: s.Rooms(), group: &g, lights: lights}
	for _, gr := range groups {
		if gr.ID == g.Status.GroupID {
			c.members = gr.LightIDs
		}
	}
	c.stored, err = c.find(ctx, sc)
	return c, Classify(b.Name, err)
}

// find reads the HueScene's scene from the bridge: the one at the id its
// status names when it carries the HueScene's mark, else the one that
// carries the mark; nil when none does.
func (c *sceneConn) find(ctx context.Context, sc *huev1alpha1.HueScene) (*wire.Scene, error) {
	if id := sc.Status.SceneID; id != "" {
		stored, err := c.rooms.Scene(ctx, id)
		if err == nil && stored.AppData == sceneMark(sc) {
			return &stored, nil
		}
		if err != nil && wire.ErrorType(err) != wire.TypeNotAvailable {
			return nil, err
		}
	}
	scenes, err := c.rooms.Scenes(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range scenes {
		if s.AppData == sceneMark(sc) {
			stored, err := c.rooms.Scene(ctx, s.ID)
			return &stored, err
		}
	}
	return nil, nil
}

// sceneMark is the appdata that tells this HueScene's scene (16 characters
// at most).
func sceneMark(sc *huev1alpha1.HueScene) string {
	uid := strings.ReplaceAll(string(sc.UID), "-", "")
	return "tether-" + uid[:min(9, len(uid))]
}

// sceneName is the scene's name on the bridge.
func sceneName(sc *huev1alpha1.HueScene) string {
	if sc.Spec.Name != "" {
		return sc.Spec.Name
	}
	return sc.Name[:min(32, len(sc.Name))]
}

// wanted is the scene to store: each light's state projected onto its bulb.
func (c *sceneConn) wanted(sc *huev1alpha1.HueScene) (wire.SceneSpec, []string, *providers.Wait) {
	spec := wire.SceneSpec{Name: sceneName(sc), GroupID: c.group.Status.GroupID, AppData: sceneMark(sc), States: map[string]model.StateBody{}}
	var notes, missing, outside []string
	v2 := false
	for _, l := range sc.Spec.Lights {
		light, ok := c.lights.ByName(l.Name)
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%q", l.Name))
			continue
		case !containsID(c.members, light.ID):
			outside = append(outside, fmt.Sprintf("%q", l.Name))
			continue
		}
		v2 = light.Capabilities.V2
		p := model.Project(sceneLightDesired(l, sc.Spec.TransitionTime), light)
		spec.States[light.ID] = model.FullBody(p.Want)
		for _, n := range p.Notes {
			notes = append(notes, fmt.Sprintf("%s: %s", l.Name, n))
		}
	}
	if options := sceneOptions(sc.Spec); options.Set() && v2 {
		spec.Options = options
	} else if options.Set() {
		notes = append(notes, sceneOptionsOnV1(sc.Spec))
	}
	wait := func(reason, msg string) *providers.Wait {
		return &providers.Wait{Reason: reason, Message: msg, For: c.session.Settings().Interval}
	}
	switch {
	case len(missing) > 0:
		return spec, nil, wait(ReasonLightNotFound, fmt.Sprintf("bridge %s has no light named %s", c.bridge, strings.Join(missing, ", ")))
	case len(outside) > 0:
		return spec, nil, wait(ReasonLightNotInGroup, fmt.Sprintf("%s not in HueGroup %s (%q): a scene sets lights of its group",
			strings.Join(outside, ", "), c.group.Name, c.group.Spec.Name))
	}
	return spec, notes, nil
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// Observe compares the stored scene with the spec.
func (c *sceneConn) Observe(_ context.Context, sc *huev1alpha1.HueScene) (providers.Observation, error) {
	if c.group == nil { // deleting, through the bridge it was stored on
		return providers.Matches(), nil
	}
	sc.Status.Bridge, sc.Status.GroupID = c.bridge, c.group.Status.GroupID
	sc.Status.LightCount = int32(len(sc.Spec.Lights))
	spec, notes, wait := c.wanted(sc)
	if wait != nil {
		return providers.Waiting(*wait), nil
	}
	if c.stored == nil {
		sc.Status.SceneID = ""
		c.rooms.WatchScene(client.ObjectKeyFromObject(sc), "")
		return providers.Absent(), nil
	}
	sc.Status.SceneID = c.stored.ID
	// A change to the scene in the Hue app wakes this HueScene (on CLIP
	// v2, by push), to put its spec back.
	c.rooms.WatchScene(client.ObjectKeyFromObject(sc), c.stored.ID)
	if d := compareScene(spec, *c.stored, c.lights); d != nil {
		return providers.Differs(d), nil
	}
	obs := providers.Matches()
	if len(notes) > 0 {
		obs.Reason, obs.Message = ReasonLimited, strings.Join(notes, "; ")
	}
	return obs, nil
}

// compareScene lists what differs between the scene to store and the one
// stored.
func compareScene(want wire.SceneSpec, got wire.Scene, lights bridge.Lights) *SceneDiff {
	d := &SceneDiff{spec: want}
	if want.Name != got.Name {
		d.Changes = append(d.Changes, fmt.Sprintf("name: %q -> %q", got.Name, want.Name))
	}
	for id, st := range want.States {
		if stored, ok := got.States[id]; !ok || !model.SameSceneState(st, stored) {
			d.Changes = append(d.Changes, fmt.Sprintf("%s: %s -> %s", lights[id].Name, got.States[id].Key(), st.Key()))
		}
	}
	for id := range got.States {
		if _, ok := want.States[id]; !ok {
			d.Changes = append(d.Changes, fmt.Sprintf("%s: no longer in the scene", lights[id].Name))
		}
	}
	d.Changes = append(d.Changes, want.Options.Changes(got.Options)...)
	if len(d.Changes) == 0 {
		return nil
	}
	return d
}

// Create stores the scene.
func (c *sceneConn) Create(ctx context.Context, sc *huev1alpha1.HueScene) error {
	spec, _, wait := c.wanted(sc)
	if wait != nil {
		return &providers.PendingError{Reason: wait.Reason, Message: wait.Message, For: wait.For}
	}
	id, err := c.rooms.CreateScene(ctx, spec)
	if err != nil {
		return ClassifyRooms(c.bridge, err)
	}
	sc.Status.SceneID = id
	return nil
}

// Update stores the scene's new states.
func (c *sceneConn) Update(ctx context.Context, sc *huev1alpha1.HueScene, diff providers.Difference) error {
	d, ok := diff.(*SceneDiff)
	if !ok || d == nil {
		return nil
	}
	return ClassifyRooms(c.bridge, c.rooms.UpdateScene(ctx, c.stored.ID, d.spec))
}

// Delete deletes the HueScene's scene from the bridge: the one find read
// there with its mark, never an id taken from the status.
func (c *sceneConn) Delete(ctx context.Context, sc *huev1alpha1.HueScene) error {
	c.rooms.WatchScene(client.ObjectKeyFromObject(sc), "")
	if c.stored == nil {
		return nil
	}
	return ClassifyRooms(c.bridge, c.rooms.DeleteScene(ctx, c.stored.ID))
}

// SceneDiff is what differs between a HueScene's spec and its scene.
type SceneDiff struct {
	Changes []string
	spec    wire.SceneSpec
}

func (d *SceneDiff) String() string { return strings.Join(d.Changes, ", ") }

// sceneLightDesired is one scene light's state in the bridge's units.
func sceneLightDesired(l huev1alpha1.SceneLight, transition *metav1.Duration) model.Desired {
	return desiredFrom(huev1alpha1.HueLightSpec{On: l.On, Brightness: l.Brightness, Color: l.Color, TransitionTime: transition,
		Effect: l.Effect, Gradient: l.Gradient})
}
