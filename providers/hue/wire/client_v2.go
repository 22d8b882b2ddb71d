package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"
)

// The CLIP v2 implementation of the Client port (openhue-api's OpenAPI
// specification; docs/hue-behaviour.md, "CLIP v2"):
// https://<bridge>/clip/v2/resource/... with the hue-application-key header,
// over HTTPS checked as trust.go says. The bridge's resources are kept in a
// store (v2store.go) filled by full reads and by the event stream
// (stream.go), and lights are read from it in Tether's own types: a light
// service with its device (name, model) and the device's zigbee_connectivity
// (reachable). Units are translated at this border: brightness 0-100 % <->
// bri 1-254, dynamics.duration ms <-> transitiontime. HueLights keep naming
// lights by name, and Light.ID stays the v1 id (from id_v1), so spec.id and
// status.lightID mean the same on both APIs.
//
// Groups: group 0 is bridge_home's grouped_light, a room or zone its own
// grouped_light (client_v2_rooms.go). Temporary groups stay v1 LightGroups
// (over the same HTTPS connection: a v2 bridge serves v1 too), because a
// v2 zone would show in the Hue app while it exists.

// v2MaxConcurrent is how many requests Tether has open at a bridge at once,
// the event stream included: "the bridge will deny more than 3 requests at
// the same time with a 429" (aiohue v2/__init__.py, limit_per_host=3).
const v2MaxConcurrent = 3

// Retrying a bridge that answers 429 or 503: aiohue sleeps 0.25 s times
// the attempt; Tether tries v2BusyRetries more times (or as Retry-After
// says), then gives up with error 901 (BridgeBusy) for the caller's
// backoff.
const (
	v2BusyRetries = 3
	v2BusyStep    = 250 * time.Millisecond
)

// v2Client is Client over CLIP v2.
type v2Client struct {
	base    string // https://host[:port]
	user    string
	timeout time.Duration
	http    *http.Client
	stream  *http.Client // no overall deadline: the stream lives long
	slots   chan struct{}
	peer    *peerRecord
	store   *v2Store
	// noV1 is set once a keyed v1 request was answered 404: the bridge's
	// firmware has no v1 API (V1Gone).
	noV1 atomic.Bool
	// scenes are the ids of its scenes (client_v2_scenes.go).
	scenes sceneIDs
	sizes  answerSizes
}

// NewClientV2 returns a CLIP v2 Client for the bridge at address (host,
// host:port or https URL), authenticated as user ("" before pairing), its
// certificate checked as trust says.
func NewClientV2(address, user string, timeout time.Duration, trust Trust) (Client, error) {
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	peer := &peerRecord{}
	cfg, err := trust.tlsConfig(peer)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		TLSClientConfig: cfg,
		DialContext:     streamDialer.DialContext,
		// Hue recommends HTTP/2; openHAB saw a bridge answer parallel PUTs
		// over HTTP/2 with an HTML error (openhab-addons #15322). HTTP/1.1
		// with the stream on a connection of its own is the known-good way.
		ForceAttemptHTTP2:   false,
		MaxConnsPerHost:     v2MaxConcurrent,
		MaxIdleConnsPerHost: v2MaxConcurrent,
		IdleConnTimeout:     90 * time.Second,
	}
	return &v2Client{
		base:    httpsBase(address),
		user:    user,
		timeout: timeout,
		http:    &http.Client{Transport: transport, Timeout: timeout, CheckRedirect: refuseRedirects},
		stream:  &http.Client{Transport: transport, CheckRedirect: refuseRedirects},
		slots:   make(chan struct{}, v2MaxConcurrent),
		peer:    peer,
		store:   newV2Store(),
	}, nil
}

