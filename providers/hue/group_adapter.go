package hue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// GroupExternal is the HueGroup adapter's connect stage: it finds the
// HueGroup's bridge session and its room or zone, once per pass.
//
// Rules: a HueGroup's lights are projected onto their capabilities as a
// HueLight's bulb is; one group command sets them (a state for all, or a
// HueScene recalled on the group), on the bridge's group budget. A bulb
// held by a HueLight is that HueLight's: the HueGroup then sends nothing
// and reports Conflict naming the HueLights (a v1 group command cannot
// leave a member out); a bulb two HueGroups want belongs to the earlier.
type GroupExternal struct {
	Reader   client.Reader // HueBridges, HueGroups, HueScenes (cached)
	Registry *Registry
}

var (
	_ providers.Connector[*huev1alpha1.HueGroup] = (*GroupExternal)(nil)
	_ providers.Pauser[*huev1alpha1.HueGroup]    = (*GroupExternal)(nil)
	_ providers.External[*huev1alpha1.HueGroup]  = (*groupConn)(nil)
)

// groupConn is a HueGroup connected to its bridge session for one pass.
type groupConn struct {
	reader  client.Reader
	bridge  *huev1alpha1.HueBridge
	session *bridge.Session
	rooms   bridge.Rooms // the session's rooms part
	lights  bridge.Lights
	groups  []wire.Group
	group   *wire.Group // nil: the bridge has no such group
	key     types.NamespacedName
}

// Connect resolves the HueGroup's bridge and its group by name. A HueGroup
// being deleted with no bridge or group left lets go.
func (e *GroupExternal) Connect(ctx context.Context, g *huev1alpha1.HueGroup) (providers.External[*huev1alpha1.HueGroup], error) {
	key := client.ObjectKeyFromObject(g)
	c, err := e.connect(ctx, g, key)
	if err != nil {
		if !g.DeletionTimestamp.IsZero() && isGone(err) {
			e.forget(ctx, g, key)
			return providers.Released[*huev1alpha1.HueGroup](), nil
		}
		return nil, err
	}
	return c, nil
}

func (e *GroupExternal) connect(ctx context.Context, g *huev1alpha1.HueGroup, key types.NamespacedName) (*groupConn, error) {
	b, s, err := sessionFor(ctx, e.Reader, e.Registry, g.Spec.BridgeRef, g.Namespace, g.Status.Bridge,
		func(s *bridge.Session) { s.Rooms().Forget(key) })
	if err != nil {
		return nil, err
	}
	lights, groups, err := s.Rooms().Read(ctx)
	if err != nil {
		return nil, ClassifyRooms(b.Name, err)
	}
	c := &groupConn{reader: e.Reader, bridge: b, session: s, rooms: s.Rooms(), lights: lights, groups: groups, key: key}
	c.group, err = findGroup(groups, g)
	return c, err
}

// findGroup is the room or zone the HueGroup names: the one it had, if it
// still bears the name, else the only one of that name (and type), else
// the room or zone Tether created for it, renamed since (in the Hue app):
// its name is drift like any other, put back by Update (renamedGroup).
func findGroup(groups []wire.Group, g *huev1alpha1.HueGroup) (*wire.Group, error) {
	var named []wire.Group
	for _, gr := range groups {
		if gr.ID == g.Status.GroupID && gr.Name == g.Spec.Name {
			return &gr, nil
		}
		if gr.Name == g.Spec.Name && (g.Spec.Type == "" || gr.Type == string(g.Spec.Type) || !isRoomOrZone(gr.Type)) {
			named = append(named, gr)
		}
	}
	switch len(named) {
	case 0:
		return renamedGroup(groups, g), nil
	case 1:
		return &named[0], nil
	}
	ids := make([]string, len(named))
	for i, gr := range named {
		ids[i] = gr.ID
	}
	return nil, providers.RetryAfter(time.Minute, ReasonGroupTypeMismatch, fmt.Errorf(
		"the bridge has %d groups named %q (ids %s): rename all but one in the Hue app, or set spec.type", len(named), g.Spec.Name, strings.Join(ids, ", ")))
}

