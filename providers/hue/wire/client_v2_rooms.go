package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Rooms and zones on a CLIP v2 bridge are CLIP v2's own room and zone
// resources (v2groups.go), and their group commands go to each one's
// grouped_light (client_v2.go, SetGroupState); their scenes are CLIP v2
// scenes (client_v2_scenes.go): nothing of a HueGroup or HueScene needs the
// v1 API there. The session keeps v1 ids for them as for lights: a room,
// its grouped_light and the v1 group are one object with the id_v1
// "/groups/N", a v2 scene and the v1 scene "/scenes/<id>" another
// (aiohue's real-bridge fixture, tests/fixtures/v2_resources.json;
// docs/hue-behaviour.md, "id_v1"), so Group.ID and Scene.ID read the same on
// both APIs and what Tether stored one way the Hue app sees the other way.
//
// What stays on the v1 API the bridge serves beside CLIP v2 (over the
// client's verified HTTPS connection and within its request slots):
// temporary groups and scenes, which CLIP v2 has no form of that its
// clients would not see (a v2 scene belongs to one room or zone, so a
// temporary scene across a bridge's lights would need a temporary zone,
// and the event stream announces both: the Hue app lists them and Home
// Assistant adds an entity for each scene, docs/hue-bridge.md),
// and the look for those a crash left (LightGroups, LightScenes). On a
// bridge without v1 the session has no temporary groups, and its
// temporary scenes are CLIP v2 scenes in temporary zones (the bridge
// package's tempscenes.go).

var _ RoomsClient = (*v2Client)(nil)

// A bridge whose firmware dropped the v1 API (Signify: v1 "will
// eventually be removed", https://developers.meethue.com/new-hue-api/)
// answers a keyed v1 path 404, as a web server answers an unknown path.
// The client remembers it at the first such answer, and the session stops
// asking v1 for what it can do without (temporary groups and v1 scenes).
// Its v1 requests are answered V1GoneError from then on, without a
// request, so that a caller still on v1 learns why instead of reading
// "not valid Hue v1 API".

// V1Gone reports whether c speaks to a CLIP v2 bridge whose v1 API is gone,
// as far as c has seen.
func V1Gone(c Client) bool {
	v2, ok := c.(*v2Client)
	return ok && v2.noV1.Load()
}

// v1Answered records a keyed v1 request answered 404, and refuses one
// sent to a bridge known to have no v1. Pairing and the public config
// (no key) tell nothing: a bridge without v1 still serves them.
func (c *v2Client) v1Answered(status int) error {
	if c.user == "" {
		return nil
	}
	if status == http.StatusNotFound {
		c.noV1.Store(true)
	}
	if c.noV1.Load() {
		return V1GoneError{}
	}
	return nil
}

// v1Rooms is the v1 RoomsClient over this client's HTTPS connection.
func (c *v2Client) v1Rooms() *v1Client {
	return &v1Client{baseURL: c.base, user: c.user, timeout: c.timeout,
		http: &http.Client{Transport: slotted{c: c, next: c.http.Transport}, Timeout: c.timeout, CheckRedirect: refuseRedirects}}
}

// slotted takes one of the bridge's request slots (v2MaxConcurrent) for
// each request, until its answer is read and closed.
type slotted struct {
	c    *v2Client
	next http.RoundTripper
}

func (s slotted) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := s.c.v1Answered(0); err != nil {
		return nil, err
	}
	if err := s.c.acquire(req.Context()); err != nil {
		return nil, err
	}
	res, err := s.next.RoundTrip(req)
	if err != nil {
		s.c.release()
		return nil, err
	}
	if err := s.c.v1Answered(res.StatusCode); err != nil {
		_ = res.Body.Close()
		s.c.release()
		return nil, err
	}
	res.Body = &releasing{ReadCloser: res.Body, release: s.c.release}
	return res, nil
}

// releasing gives the request slot back when the answer is closed.
type releasing struct {
	io.ReadCloser
	release func()
	done    bool
}