// ProbeV2 asks the bridge at address, without a key, whether it serves
// CLIP v2 and which bridge it is, over a connection whose certificate is
// checked as trust says and must name the id the bridge reports. The probe
// is a client without credentials (pairing asks through it).
func ProbeV2(ctx context.Context, address string, timeout time.Duration, trust Trust) (Client, BridgeConfig, error) {
	c, err := NewClientV2(address, "", timeout, trust)
	if err != nil {
		return nil, BridgeConfig{}, err
	}
	probe := c.(*v2Client)
	if err := probe.servesV2(ctx); err != nil {
		return nil, BridgeConfig{}, err
	}
	cfg, err := probe.publicConfig(ctx)
	if err != nil && !IsNetwork(err) {
		return nil, BridgeConfig{}, &NoPublicConfigError{Cause: err}
	}
	if err != nil {
		return nil, BridgeConfig{}, err
	}
	if cfg.BridgeID == "" {
		return nil, BridgeConfig{}, &ProtocolError{Detail: "/api/config names no bridgeid"}
	}
	if err := checkBridgeID(probe.Certificate(), cfg.BridgeID); err != nil {
		return nil, BridgeConfig{}, err
	}
	return probe, cfg, nil
}

// streamDialer sends TCP keep-alives often enough that a bridge gone from
// the network ends the event stream within about 30 s: the bridge sends
// no keep-alive of its own on a quiet stream.
var streamDialer = &net.Dialer{
	Timeout:         DefaultCallTimeout,
	KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3},
}

// httpsBase is the address as an https base URL.
func httpsBase(address string) string {
	base := strings.TrimSuffix(strings.TrimSpace(address), "/")
	base = strings.TrimPrefix(strings.TrimPrefix(base, "https://"), "http://")
	return "https://" + base
}

// Certificate is the bridge's certificate as the last handshake showed it.
func (c *v2Client) Certificate() CertificateInfo { return c.peer.get() }

// APIVersion names the API the client speaks.
func (c *v2Client) APIVersion() string { return APIV2 }

// acquire takes one of the bridge's request slots.
func (c *v2Client) acquire(ctx context.Context) error {
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *v2Client) release() { <-c.slots }

// v2Answer is the envelope of every v2 answer.
type v2Answer struct {
	Errors []struct {
		Description string `json:"description"`
	} `json:"errors"`
	Data json.RawMessage `json:"data"`
}

// hide removes the key from the answer's error descriptions, which its
// callers turn into errors (statusError).
func (a *v2Answer) hide(user string) {
	for i := range a.Errors {
		a.Errors[i].Description = hideUser(a.Errors[i].Description, user)
	}
}

func (a v2Answer) descriptions() []string {
	out := make([]string, 0, len(a.Errors))
	for _, e := range a.Errors {
		out = append(out, e.Description)
	}
	return out
}

// call sends one request (path below the base, with the key) within the
// call deadline and a request slot, retries 429 and 503 with backoff, and
// tells CountCall of it. Its error, and the error descriptions of its
// answer, go through redact as the v1 client's do: the key never appears
// in an error.
func (c *v2Client) call(ctx context.Context, operation, method, path string, body any) (status int, ans v2Answer, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	defer func() {
		err = redact(err, c.user)
		ans.hide(c.user)
		CountCall(operation, err)
	}()
	var data []byte
	if body != nil {
		if data, err = json.Marshal(body); err != nil {
			return 0, ans, err
		}
	}
	for attempt := 0; ; attempt++ {
		var retryAfter time.Duration
		status, ans, retryAfter, err = c.once(ctx, method, path, data)
		if err != nil || (status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable) {
			return status, ans, err
		}
		if attempt == v2BusyRetries {
			return status, ans, &BridgeError{Type: TypeInternal, Description: fmt.Sprintf("the bridge is busy (HTTP %d)", status)}
		}
		if retryAfter <= 0 {
			retryAfter = time.Duration(attempt+1) * v2BusyStep
		}
		select {
		case <-ctx.Done():
			return status, ans, ctx.Err()
		case <-time.After(retryAfter):
		}
	}
}