// renamedGroup is the room or zone Tether created for g (status.groupID,
// as for Delete, which removes only what Tether created), under another
// name now; nil when there is none. A group Tether found by its name and
// did not create is the user's: once renamed it is no longer the one the
// HueGroup names.
func renamedGroup(groups []wire.Group, g *huev1alpha1.HueGroup) *wire.Group {
	if !g.Status.Created || g.Status.GroupID == "" {
		return nil
	}
	for _, gr := range groups {
		if gr.ID == g.Status.GroupID && isRoomOrZone(gr.Type) && (g.Spec.Type == "" || gr.Type == string(g.Spec.Type)) {
			return &gr
		}
	}
	return nil
}

func isRoomOrZone(t string) bool { return t == wire.GroupRoom || t == wire.GroupZone }

// Paused stops the session from acting for the HueGroup.
func (e *GroupExternal) Paused(ctx context.Context, g *huev1alpha1.HueGroup) {
	if b, err := findBridge(ctx, e.Reader, g.Spec.BridgeRef); err == nil {
		if s, ok := e.Registry.Running(b.Name); ok {
			s.Rooms().Settle(client.ObjectKeyFromObject(g), nil, true)
		}
	}
}

func (e *GroupExternal) forget(ctx context.Context, g *huev1alpha1.HueGroup, key types.NamespacedName) {
	if b, err := findBridge(ctx, e.Reader, g.Spec.BridgeRef); err == nil {
		if s, ok := e.Registry.Running(b.Name); ok {
			s.Rooms().Forget(key)
		}
	}
}

// groupPlan is what the HueGroup wants of its group this pass.
type groupPlan struct {
	memberIDs []string                   // the lights the group should have
	want      map[string]model.Desired   // projected state of each light it sets
	states    map[string]model.StateBody // what each of those shows once sent
	body      model.StateBody            // the group command (a state)
	sceneID   string                     // or the scene to recall
	notes     []string
}

// Observe compares the group's lights and their states with the spec.
func (c *groupConn) Observe(ctx context.Context, g *huev1alpha1.HueGroup) (providers.Observation, error) {
	if c.group == nil {
		c.rooms.Forget(c.key)
		if len(g.Spec.Lights) > 0 {
			return providers.Absent(), nil
		}
		return c.wait(ReasonGroupNotFound, fmt.Sprintf(
			"bridge %s has no room or zone named %q (it has: %s): set spec.lights and spec.type to create one",
			c.bridge.Name, g.Spec.Name, groupNames(c.groups))), nil
	}
	c.recordStatus(g)
	if !isRoomOrZone(c.group.Type) {
		return c.wait(ReasonGroupTypeMismatch, fmt.Sprintf("group %q on bridge %s is a %s, not a room or zone", c.group.Name, c.bridge.Name, c.group.Type)), nil
	}
	if t := g.Spec.Type; t != "" && string(t) != c.group.Type {
		return c.wait(ReasonGroupTypeMismatch, fmt.Sprintf("%q on bridge %s is a %s, and spec.type says %s", c.group.Name, c.bridge.Name, c.group.Type, t)), nil
	}
	memberIDs := c.group.LightIDs
	if len(g.Spec.Lights) > 0 {
		ids, err := c.lightIDsOf(g.Spec.Lights)
		if err != nil {
			return providers.Observation{}, err
		}
		if c.group.Type == wire.GroupRoom {
			if msg := inOtherRooms(c.groups, c.group.ID, ids, c.lights); msg != "" {
				return c.wait(ReasonLightInAnotherRoom, msg), nil
			}
		}
		memberIDs = ids
	}
	if msg := c.conflicts(g, memberIDs); msg != "" {
		return providers.Waiting(providers.Conflict(c.session.Settings().Interval, "%s", msg)), nil
	}
	plan, wait, err := c.plan(ctx, g, memberIDs)
	if err != nil || wait != nil {
		c.rooms.Settle(c.key, nil, true)
		if wait != nil {
			return *wait, nil
		}
		return providers.Observation{}, err
	}
	return c.compare(g, plan), nil
}