func (r *releasing) Close() error {
	err := r.ReadCloser.Close()
	if !r.done {
		r.done = true
		r.release()
	}
	return err
}

// ListGroups reads the rooms and zones (one GET of each type) into the
// store, after a full read when the store holds no lights yet (a room's
// members are named through its devices).
func (c *v2Client) ListGroups(ctx context.Context) ([]Group, error) {
	if !c.store.hasLights() {
		if _, err := c.readAll(ctx); err != nil {
			return nil, err
		}
	}
	for _, rtype := range []string{"room", "zone"} {
		if err := c.readType(ctx, rtype); err != nil {
			return nil, err
		}
	}
	return c.store.groups(), nil
}

// LightGroups lists the v1 LightGroups, through v1: temporary groups are
// v1 LightGroups on a CLIP v2 bridge too (client_v2.go).
func (c *v2Client) LightGroups(ctx context.Context) ([]Group, error) {
	return lightGroupsOf(c.v1Rooms().ListGroups(ctx))
}

// readType reads every resource of one type into the store.
func (c *v2Client) readType(ctx context.Context, rtype string) error {
	started := time.Now()
	status, ans, err := c.call(ctx, "GetGroups", http.MethodGet, "/clip/v2/resource/"+rtype, nil)
	if err == nil {
		err = statusError(status, ans)
	}
	if err != nil {
		return err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(ans.Data, &list); err != nil {
		return otherJSON(status, "a CLIP v2 resource list")
	}
	c.store.replaceType(rtype, list, started)
	return nil
}

// readOne reads one resource into the store.
func (c *v2Client) readOne(ctx context.Context, rtype, rid string) error {
	status, ans, err := c.call(ctx, "GetGroups", http.MethodGet, "/clip/v2/resource/"+rtype+"/"+rid, nil)
	if err == nil {
		err = statusError(status, ans)
	}
	if err != nil {
		return err
	}
	var list []json.RawMessage
	if json.Unmarshal(ans.Data, &list) != nil || len(list) != 1 {
		return otherJSON(status, "a CLIP v2 resource")
	}
	if r, ok := decodeKept(list[0]); ok {
		c.store.mu.Lock()
		c.store.put(r)
		c.store.changedAt[r.ID] = time.Now()
		c.store.mu.Unlock()
	}
	return nil
}

// roomWrite is a RoomPut (the same for zones): children and metadata.
type roomWrite struct {
	Children []v2Ref         `json:"children"` // required by POST; PUT replaces the list
	Metadata *roomWriteNames `json:"metadata,omitempty"`
}

type roomWriteNames struct {
	Name      string `json:"name"`
	Archetype string `json:"archetype"`
}

// defaultArchetype is what Tether names the kind of a room or zone it
// creates: "other", as the v1 API's default class "Other" (HueGroup has no
// field for it).
const defaultArchetype = "other"

// CreateRoom creates a room (children: the lights' devices) or zone
// (children: the lights), reads it back into the store and returns its v1
// id.
func (c *v2Client) CreateRoom(ctx context.Context, spec GroupSpec) (string, error) {
	rtype, ok := v2GroupTypes[spec.Type]
	if !ok {
		return "", fmt.Errorf("a group of type %q is not a room or zone", spec.Type)
	}
	children, err := c.childrenOf(ctx, rtype, spec.LightIDs)
	if err != nil {
		return "", err
	}
	rid, err := c.writeRoom(ctx, "CreateGroup", http.MethodPost, "/clip/v2/resource/"+rtype,
		roomWrite{Children: children, Metadata: &roomWriteNames{Name: spec.Name, Archetype: defaultArchetype}})
	if err != nil {
		return "", err
	}
	if err := c.readOne(ctx, rtype, rid); err != nil {
		return "", err
	}
	if id, ok := c.store.groupByRID(rid); ok {
		return id, nil
	}
	return rid, nil
}

// SetGroupLights makes lightIDs the room's or zone's children (a whole
// list, which replaces the old one) and reads it back into the store.
func (c *v2Client) SetGroupLights(ctx context.Context, id string, lightIDs []string) error {
	rid, rtype, err := c.groupOf(ctx, id)
	if err != nil {
		return err
	}
	children, err := c.childrenOf(ctx, rtype, lightIDs)
	if err != nil {
		return err
	}
	if _, err := c.writeRoom(ctx, "SetGroupAttributes", http.MethodPut, "/clip/v2/resource/"+rtype+"/"+rid,
		roomWrite{Children: children}); err != nil {
		return err
	}
	return c.readOne(ctx, rtype, rid)
}

// roomRename is a PUT that changes a room's or zone's name alone: no
// children (the members stay) and no archetype (the kind the Hue app
// shows stays).
type roomRename struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// RenameGroup gives the room or zone the name name and reads it back into
// the store.
func (c *v2Client) RenameGroup(ctx context.Context, id, name string) error {
	rid, rtype, err := c.groupOf(ctx, id)
	if err != nil {
		return err
	}
	var body roomRename
	body.Metadata.Name = name
	if _, err := c.writeRoom(ctx, "SetGroupAttributes", http.MethodPut, "/clip/v2/resource/"+rtype+"/"+rid, body); err != nil {
		return err
	}
	return c.readOne(ctx, rtype, rid)
}

// deleteRoom deletes a room or zone; one already gone is success.
func (c *v2Client) deleteRoom(ctx context.Context, rid, rtype string) error {
	status, ans, err := c.call(ctx, "DeleteGroup", http.MethodDelete, "/clip/v2/resource/"+rtype+"/"+rid, nil)
	if err == nil && status != http.StatusNotFound {
		err = statusError(status, ans)
	}
	if err == nil {
		c.store.remove(rid)
	}
	return err
}

// groupOf is the resource id and type of the room or zone with v1 id id,
// reading the rooms and zones once when the store does not hold it.
func (c *v2Client) groupOf(ctx context.Context, id string) (rid, rtype string, err error) {
	rid, rtype, _, ok := c.store.groupByV1(id)
	if !ok {
		if _, err := c.ListGroups(ctx); err != nil {
			return "", "", err
		}
		if rid, rtype, _, ok = c.store.groupByV1(id); !ok {
			return "", "", &BridgeError{Type: TypeNotAvailable, Description: fmt.Sprintf("no room or zone with id %s", id)}
		}
	}
	return rid, rtype, nil
}

// childrenOf is a room's or zone's children for lightIDs, after one full
// read when the store does not hold one of the lights.
func (c *v2Client) childrenOf(ctx context.Context, rtype string, lightIDs []string) ([]v2Ref, error) {
	children, missing := c.store.childrenOf(rtype, lightIDs)
	if missing == "" {
		return children, nil
	}
	if _, err := c.readAll(ctx); err != nil {
		return nil, err
	}
	if children, missing = c.store.childrenOf(rtype, lightIDs); missing != "" {
		return nil, &BridgeError{Type: TypeNotAvailable, Description: fmt.Sprintf("no light with id %s", missing)}
	}
	return children, nil
}

// writeRoom sends a room or zone write and returns the rid it answered. A
// 409 is a device another room holds: what a bridge answers then is not
// documented (openhue-api lists 409 for every path); Tether reads it as
// the v1 API's error 306, which its rooms already handle.
func (c *v2Client) writeRoom(ctx context.Context, operation, method, path string, body any) (string, error) {
	status, ans, err := c.call(ctx, operation, method, path, body)
	if err != nil {
		return "", err
	}
	if status == http.StatusConflict {
		return "", &BridgeError{Type: TypeLightInAnotherRoom, Description: or(strings.Join(ans.descriptions(), "; "), "a device is in another room")}
	}
	if err := statusError(status, ans); err != nil {
		return "", err
	}
	var refs []v2Ref
	if json.Unmarshal(ans.Data, &refs) != nil || len(refs) == 0 || refs[0].RID == "" {
		return "", otherJSON(status, "a CLIP v2 write answer")
	}
	return refs[0].RID, nil
}