func (c *v2Client) once(ctx context.Context, method, path string, data []byte) (int, v2Answer, time.Duration, error) {
	var ans v2Answer
	if err := c.acquire(ctx); err != nil {
		return 0, ans, 0, err
	}
	defer c.release()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(data))
	if err != nil {
		return 0, ans, 0, err
	}
	if c.user != "" {
		req.Header.Set("hue-application-key", c.user)
	}
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, ans, 0, err
	}
	defer res.Body.Close()
	if err := refusedRedirect(res); err != nil {
		return 0, ans, 0, redact(err, c.user)
	}
	raw, err := c.sizes.read(method, path, res.Body)
	if err != nil {
		return 0, ans, 0, err
	}
	retryAfter := time.Duration(0)
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &ans) != nil && res.StatusCode < 300 {
		return res.StatusCode, ans, 0, checkJSONOr(res, raw, "a CLIP v2 answer")
	}
	return res.StatusCode, ans, retryAfter, nil
}

// statusError is the port's error for a v2 answer that is not a success.
func statusError(status int, ans v2Answer) error {
	desc := strings.Join(ans.descriptions(), "; ")
	switch {
	case status < 300:
		return nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &BridgeError{Type: TypeUnauthorized, Description: "unauthorized user"}
	case status == http.StatusNotFound:
		return &BridgeError{Type: TypeNotAvailable, Description: or(desc, "not found")}
	case status == http.StatusBadRequest:
		return &BridgeError{Type: TypeInvalidValue, Description: or(desc, "bad request")}
	case status == http.StatusTooManyRequests || status >= 500:
		return &BridgeError{Type: TypeInternal, Description: or(desc, fmt.Sprintf("HTTP %d", status))}
	}
	return &ProtocolError{Detail: fmt.Sprintf("HTTP %d: %s", status, or(desc, "no description"))}
}

// Lights reads every resource and returns the lights.
func (c *v2Client) Lights(ctx context.Context) ([]model.Light, error) {
	r, err := c.readAll(ctx)
	return r.Lights, err
}

// readAll is one full read: GET /clip/v2/resource into the store.
func (c *v2Client) readAll(ctx context.Context) (Read, error) {
	started := time.Now()
	status, ans, err := c.call(ctx, "GetLights", http.MethodGet, "/clip/v2/resource", nil)
	if err == nil {
		err = statusError(status, ans)
	}
	if err != nil {
		return Read{At: started}, err
	}
	var list []json.RawMessage // each decoded into the kept types only (v2store.go)
	if err := json.Unmarshal(ans.Data, &list); err != nil {
		err = otherJSON(status, "a CLIP v2 resource list")
		return Read{At: started}, err
	}
	c.store.replace(list, started)
	r := c.store.read(started)
	r.Full, r.Groups = true, c.store.groups()
	return r, nil
}

// servesV2 asks, without a key, whether the address serves CLIP v2: a v2
// bridge answers GET /clip/v2/resource with 403 to a client without one
// (aiohue's is_v2_bridge); 404 means it has no v2.
func (c *v2Client) servesV2(ctx context.Context) error {
	status, ans, err := c.call(ctx, "GetResources", http.MethodGet, "/clip/v2/resource", nil)
	switch {
	case err != nil:
		return err
	case status < 300 || status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil
	case status == http.StatusNotFound:
		return &BridgeError{Type: TypeNotAvailable, Description: errNotV2.Error()}
	}
	return statusError(status, ans)
}