// compare tells what differs: the group's lights, then their states.
func (c *groupConn) compare(g *huev1alpha1.HueGroup, p groupPlan) providers.Observation {
	w := bridge.GroupWant{GroupID: c.group.ID, Name: c.group.Name, LightIDs: c.group.LightIDs, Desired: p.want, Reachable: map[string]bool{}}
	d := &GroupDiff{}
	if c.group.Name != g.Spec.Name {
		d.name = g.Spec.Name
		d.Changes = append(d.Changes, fmt.Sprintf("name: %q -> %q", c.group.Name, g.Spec.Name))
	}
	if !c.group.HasLights(p.memberIDs) {
		d.lightIDs = p.memberIDs
		d.Changes = append(d.Changes, fmt.Sprintf("lights: %s -> %s", c.names(c.group.LightIDs), c.names(p.memberIDs)))
	}
	var unreachable []string
	reachableAny, unconfirmed := false, false
	var acceptedAt time.Time
	for _, id := range c.group.LightIDs {
		v, _ := c.rooms.View(id)
		w.Reachable[id] = v.State.Reachable
		if v.Unconfirmed {
			unconfirmed = true
			acceptedAt = later(acceptedAt, v.AcceptedAt)
		}
		if !v.State.Reachable {
			unreachable = append(unreachable, strconv.Quote(c.lights[id].Name))
			continue
		}
		reachableAny = true
		want, set := p.want[id]
		if !set {
			continue
		}
		if ld := model.Compare(want, v.State); ld != nil {
			d.members = append(d.members, fmt.Sprintf("%s (%s)", c.lights[id].Name, ld))
			d.confirmed += v.Confirmed
		}
	}
	if len(d.members) > 0 {
		d.Changes = append(d.Changes, strings.Join(d.members, "; "))
		d.plan = p
	}
	// Matched: a command in line for the group, or the error of one
	// nobody waited for, is moot.
	c.rooms.Settle(c.key, &w, len(d.Changes) == 0)
	fullKey := p.fullKey()
	if len(d.Changes) == 0 {
		if len(c.group.LightIDs) > 0 && !reachableAny {
			return c.wait(ReasonLightUnreachable, fmt.Sprintf("bridge %s cannot reach any light of %q; retried on the next poll", c.bridge.Name, c.group.Name))
		}
		if unconfirmed {
			if wait, ok := awaitReadBack(c.session.Settings().Interval, acceptedAt); ok {
				return providers.Waiting(wait)
			}
		}
		g.Status.ActiveScene = g.Spec.Scene
		obs := providers.Matches()
		obs.Unconfirmed = unconfirmed
		if unconfirmed {
			// status.members shows the last read, from before the command:
			// the look after the next read records what it showed.
			obs.NextLook = c.session.Settings().Interval
		}
		notes := p.notes
		if len(unreachable) > 0 {
			obs.Reason = ReasonSomeUnreachable
			notes = append([]string{fmt.Sprintf("bridge %s cannot reach %s: nothing is sent to them until it can", c.bridge.Name, strings.Join(unreachable, ", "))}, notes...)
		} else if len(notes) > 0 {
			obs.Reason = ReasonLimited
		}
		obs.Message = strings.Join(notes, "; ")
		return obs
	}
	g.Status.ActiveScene = ""
	if eta, queued := c.rooms.Pending(c.key, fullKey); queued && d.lightIDs == nil && d.name == "" {
		if quietInLine(c.session.Status().Answering, eta) {
			return providers.Waiting(providers.Wait{Quiet: true, For: eta + lookAgain})
		}
		return c.wait(providers.ReasonThrottled, fmt.Sprintf("queued for bridge %s (one group command a second): about %s", c.bridge.Name, eta.Round(100*time.Millisecond)))
	}
	return providers.Differs(d)
}

