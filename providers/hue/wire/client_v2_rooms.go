package wire

import (
	"context"
	"io"
	"net/http"
)

// Rooms, zones and scenes on a CLIP v2 bridge go through the v1 API the
// bridge serves beside CLIP v2, over the client's verified HTTPS connection
// and within its request slots, as temporary groups do (client_v2.go). On a
// bridge the two APIs are two views of the same objects: a room or zone is a
// v1 group of type Room or Zone and its grouped_light has that group's id_v1
// ("/groups/N"); a v2 scene is a v1 scene ("/scenes/<id>") (aiohue's
// real-bridge fixture, tests/fixtures/v2_resources.json; docs/hue-facts.md,
// "id_v1"). So what Tether stores one way the Hue app sees the other way, and
// the session's ids stay v1 ids on both backends.
//
// Not done yet: the same through CLIP v2's own room, zone, grouped_light
// and scene resources (a scene there belongs to exactly one room or zone,
// so a temporary scene across a bridge's lights would need a temporary
// zone as well).

var _ RoomsClient = (*v2Client)(nil)

// A bridge whose firmware dropped the v1 API (Signify: v1 "will
// eventually be removed", https://developers.meethue.com/new-hue-api/)
// answers a keyed v1 path 404, as a web server answers an unknown path.
// The client remembers it at the first such answer, and the session stops
// asking v1 for what it can do without (temporary groups and scenes: its
// lights then go by CLIP v2 light commands). Its v1 requests are answered
// V1GoneError from then on, without a request, so that what needs v1 says
// so in its condition (rooms, zones and scenes here: not yet on CLIP v2's
// own resources) instead of "not valid Hue v1 API".

// V1GoneError is a v1 request to a CLIP v2 bridge that has no v1 API. It
// is ErrNoRooms (errors.Is): rooms, zones and scenes are what needs v1.
type V1GoneError struct{}

func (V1GoneError) Is(target error) bool { return target == ErrNoRooms }

func (V1GoneError) Error() string {
	return "the bridge answers 404 on the v1 API (a firmware without it): Tether speaks CLIP v2 to it, but rooms, zones, " +
		"group commands of rooms and scenes still go through v1 on a CLIP v2 bridge"
}

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

func (c *v2Client) ListGroups(ctx context.Context) ([]Group, error) {
	return c.v1Rooms().ListGroups(ctx)
}

func (c *v2Client) CreateRoom(ctx context.Context, spec GroupSpec) (string, error) {
	return c.v1Rooms().CreateRoom(ctx, spec)
}

func (c *v2Client) SetGroupLights(ctx context.Context, id string, lightIDs []string) error {
	return c.v1Rooms().SetGroupLights(ctx, id, lightIDs)
}

func (c *v2Client) Scenes(ctx context.Context) ([]Scene, error) { return c.v1Rooms().Scenes(ctx) }

func (c *v2Client) Scene(ctx context.Context, id string) (Scene, error) {
	return c.v1Rooms().Scene(ctx, id)
}

func (c *v2Client) CreateScene(ctx context.Context, spec SceneSpec) (string, error) {
	return c.v1Rooms().CreateScene(ctx, spec)
}

func (c *v2Client) UpdateScene(ctx context.Context, id string, spec SceneSpec) error {
	return c.v1Rooms().UpdateScene(ctx, id, spec)
}

func (c *v2Client) DeleteScene(ctx context.Context, id string) error {
	return c.v1Rooms().DeleteScene(ctx, id)
}

func (c *v2Client) RecallScene(ctx context.Context, sceneID, groupID string, transition *int) error {
	return c.v1Rooms().RecallScene(ctx, sceneID, groupID, transition)
}
