package hue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/amimof/huego"

	"github.com/tether-dev/tether/providers"
)

// Client is the part of a Hue bridge's API the adapter uses. Unit tests
// replace it with a small fake; production uses huego.
type Client interface {
	GetLights(ctx context.Context) ([]huego.Light, error)
	GetConfig(ctx context.Context) (*huego.Config, error)
	CreateUser(ctx context.Context, deviceType string) (string, error)
	SetLightState(ctx context.Context, id string, body StateBody) error
	// Groups: one command for many lights (a 1/s budget of its own).
	GetGroups(ctx context.Context) (map[string]string, error) // id -> name
	CreateGroup(ctx context.Context, name string, lightIDs []string) (string, error)
	SetGroupState(ctx context.Context, id string, body StateBody) error
	DeleteGroup(ctx context.Context, id string) error
}

// DefaultCallTimeout bounds every call to a bridge: huego v1.2.1 uses
// http.DefaultClient, which has no timeout, so a bridge that accepts the
// connection and never answers would hold a worker forever.
const DefaultCallTimeout = 5 * time.Second

// huegoClient is Client over huego, with a deadline on every call.
type huegoClient struct {
	bridge  *huego.Bridge
	baseURL string
	user    string
	timeout time.Duration
	http    *http.Client
}

// NewClient returns a Client for the bridge at address (host, host:port or
// http(s) URL) authenticated as user ("" before pairing).
func NewClient(address, user string, timeout time.Duration) Client {
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	base := strings.TrimSuffix(address, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		base = "http://" + base
	}
	return &huegoClient{
		bridge:  huego.New(base, user),
		baseURL: base,
		user:    user,
		timeout: timeout,
		http:    &http.Client{Timeout: timeout},
	}
}

// bounded runs f with the call deadline and turns a huego panic into an
// error: huego's APIError.UnmarshalJSON panics on an error object without
// "address", which some bridges and proxies send.
// Every call is counted in tether_external_calls_total under operation.
func (c *huegoClient) bounded(ctx context.Context, operation string, f func(context.Context) error) (err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = &ProtocolError{Detail: fmt.Sprint(r)}
		}
		providers.CountExternalCall("hue", operation, callResult(err))
	}()
	return redact(f(ctx), c.user)
}

// redact removes the username from the URL that net/http puts in its
// errors, and from the address of a bridge's error (some bridges answer
// with the full path, /api/<username>/...): errors end up in logs,
// conditions and events, the username must not.
func redact(err error, user string) error {
	if user == "" || err == nil {
		return err
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return &url.Error{Op: urlErr.Op, URL: strings.ReplaceAll(urlErr.URL, user, "<username>"), Err: urlErr.Err}
	}
	var apiErr *huego.APIError
	if errors.As(err, &apiErr) && (strings.Contains(apiErr.Address, user) || strings.Contains(apiErr.Description, user)) {
		return &huego.APIError{Type: apiErr.Type,
			Address:     strings.ReplaceAll(apiErr.Address, user, "<username>"),
			Description: strings.ReplaceAll(apiErr.Description, user, "<username>")}
	}
	var protoErr *ProtocolError
	if errors.As(err, &protoErr) && strings.Contains(protoErr.Detail, user) {
		// An answer that is not Hue's (a proxy's "Cannot PUT /api/<user>/...").
		return &ProtocolError{Detail: strings.ReplaceAll(protoErr.Detail, user, "<username>")}
	}
	return err
}

func (c *huegoClient) GetLights(ctx context.Context) (lights []huego.Light, err error) {
	err = c.bounded(ctx, "GetLights", func(ctx context.Context) error {
		lights, err = c.bridge.GetLightsContext(ctx)
		return err
	})
	return lights, err
}

func (c *huegoClient) GetConfig(ctx context.Context) (cfg *huego.Config, err error) {
	err = c.bounded(ctx, "GetConfig", func(ctx context.Context) error {
		cfg, err = c.bridge.GetConfigContext(ctx)
		return err
	})
	return cfg, err
}