// plan is the group's wanted state: one state for all its lights, or the
// scene's state for each of its lights, projected onto each bulb.
func (c *groupConn) plan(ctx context.Context, g *huev1alpha1.HueGroup, memberIDs []string) (groupPlan, *providers.Observation, error) {
	p := groupPlan{memberIDs: memberIDs, want: map[string]model.Desired{}, states: map[string]model.StateBody{}}
	transition := transitionOf(g.Spec.TransitionTime)
	if g.Spec.Scene == "" {
		want := desiredFrom(huev1alpha1.HueLightSpec{On: g.Spec.On, Brightness: g.Spec.Brightness, Color: g.Spec.Color,
			TransitionTime: g.Spec.TransitionTime})
		p.body = model.FullBody(want)
		for _, id := range memberIDs {
			p.project(id, c.lights[id], want)
		}
		return p, nil, nil
	}
	var sc huev1alpha1.HueScene
	err := c.reader.Get(ctx, types.NamespacedName{Namespace: g.Namespace, Name: g.Spec.Scene}, &sc)
	switch {
	case apierrors.IsNotFound(err):
		w := c.wait(ReasonSceneNotFound, fmt.Sprintf("HueScene %s/%s does not exist", g.Namespace, g.Spec.Scene))
		return p, &w, nil
	case err != nil:
		return p, nil, err
	case sc.Spec.GroupRef.Name != g.Name:
		w := c.wait(ReasonSceneNotFound, fmt.Sprintf("HueScene %s is for HueGroup %s, not this one", sc.Name, sc.Spec.GroupRef.Name))
		return p, &w, nil
	case !sceneReady(&sc):
		w := c.wait(ReasonSceneNotReady, fmt.Sprintf("HueScene %s is not stored on the bridge for its current spec yet", sc.Name))
		return p, &w, nil
	}
	p.sceneID = sc.Status.SceneID
	p.body = model.StateBody{TransitionTime: transition}
	for _, l := range sc.Spec.Lights {
		light, ok := c.lights.ByName(l.Name)
		if !ok || !slices.Contains(memberIDs, light.ID) {
			w := c.wait(ReasonLightNotInGroup, fmt.Sprintf("HueScene %s sets %q, which is not a light of this group", sc.Name, l.Name))
			return p, &w, nil
		}
		want := sceneLightDesired(l, sc.Spec.TransitionTime)
		if transition != nil {
			want.Transition = transition
		}
		p.project(light.ID, light, want)
	}
	return p, nil, nil
}

// project records what a light wants, fitted to it, and the note.
func (p *groupPlan) project(id string, l model.Light, want model.Desired) {
	pr := model.Project(want, l)
	p.want[id] = pr.Want
	p.states[id] = model.FullBody(pr.Want)
	for _, n := range pr.Notes {
		p.notes = append(p.notes, fmt.Sprintf("%s: %s", l.Name, n))
	}
}

// fullKey tells one group command from another.
func (p groupPlan) fullKey() string { return p.sceneID + p.body.Key() }

// sceneReady reports whether the HueScene is stored for its current spec.
func sceneReady(sc *huev1alpha1.HueScene) bool {
	if sc.Status.SceneID == "" {
		return false
	}
	for _, cond := range sc.Status.Conditions {
		if cond.Type == commonv1alpha1.Ready {
			return cond.Status == "True" && cond.ObservedGeneration == sc.Generation
		}
	}
	return false
}

// conflicts names the holders of members that are not this HueGroup's: a
// HueLight's bulb, or one an earlier HueGroup wants.
func (c *groupConn) conflicts(g *huev1alpha1.HueGroup, memberIDs []string) string {
	byLight, byGroup := c.rooms.Claim(c.key, memberIDs, g.CreationTimestamp)
	var held []string
	for _, id := range memberIDs {
		switch {
		case byLight[id] != types.NamespacedName{}:
			held = append(held, fmt.Sprintf("%q by HueLight %s", c.lights[id].Name, byLight[id]))
		case byGroup[id] != types.NamespacedName{}:
			held = append(held, fmt.Sprintf("%q by HueGroup %s", c.lights[id].Name, byGroup[id]))
		}
	}
	if len(held) == 0 {
		return ""
	}
	return fmt.Sprintf("lights of %q are managed elsewhere: %s; a group command would set them too, so this HueGroup sends nothing "+
		"until they are let go (or taken out of the group)", g.Spec.Name, strings.Join(held, ", "))
}