// Config reads the bridge's identity over CLIP v2 alone: the bridge
// resource (bridge_id; 403 when the bridge does not know the key) and the
// device that owns it (its name, and its software version, whose first
// two numbers are the API version: "1.65.1965111030"). A bridge whose
// firmware drops the v1 API still answers them. Only a key the bridge
// does not know falls back to the public /api/config, which anyone may
// read, for the id to name in the condition.
func (c *v2Client) Config(ctx context.Context) (BridgeConfig, error) {
	status, ans, err := c.call(ctx, "GetConfig", http.MethodGet, "/clip/v2/resource/bridge", nil)
	if err != nil {
		return BridgeConfig{}, err
	}
	if status == http.StatusForbidden || status == http.StatusUnauthorized {
		return c.publicConfig(ctx) // Authorized stays false
	}
	if err := statusError(status, ans); err != nil {
		return BridgeConfig{}, err
	}
	var bridges []struct {
		BridgeID string `json:"bridge_id"`
		Owner    v2Ref  `json:"owner"`
	}
	if json.Unmarshal(ans.Data, &bridges) != nil {
		return BridgeConfig{}, otherJSON(status, "a CLIP v2 bridge resource")
	}
	if len(bridges) != 1 || bridges[0].BridgeID == "" {
		return BridgeConfig{}, &ProtocolError{Detail: fmt.Sprintf("CLIP v2 lists %d bridge resources, not one with a bridge_id", len(bridges))}
	}
	cfg := BridgeConfig{BridgeID: NormalizeBridgeID(bridges[0].BridgeID), Authorized: true}
	if bridges[0].Owner.RID == "" {
		return cfg, nil
	}
	status, ans, err = c.call(ctx, "GetConfig", http.MethodGet, "/clip/v2/resource/device/"+bridges[0].Owner.RID, nil)
	if err == nil {
		err = statusError(status, ans)
	}
	if err != nil {
		return BridgeConfig{}, err
	}
	var devices []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		ProductData struct {
			SoftwareVersion string `json:"software_version"`
		} `json:"product_data"`
	}
	if json.Unmarshal(ans.Data, &devices) != nil {
		return BridgeConfig{}, otherJSON(status, "a CLIP v2 device resource")
	}
	if len(devices) == 1 {
		cfg.Name, cfg.APIVersion = devices[0].Metadata.Name, devices[0].ProductData.SoftwareVersion
	}
	return cfg, nil
}

// publicConfig is GET /api/config: name, API version and bridge id, to
// anyone.
func (c *v2Client) publicConfig(ctx context.Context) (BridgeConfig, error) {
	var raw struct {
		Name       string `json:"name"`
		BridgeID   string `json:"bridgeid"`
		APIVersion string `json:"apiversion"`
		SWVersion  string `json:"swversion"`
	}
	if err := c.v1(ctx, "GetConfig", http.MethodGet, "/api/config", nil, &raw); err != nil {
		return BridgeConfig{}, err
	}
	return BridgeConfig{BridgeID: NormalizeBridgeID(raw.BridgeID), Name: raw.Name, APIVersion: raw.APIVersion}, nil
}

// v1 sends a v1 request over the client's connection (v2 bridges serve v1
// over HTTPS too) and decodes the answer into out.
func (c *v2Client) v1(ctx context.Context, operation, method, path string, body any, out any) (err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	defer func() {
		err = redact(err, c.user)
		CountCall(operation, err)
	}()
	var data []byte
	if body != nil {
		data, _ = json.Marshal(body)
	}
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return redact(err, c.user)
	}
	defer res.Body.Close()
	if err := refusedRedirect(res); err != nil {
		return redact(err, c.user)
	}
	raw, err := c.sizes.read(method, path, res.Body)
	if err != nil {
		return err
	}
	if err := c.v1Answered(res.StatusCode); err != nil {
		return err
	}
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable {
		return &BridgeError{Type: TypeInternal, Description: fmt.Sprintf("the bridge is busy (HTTP %d)", res.StatusCode)}
	}
	if out, ok := out.(*[]byte); ok {
		*out = raw
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		if _, aerr := decodeAnswer(res.StatusCode, raw, model.StateBody{}); aerr != nil {
			return redact(aerr, c.user)
		}
		return checkJSONOr(res, raw, "the Hue answer expected")
	}
	return nil
}

// Pair asks for a username with a client key (still the v1 call on a v2
// bridge: POST /api with generateclientkey).
func (c *v2Client) Pair(ctx context.Context, deviceType string) (Credentials, error) {
	var raw []byte
	if err := c.v1(ctx, "CreateUser", http.MethodPost, "/api",
		map[string]any{"devicetype": deviceType, "generateclientkey": true}, &raw); err != nil {
		return Credentials{}, err
	}
	return decodePairing(raw)
}