func (c *huegoClient) CreateUser(ctx context.Context, deviceType string) (user string, err error) {
	err = c.bounded(ctx, "CreateUser", func(ctx context.Context) error {
		user, err = c.bridge.CreateUserContext(ctx, deviceType)
		return err
	})
	return user, err
}

// SetLightState sends body through huego when huego can express it, and as
// a plain PUT otherwise: huego's State drops hue 0, sat 0 and
// transitiontime 0 (omitempty), which would silently send something else.
func (c *huegoClient) SetLightState(ctx context.Context, id string, body StateBody) error {
	n, err := strconv.Atoi(id)
	if err != nil {
		return fmt.Errorf("light id %q is not a number", id)
	}
	return c.bounded(ctx, "SetLightState", func(ctx context.Context) error {
		if st, ok := body.HuegoState(); ok {
			_, err := c.bridge.SetLightStateContext(ctx, n, st)
			return err
		}
		return c.putState(ctx, "/lights/"+id+"/state", body)
	})
}

// GetGroups lists the bridge's groups (not group 0) as id -> name.
func (c *huegoClient) GetGroups(ctx context.Context) (groups map[string]string, err error) {
	err = c.bounded(ctx, "GetGroups", func(ctx context.Context) error {
		list, err := c.bridge.GetGroupsContext(ctx)
		groups = make(map[string]string, len(list))
		for _, g := range list {
			groups[strconv.Itoa(g.ID)] = g.Name
		}
		return err
	})
	return groups, err
}

// CreateGroup creates a LightGroup of the lights and returns its id.
func (c *huegoClient) CreateGroup(ctx context.Context, name string, lightIDs []string) (id string, err error) {
	err = c.bounded(ctx, "CreateGroup", func(ctx context.Context) error {
		res, err := c.bridge.CreateGroupContext(ctx, huego.Group{Name: name, Lights: lightIDs, Type: "LightGroup"})
		if err != nil {
			return err
		}
		id, _ = res.Success["id"].(string)
		if id == "" {
			return &ProtocolError{Detail: fmt.Sprintf("group created without an id: %v", res.Success)}
		}
		return nil
	})
	return id, err
}

// SetGroupState sends body to every light of the group, through huego when
// it can express the body and as a plain PUT otherwise (see SetLightState).
func (c *huegoClient) SetGroupState(ctx context.Context, id string, body StateBody) error {
	n, err := strconv.Atoi(id)
	if err != nil {
		return fmt.Errorf("group id %q is not a number", id)
	}
	return c.bounded(ctx, "SetGroupState", func(ctx context.Context) error {
		if st, ok := body.HuegoState(); ok {
			_, err := c.bridge.SetGroupStateContext(ctx, n, st)
			return err
		}
		return c.putState(ctx, "/groups/"+id+"/action", body)
	})
}

// DeleteGroup deletes a group; one that is already gone is success.
func (c *huegoClient) DeleteGroup(ctx context.Context, id string) error {
	n, err := strconv.Atoi(id)
	if err != nil {
		return fmt.Errorf("group id %q is not a number", id)
	}
	return c.bounded(ctx, "DeleteGroup", func(ctx context.Context) error {
		if err := c.bridge.DeleteGroupContext(ctx, n); apiErrorType(err) != errNotAvailable {
			return err
		}
		return nil
	})
}

// putState is a raw PUT of body to a light's state or a group's action
// (path below /api/<user>), decoding the answer array itself (no huego
// panic on a missing address).
func (c *huegoClient) putState(ctx context.Context, path string, body StateBody) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	url := c.baseURL + "/api/" + c.user + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	return decodeAnswer(res.StatusCode, answer)
}

// callResult names a call's outcome for the external-calls metric: an
// overloaded bridge (error 901, HTTP 503) is pushing back, like a throttle.
func callResult(err error) string {
	switch {
	case err == nil:
		return providers.ResultOK
	case apiErrorType(err) == errInternal:
		return providers.ResultThrottled
	default:
		return providers.ResultError
	}
}