// Create creates the room or zone with spec.lights.
func (c *groupConn) Create(ctx context.Context, g *huev1alpha1.HueGroup) error {
	ids, err := c.lightIDsOf(g.Spec.Lights)
	if err != nil {
		return err
	}
	if g.Spec.Type == huev1alpha1.GroupRoom {
		if msg := inOtherRooms(c.groups, "", ids, c.lights); msg != "" {
			return providers.RetryAfter(time.Minute, ReasonLightInAnotherRoom, errors.New(msg))
		}
	}
	id, err := c.rooms.CreateRoom(ctx, wire.GroupSpec{Name: g.Spec.Name, Type: string(g.Spec.Type), LightIDs: ids})
	if err != nil {
		return ClassifyRooms(c.bridge.Name, err)
	}
	g.Status.GroupID, g.Status.Created, g.Status.Bridge = id, true, c.bridge.Name
	return nil
}

// Update sets the group's lights, or sends the group command.
func (c *groupConn) Update(ctx context.Context, g *huev1alpha1.HueGroup, diff providers.Difference) error {
	d, ok := diff.(*GroupDiff)
	if !ok || d == nil {
		return nil
	}
	if d.name != "" {
		return ClassifyRooms(c.bridge.Name, c.rooms.RenameGroup(ctx, c.group.ID, d.name))
	}
	if d.lightIDs != nil {
		return ClassifyRooms(c.bridge.Name, c.rooms.SetGroupLights(ctx, c.group.ID, d.lightIDs))
	}
	if err := c.send(ctx, d.plan); err != nil {
		return err
	}
	return c.sent(d.plan)
}

// send hands the group command to the sender and waits for it when the
// group slot comes soon.
func (c *groupConn) send(ctx context.Context, p groupPlan) error {
	fullKey := p.fullKey()
	sent, err := c.rooms.Send(ctx, bridge.GroupChange{Key: c.key, GroupID: c.group.ID, Body: p.body, SceneID: p.sceneID,
		Transition: p.body.TransitionTime, States: p.states, FullKey: fullKey}, sendWait)
	if sent || err != nil {
		return ClassifyRooms(c.bridge.Name, err)
	}
	eta, _ := c.rooms.Pending(c.key, fullKey)
	// A wait in line is quiet, as a HueLight's (quietInLine): the sender
	// wakes the HueGroup once the command went.
	return &providers.HandedError{For: eta, Reason: providers.ReasonThrottled, Quiet: quietInLine(c.session.Status().Answering, eta), Message: fmt.Sprintf(
		"queued for bridge %s (one group command a second): about %s", c.bridge.Name, eta.Round(100*time.Millisecond))}
}