// SetLightState sends a LightPut to the light's v2 resource.
func (c *v2Client) SetLightState(ctx context.Context, id string, body model.StateBody) (Result, error) {
	rid, gamut, ok := c.store.lightByV1(id)
	if !ok {
		if _, err := c.readAll(ctx); err != nil {
			return Result{}, err
		}
		if rid, gamut, ok = c.store.lightByV1(id); !ok {
			return Result{}, &BridgeError{Type: TypeNotAvailable, Description: fmt.Sprintf("no light with id %s", id)}
		}
	}
	return c.put(ctx, "SetLightState", "/clip/v2/resource/light/"+rid, body, gamut)
}

// put sends body as a LightPut (or a GroupedLightPut, which has the same
// shape) and reads the answer: 200 is accepted; 207 is applied but not
// confirmed (an unreachable light, openhab-addons #15511): accepted, its
// errors logged by the caller through the result's refusals being empty;
// 400 names what it refused where its description says.
func (c *v2Client) put(ctx context.Context, operation, path string, body model.StateBody, g *model.Gamut) (Result, error) {
	status, ans, err := c.call(ctx, operation, http.MethodPut, path, lightPut(body, g))
	if err != nil {
		return Result{}, err
	}
	switch status {
	case http.StatusOK, http.StatusMultiStatus:
		return Result{Accepted: body}, nil
	case http.StatusBadRequest:
		if res, ok := refusalsOf(body, ans); ok {
			return res, nil
		}
	}
	return Result{}, statusError(status, ans)
}

// lightPut is a command in v2's form.
func lightPut(b model.StateBody, g *model.Gamut) map[string]any {
	put := map[string]any{}
	if b.On != nil {
		put["on"] = map[string]bool{"on": *b.On}
	}
	if b.Bri != nil {
		put["dimming"] = map[string]float64{"brightness": brightnessOf(*b.Bri)}
	}
	xy := b.XY
	if xy == nil && b.Hue != nil && b.Sat != nil {
		v := model.HueSatToXY(*b.Hue, *b.Sat, g) // v2 has no hue/sat
		xy = &v
	}
	if xy != nil {
		put["color"] = map[string]any{"xy": map[string]float64{"x": xy[0], "y": xy[1]}}
	}
	if b.CT != nil {
		put["color_temperature"] = map[string]int{"mirek": *b.CT}
	}
	// A transition and a speed are both dynamics: one object.
	dynamics := map[string]any{}
	if b.TransitionTime != nil {
		dynamics["duration"] = *b.TransitionTime * 100
	}
	if b.Speed != nil {
		dynamics["speed"] = *b.Speed
	}
	if len(dynamics) > 0 {
		put["dynamics"] = dynamics
	}
	if b.Effect != nil {
		put["effects"] = map[string]string{"effect": *b.Effect}
	}
	if b.Powerup != nil {
		put["powerup"] = powerupPut(*b.Powerup)
	}
	if b.Gradient != nil {
		put["gradient"] = gradientPut(*b.Gradient)
	}
	return put
}

// v2Params are the attributes a 400's description may name, by the words a
// v2 property path has for them.
var v2Params = []struct{ word, param string }{
	{"effect", "effect"}, {"powerup", "powerup"}, {"gradient", "gradient"}, {"speed", "speed"}, {"mirek", "ct"}, {"color_temperature", "ct"}, {"xy", "xy"}, {"color", "xy"},
	{"brightness", "bri"}, {"dimming", "bri"}, {"duration", "transitiontime"}, {"dynamics", "transitiontime"},
}