// sent ends an Update whose group command the bridge answered (afterSend).
func (c *groupConn) sent(p groupPlan) error {
	var acceptedAt time.Time
	for id := range p.states {
		if v, ok := c.rooms.View(id); ok && v.Unconfirmed {
			acceptedAt = later(acceptedAt, v.AcceptedAt)
		}
	}
	return afterSend(c.session.Settings().Interval, !acceptedAt.IsZero(), acceptedAt)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Delete switches the lights off (onDelete TurnOff) and removes a group
// Tether created; an adopted one is left on the bridge.
func (c *groupConn) Delete(ctx context.Context, g *huev1alpha1.HueGroup) error {
	if c.group == nil {
		c.rooms.Forget(c.key)
		return nil
	}
	held := c.conflicts(g, c.group.LightIDs) != ""
	if g.Spec.OnDelete != huev1alpha1.DeletionKeep && !held && c.anyOn() {
		c.rooms.Settle(c.key, nil, true)
		off := model.StateBody{On: ptr.To(false), TransitionTime: transitionOf(g.Spec.TransitionTime)}
		states := map[string]model.StateBody{}
		for _, id := range c.group.LightIDs {
			states[id] = off
		}
		if err := c.send(ctx, groupPlan{body: off, states: states}); err != nil {
			if h, ok := providers.AsHanded(err); ok {
				return providers.Pendingf(h.For, h.Reason, "switching off: %s", h.Message)
			}
			return err
		}
	}
	if created(g) {
		if err := c.rooms.DeleteGroup(ctx, c.group.ID); err != nil {
			return ClassifyRooms(c.bridge.Name, err)
		}
	}
	c.rooms.Forget(c.key)
	return nil
}

// created reports whether Tether created the group: its status says so, or
// a create was started (and the status write lost to a crash).
func created(g *huev1alpha1.HueGroup) bool {
	_, started := g.Annotations[commonv1alpha1.AnnotationCreateStarted]
	return g.Status.Created || started
}

func (c *groupConn) anyOn() bool {
	for _, id := range c.group.LightIDs {
		if v, ok := c.rooms.View(id); ok && v.State.On {
			return true
		}
	}
	return false
}

func (c *groupConn) wait(reason, message string) providers.Observation {
	return providers.Waiting(providers.Wait{Reason: reason, Message: message, For: c.session.Settings().Interval})
}

// recordStatus writes the group and its members into the status.
func (c *groupConn) recordStatus(g *huev1alpha1.HueGroup) {
	st := &g.Status
	st.GroupID, st.Bridge, st.Type = c.group.ID, c.bridge.Name, c.group.Type
	st.Created = created(g)
	st.MemberCount = int32(len(c.group.LightIDs))
	st.Members = nil
	for _, id := range c.group.LightIDs {
		l := c.lights[id]
		st.Members = append(st.Members, huev1alpha1.GroupMember{Name: l.Name, LightID: id, Reachable: l.State.Reachable,
			On: l.State.On, ModelID: l.ModelID})
	}
}

// lightIDsOf resolves light names to ids, naming those the bridge lacks.
func (c *groupConn) lightIDsOf(names []string) ([]string, error) {
	var ids, missing []string
	for _, n := range names {
		l, ok := c.lights.ByName(n)
		if !ok {
			missing = append(missing, strconv.Quote(n))
			continue
		}
		ids = append(ids, l.ID)
	}
	if len(missing) > 0 {
		return nil, providers.RetryAfter(notFoundDelay, ReasonLightNotFound, fmt.Errorf(
			"bridge %s has no light named %s; it has: %s", c.bridge.Name, strings.Join(missing, ", "), strings.Join(c.lights.Names(), ", ")))
	}
	return ids, nil
}

// names lists lights by name, for messages.
func (c *groupConn) names(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = c.lights[id].Name
	}
	slices.Sort(out)
	return "[" + strings.Join(out, ", ") + "]"
}

// inOtherRooms names the lights of ids that a room other than except
// holds: a light belongs to one room at most, and the bridge refuses a
// second (error 306).
func inOtherRooms(groups []wire.Group, except string, ids []string, lights bridge.Lights) string {
	var taken []string
	for _, gr := range groups {
		if gr.Type != wire.GroupRoom || gr.ID == except {
			continue
		}
		for _, id := range ids {
			if slices.Contains(gr.LightIDs, id) {
				taken = append(taken, fmt.Sprintf("%q is in room %q", lights[id].Name, gr.Name))
			}
		}
	}
	if len(taken) == 0 {
		return ""
	}
	return strings.Join(taken, ", ") + ": a light belongs to one room at most (the bridge refuses a second, error 306); " +
		"take it out of that room in the Hue app, or make this HueGroup a Zone"
}

func groupNames(groups []wire.Group) string {
	var names []string
	for _, g := range groups {
		if isRoomOrZone(g.Type) {
			names = append(names, strconv.Quote(g.Name))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// GroupDiff is what differs between a HueGroup's spec and its group.
type GroupDiff struct {
	Changes   []string
	name      string   // the group should bear this name (renamed outside)
	lightIDs  []string // the group's lights should be these
	members   []string
	plan      groupPlan
	confirmed uint64
}

func (d *GroupDiff) String() string { return strings.Join(d.Changes, ", ") }

// StallKey counts the members' writes reads did show, as LightDiff's does.
func (d *GroupDiff) StallKey() string { return fmt.Sprintf("%s #%d", d.String(), d.confirmed) }