// refusalsOf reads a 400 attribute by attribute where its descriptions
// name the attributes (v2 has no error addresses): those are refused with
// error 7, like v1's per-attribute errors, and nothing else was applied
// (the bridge refused the command). ok is false when no description names
// a sent attribute: then the request as a whole was refused.
func refusalsOf(sent model.StateBody, ans v2Answer) (Result, bool) {
	var res Result
	seen := map[string]bool{}
	for _, desc := range ans.descriptions() {
		lower := strings.ToLower(desc)
		for _, p := range v2Params {
			if strings.Contains(lower, p.word) && sent.Value(p.param) != "" && !seen[p.param] {
				seen[p.param] = true
				res.Refused = append(res.Refused, Refusal{Param: p.param, Type: TypeInvalidValue, Description: desc})
				break
			}
		}
	}
	return res, len(res.Refused) > 0
}

// Groups lists the v1 groups (temporary groups are v1 groups).
func (c *v2Client) Groups(ctx context.Context) (map[string]string, error) {
	var raw []byte
	if err := c.v1(ctx, "GetGroups", http.MethodGet, "/api/"+c.user+"/groups", nil, &raw); err != nil {
		return nil, err
	}
	return decodeGroupNames(http.StatusOK, raw)
}

// CreateGroup creates a v1 LightGroup.
func (c *v2Client) CreateGroup(ctx context.Context, name string, lightIDs []string) (string, error) {
	var raw []byte
	if err := c.v1(ctx, "CreateGroup", http.MethodPost, "/api/"+c.user+"/groups",
		map[string]any{"name": name, "lights": lightIDs, "type": "LightGroup"}, &raw); err != nil {
		return "", err
	}
	return decodeCreated(raw)
}

// SetGroupState sets group 0 through bridge_home's grouped_light, a room
// or zone through its own (v2groups.go), and a temporary group through v1.
func (c *v2Client) SetGroupState(ctx context.Context, id string, body model.StateBody) (Result, error) {
	if _, _, grouped, ok := c.store.groupByV1(id); ok {
		if grouped == "" {
			return Result{}, &BridgeError{Type: TypeNotAvailable, Description: fmt.Sprintf("room or zone %s has no lights to command", id)}
		}
		return c.put(ctx, "SetGroupState", "/clip/v2/resource/grouped_light/"+grouped, body, nil)
	}
	if id == "0" {
		rid, ok := c.store.homeGroupedLight()
		if !ok {
			if _, err := c.readAll(ctx); err != nil {
				return Result{}, err
			}
			if rid, ok = c.store.homeGroupedLight(); !ok {
				return Result{}, &BridgeError{Type: TypeNotAvailable, Description: "the bridge has no bridge_home grouped_light"}
			}
		}
		return c.put(ctx, "SetGroupState", "/clip/v2/resource/grouped_light/"+rid, body, nil)
	}
	var raw []byte
	if err := c.v1(ctx, "SetGroupState", http.MethodPut, "/api/"+c.user+"/groups/"+id+"/action", body, &raw); err != nil {
		return Result{}, err
	}
	return decodeAnswer(http.StatusOK, raw, body)
}

// DeleteGroup deletes a room or zone the store holds through CLIP v2, and
// any other group (a temporary one) through v1; one already gone is
// success, and so is one on a bridge without v1 (no temporary group can
// be there).
func (c *v2Client) DeleteGroup(ctx context.Context, id string) error {
	if rid, rtype, _, ok := c.store.groupByV1(id); ok {
		return c.deleteRoom(ctx, rid, rtype)
	}
	var raw []byte
	if err := c.v1(ctx, "DeleteGroup", http.MethodDelete, "/api/"+c.user+"/groups/"+id, nil, &raw); err != nil {
		if errors.As(err, &V1GoneError{}) {
			return nil
		}
		return err
	}
	if _, err := decodeAnswer(http.StatusOK, raw, model.StateBody{}); ErrorType(err) != TypeNotAvailable {
		return err
	}
	return nil
}

// errNotV2 is what a bridge without CLIP v2 answers (404 on the stream or
// the resource root: aiohue's "not a v2 bridge").
var errNotV2 = errors.New("the bridge does not serve CLIP v2")
