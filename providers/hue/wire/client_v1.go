package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"
)

// The v1 implementation of the Client port, the only file that knows the
// v1 wire format. Every call is plain HTTP through the client's own
// http.Client: huego v1.2.1 (the v1 library there is) sends through
// http.DefaultClient, which follows redirects (carrying the username to
// wherever they point), and reads whole answers however large
// (bounds.go), and it loses what the adapter needs:
//   - GET /lights: huego's Light has no capabilities and its State cannot
//     tell a field the bridge left out from a zero (a white bulb's "no xy"
//     from xy [0, 0]).
//   - PUT .../state and .../action: huego returns only the first error of
//     the answer, dropping the attributes the bridge accepted, and cannot
//     send hue 0, sat 0 or transitiontime 0 (omitempty).
// huego stays the foreign client the simulator is checked with
// (internal/huesim).

// DefaultCallTimeout bounds every call to a bridge, so that a bridge that
// accepts the connection and never answers cannot hold a worker forever.
const DefaultCallTimeout = 5 * time.Second

// v1Client is Client over the v1 API, with a deadline on every call.
type v1Client struct {
	baseURL string
	user    string
	timeout time.Duration
	http    *http.Client
	sizes   answerSizes
}

// NewClient returns a v1 Client for the bridge at address (host, host:port
// or http(s) URL) authenticated as user ("" before pairing).
func NewClient(address, user string, timeout time.Duration) Client {
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	base := strings.TrimSuffix(address, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		base = "http://" + base
	}
	return &v1Client{
		baseURL: base,
		user:    user,
		timeout: timeout,
		http:    &http.Client{Timeout: timeout, CheckRedirect: refuseRedirects},
	}
}

// bounded runs f with the call deadline, hides the username in its error,
// and tells CountCall of the call.
func (c *v1Client) bounded(ctx context.Context, operation string, f func(context.Context) error) (err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	defer func() { CountCall(operation, err) }()
	return redact(f(ctx), c.user)
}

// Lights is a plain GET /lights, decoded field by field.
func (c *v1Client) Lights(ctx context.Context) (lights []model.Light, err error) {
	err = c.bounded(ctx, "GetLights", func(ctx context.Context) error {
		status, body, err := c.do(ctx, http.MethodGet, "/lights", nil)
		if err != nil {
			return err
		}
		lights, err = decodeLights(status, body)
		return err
	})
	return lights, err
}

// Config reads the bridge's identity. Without a user it is the public
// GET /api/config, which sends no username; with one, GET
// /api/<user>/config, which lists the whitelist only to users the bridge
// knows.
func (c *v1Client) Config(ctx context.Context) (cfg BridgeConfig, err error) {
	err = c.bounded(ctx, "GetConfig", func(ctx context.Context) error {
		path := "/api/config"
		if c.user != "" {
			path = "/api/" + c.user + "/config"
		}
		status, body, err := c.request(ctx, http.MethodGet, path, nil)
		if err != nil {
			return err
		}
		cfg, err = decodeConfig(status, body)
		return err
	})
	return cfg, err
}

// decodeConfig reads /config: Authorized when it lists the whitelist.
func decodeConfig(status int, body []byte) (BridgeConfig, error) {
	var raw struct {
		Name       string          `json:"name"`
		BridgeID   string          `json:"bridgeid"`
		APIVersion string          `json:"apiversion"`
		Whitelist  json.RawMessage `json:"whitelist"`
	}
	if err := json.Unmarshal(body, &raw); err != nil || status >= 300 {
		if _, err := decodeAnswer(status, body, model.StateBody{}); err != nil {
			return BridgeConfig{}, err
		}
		return BridgeConfig{}, otherJSON(status, "a bridge's config")
	}
	authorized := len(raw.Whitelist) > 0 && string(raw.Whitelist) != "null"
	return BridgeConfig{BridgeID: NormalizeBridgeID(raw.BridgeID), Name: raw.Name, APIVersion: raw.APIVersion, Authorized: authorized}, nil
}

// Pair asks for a username with generateclientkey, as v2 bridges expect
// (v1 bridges since API 1.22 answer it too).
func (c *v1Client) Pair(ctx context.Context, deviceType string) (cred Credentials, err error) {
	err = c.bounded(ctx, "CreateUser", func(ctx context.Context) error {
		data, _ := json.Marshal(map[string]any{"devicetype": deviceType, "generateclientkey": true})
		_, body, err := c.request(ctx, http.MethodPost, "/api", data)
		if err != nil {
			return err
		}
		cred, err = decodePairing(body)
		return err
	})
	return cred, err
}

// decodePairing reads POST /api's answer: the username and client key, or
// the bridge's error (101 while the link button is not pressed).
func decodePairing(raw []byte) (Credentials, error) {
	var items []struct {
		Success *struct {
			Username  string `json:"username"`
			ClientKey string `json:"clientkey"`
		} `json:"success"`
	}
	if json.Unmarshal(raw, &items) == nil && len(items) == 1 && items[0].Success != nil && items[0].Success.Username != "" {
		return Credentials{Username: items[0].Success.Username, ClientKey: items[0].Success.ClientKey}, nil
	}
	if _, err := decodeAnswer(http.StatusOK, raw, model.StateBody{}); err != nil {
		return Credentials{}, err
	}
	return Credentials{}, otherJSON(http.StatusOK, "a pairing answer")
}

// SetLightState is a plain PUT of body to the light's state.
func (c *v1Client) SetLightState(ctx context.Context, id string, body model.StateBody) (res Result, err error) {
	if _, err := strconv.Atoi(id); err != nil {
		return Result{}, fmt.Errorf("light id %q is not a number", id)
	}
	err = c.bounded(ctx, "SetLightState", func(ctx context.Context) error {
		res, err = c.putState(ctx, "/lights/"+id+"/state", body)
		return err
	})
	return res, err
}

// Groups lists the bridge's groups (not group 0) as id -> name.
func (c *v1Client) Groups(ctx context.Context) (groups map[string]string, err error) {
	err = c.bounded(ctx, "GetGroups", func(ctx context.Context) error {
		status, body, err := c.do(ctx, http.MethodGet, "/groups", nil)
		if err != nil {
			return err
		}
		groups, err = decodeGroupNames(status, body)
		return err
	})
	return groups, err
}

// decodeGroupNames reads GET /groups as id -> name.
func decodeGroupNames(status int, body []byte) (map[string]string, error) {
	var raw map[string]struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(body, &raw); err != nil || status >= 300 {
		if _, err := decodeAnswer(status, body, model.StateBody{}); err != nil {
			return nil, err
		}
		return nil, otherJSON(status, "a Hue list")
	}
	out := make(map[string]string, len(raw))
	for id, g := range raw {
		out[id] = g.Name
	}
	return out, nil
}

// CreateGroup creates a LightGroup of the lights and returns its id.
func (c *v1Client) CreateGroup(ctx context.Context, name string, lightIDs []string) (id string, err error) {
	err = c.bounded(ctx, "CreateGroup", func(ctx context.Context) error {
		data, _ := json.Marshal(map[string]any{"name": name, "lights": lightIDs, "type": "LightGroup"})
		_, body, err := c.do(ctx, http.MethodPost, "/groups", data)
		if err != nil {
			return err
		}
		id, err = decodeCreated(body)
		return err
	})
	return id, err
}

// decodeCreated reads the id of a group a POST created.
func decodeCreated(raw []byte) (string, error) {
	var items []struct {
		Success struct {
			ID string `json:"id"`
		} `json:"success"`
	}
	if json.Unmarshal(raw, &items) == nil && len(items) == 1 && items[0].Success.ID != "" {
		return items[0].Success.ID, nil
	}
	if _, err := decodeAnswer(http.StatusOK, raw, model.StateBody{}); err != nil {
		return "", err
	}
	return "", otherJSON(http.StatusOK, "a created group's id")
}

// SetGroupState is a plain PUT of body to every light of the group.
func (c *v1Client) SetGroupState(ctx context.Context, id string, body model.StateBody) (res Result, err error) {
	if _, err := strconv.Atoi(id); err != nil {
		return Result{}, fmt.Errorf("group id %q is not a number", id)
	}
	err = c.bounded(ctx, "SetGroupState", func(ctx context.Context) error {
		res, err = c.putState(ctx, "/groups/"+id+"/action", body)
		return err
	})
	return res, err
}

// DeleteGroup deletes a group; one that is already gone is success.
func (c *v1Client) DeleteGroup(ctx context.Context, id string) error {
	if _, err := strconv.Atoi(id); err != nil {
		return fmt.Errorf("group id %q is not a number", id)
	}
	return c.bounded(ctx, "DeleteGroup", func(ctx context.Context) error {
		status, body, err := c.do(ctx, http.MethodDelete, "/groups/"+id, nil)
		if err != nil {
			return err
		}
		if _, err := decodeAnswer(status, body, model.StateBody{}); ErrorType(err) != TypeNotAvailable {
			return err
		}
		return nil
	})
}

// putState PUTs body to a light's state or a group's action (path below
// /api/<user>) and reads the answer attribute by attribute.
func (c *v1Client) putState(ctx context.Context, path string, body model.StateBody) (Result, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return Result{}, err
	}
	status, answer, err := c.do(ctx, http.MethodPut, path, data)
	if err != nil {
		return Result{}, err
	}
	return decodeAnswer(status, answer, body)
}

// do sends one request below /api/<user> and returns the status and body.
func (c *v1Client) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	return c.request(ctx, method, "/api/"+c.user+path, body)
}

// request sends one request (path from the root) and reads its answer,
// within maxAnswerBytes, refusing a redirect.
func (c *v1Client) request(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	if err := refusedRedirect(res); err != nil {
		return 0, nil, err
	}
	answer, err := c.sizes.read(method, path, res.Body)
	if err != nil {
		return res.StatusCode, nil, err
	}
	return res.StatusCode, answer, checkJSON(res.StatusCode, res.Header.Get("Content-Type"), answer)
}

// v1Light is a light of GET /lights as the wire has it.
type v1Light struct {
	Name         string  `json:"name"`
	Type         string  `json:"type"`
	ModelID      string  `json:"modelid"`
	State        v1State `json:"state"`
	Capabilities struct {
		Control v1Control `json:"control"`
	} `json:"capabilities"`
}

// v1State is a light's state as the bridge reports it, field by field: a
// field it leaves out, gives as null or in another shape than the v1 API
// documents stays unknown, and the rest of the light is still read.
type v1State struct {
	On        reported[bool]      `json:"on"`
	Reachable reported[bool]      `json:"reachable"`
	ColorMode reported[string]    `json:"colormode"`
	Bri       reported[float64]   `json:"bri"`
	Hue       reported[float64]   `json:"hue"`
	Sat       reported[float64]   `json:"sat"`
	CT        reported[float64]   `json:"ct"`
	XY        reported[[]float64] `json:"xy"`
}

// reported is one field of an answer, ok only when the bridge gave it in
// the shape T: null or another shape reads as not reported, not as an
// error that would pass over the whole object.
type reported[T any] struct {
	value T
	ok    bool
}

func (r *reported[T]) UnmarshalJSON(data []byte) error {
	r.ok = parseReported(data, &r.value)
	return nil
}

// get is the value when reported, else T's zero value.
func (r reported[T]) get() (v T) {
	if r.ok {
		v = r.value
	}
	return v
}

// parseReported reads one JSON value into v, reporting whether it has v's
// shape. A number or a boolean, most of a light's state, is read without
// a decoder of its own; data is one value the answer's decoder has
// already checked, so a number is one strconv reads.
func parseReported(data []byte, v any) bool {
	switch v := v.(type) {
	case *bool:
		*v = string(data) == "true"
		return *v || string(data) == "false"
	case *float64:
		f, err := strconv.ParseFloat(string(data), 64)
		*v = f
		return err == nil
	}
	return string(data) != "null" && json.Unmarshal(data, v) == nil
}

type v1Control struct {
	ColorGamutType string          `json:"colorgamuttype"`
	ColorGamut     json.RawMessage `json:"colorgamut"`
	CT             *struct {
		Min float64 `json:"min"`
		Max float64 `json:"max"`
	} `json:"ct"`
}

// decodeLights reads GET /lights: a map id -> light, or an error array.
// The answer is read in one pass; only when some light in it cannot be
// read (lightsOneByOne) is it read again, light by light.
func decodeLights(status int, body []byte) ([]model.Light, error) {
	var all map[string]v1Light
	err := json.Unmarshal(body, &all)
	if _, wrongShape := err.(*json.UnmarshalTypeError); wrongShape && status < 300 {
		all, err = lightsOneByOne(body)
	}
	if err != nil || status >= 300 {
		if _, err := decodeAnswer(status, body, model.StateBody{}); err != nil {
			return nil, err
		}
		return nil, otherJSON(status, "a Hue list")
	}
	lights := make([]model.Light, 0, len(all))
	for id, l := range all {
		if _, err := strconv.Atoi(id); err != nil {
			continue // not a light id: nothing Tether could address
		}
		lights = append(lights, model.Light{
			ID: id, Name: l.Name, Type: l.Type, ModelID: l.ModelID,
			Capabilities: capabilitiesOf(l.Type, l.Capabilities.Control),
			State:        l.State.model(),
		})
	}
	return lights, nil
}

// lightsOneByOne reads an answer in which some light is not an object of
// the documented shape: each light alone, passing over those that cannot
// be read, so that one does not hide the others.
func lightsOneByOne(body []byte) (map[string]v1Light, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, err
	}
	all := make(map[string]v1Light, len(raw))
	for id, data := range raw {
		var l v1Light
		if json.Unmarshal(data, &l) == nil {
			all[id] = l
		}
	}
	return all, nil
}

// model is the state as the light model has it.
func (s v1State) model() model.LightState {
	out := model.LightState{
		On: s.On.get(), Reachable: s.Reachable.get(), ColorMode: s.ColorMode.get(),
		Bri: wholeNumber(s.Bri), Hue: wholeNumber(s.Hue), Sat: wholeNumber(s.Sat), CT: wholeNumber(s.CT),
	}
	if xy := s.XY.get(); len(xy) == 2 {
		out.XY = &[2]float64{xy[0], xy[1]}
	}
	return out
}

// wholeNumber is a reported number as an int, cut to a whole number; nil
// when not reported or out of an int32's range.
func wholeNumber(f reported[float64]) *int {
	if !f.ok || math.Abs(f.value) > 1<<31 {
		return nil
	}
	v := int(f.value)
	return &v
}

// Light types of the v1 API (compared without case, as hueplusplus and
// fhem do; those libraries also list the "On/off light" and "Dimmable
// plug-in unit" spellings). A type not listed is treated as the most
// capable, as Home Assistant does: nothing is held back from it.
var v1Types = map[string]model.Capabilities{
	"extended color light":    {Dimmable: true, Color: true, ColorTemperature: &model.MiredRange{}},
	"color light":             {Dimmable: true, Color: true},
	"color temperature light": {Dimmable: true, ColorTemperature: &model.MiredRange{}},
	"dimmable light":          {Dimmable: true},
	"dimmable plug-in unit":   {Dimmable: true},
	"on/off plug-in unit":     {},
	"on/off light":            {},
}

// capabilitiesOf reads what a light can show from its type and
// capabilities.control.
func capabilitiesOf(typ string, control v1Control) model.Capabilities {
	c, known := v1Types[strings.ToLower(typ)]
	if !known {
		c = model.Capabilities{Dimmable: true, Color: true, ColorTemperature: &model.MiredRange{}}
	}
	if c.ColorTemperature != nil {
		r := model.MiredRange{Min: minMireds, Max: maxMireds}
		if ct := control.CT; ct != nil && ct.Min > 0 && ct.Max < 65535 && ct.Min < ct.Max {
			r = model.MiredRange{Min: int(math.Max(ct.Min, minMireds)), Max: int(math.Min(ct.Max, maxMireds))}
		}
		c.ColorTemperature = &r
	}
	if c.Color {
		c.Gamut = gamutOf(control)
		c.HueSat = true
	}
	return c
}

// gamutOf is the reported triangle when it is one, else the gamut type's.
func gamutOf(control v1Control) *model.Gamut {
	var points [][]float64
	if json.Unmarshal(control.ColorGamut, &points) == nil && len(points) == 3 {
		var corners [3][2]float64
		valid := true
		for i, p := range points {
			valid = valid && len(p) == 2 && unitInterval(p[0]) && unitInterval(p[1])
			if valid {
				corners[i] = [2]float64{p[0], p[1]}
			}
		}
		g := model.Gamut{Type: control.ColorGamutType, Red: corners[0], Green: corners[1], Blue: corners[2]}
		if valid && g.Area() > 1e-4 {
			return &g
		}
	}
	if g, ok := v1Gamuts[control.ColorGamutType]; ok {
		return &g
	}
	return nil
}

func unitInterval(v float64) bool { return v >= 0 && v <= 1 }

// v1Refusals are the error types a bridge answers for one attribute while
// applying the others of the same command.
var v1Refusals = map[int]bool{
	TypeParameterNotAvailable: true,
	TypeInvalidValue:          true,
	TypeNotModifiable:         true,
	TypeDeviceOff:             true,
}

// decodeAnswer reads a success/error answer array, one entry per attribute:
// successes into Accepted (sent holds the values an echo that cannot be
// read stands for), per-attribute errors into Refused, and the first other
// error as the request's error. A DELETE's success is a string instead
// ("/groups/4 deleted.", "/scenes/<id> deleted": the v1 API documentation's
// answers, as in huego's tests): it accepts no attribute.
func decodeAnswer(status int, body []byte, sent model.StateBody) (Result, error) {
	var items []struct {
		Success successEntry `json:"success"`
		Error   *struct {
			Type        int    `json:"type"`
			Address     string `json:"address"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &items); err != nil {
		return Result{}, otherJSON(status, "a Hue write answer")
	}
	var res Result
	for _, it := range items {
		if e := it.Error; e != nil {
			param := attribute(e.Address)
			if !v1Refusals[e.Type] || param == "" {
				return Result{}, &BridgeError{Type: e.Type, Address: e.Address, Description: e.Description}
			}
			res.Refused = append(res.Refused, Refusal{Param: param, Type: e.Type, Description: e.Description})
		}
		for address, value := range it.Success {
			res.Accepted = accept(res.Accepted, attribute(address), value, sent)
		}
	}
	if status >= 300 {
		return Result{}, &ProtocolError{Detail: fmt.Sprintf("HTTP %d without an error in the body", status)}
	}
	return res, nil
}

// successEntry is an answer's success: the attributes it set, by address,
// or none for a deletion's confirmation (a string).
type successEntry map[string]json.RawMessage

func (e *successEntry) UnmarshalJSON(data []byte) error {
	var confirmation string
	if json.Unmarshal(data, &confirmation) == nil {
		*e = nil
		return nil
	}
	return json.Unmarshal(data, (*map[string]json.RawMessage)(e))
}

// attribute is the attribute an answer's address names
// (/lights/1/state/bri -> bri), or "" when it names none.
func attribute(address string) string {
	i := strings.LastIndex(address, "/")
	if i < 0 || !(strings.HasSuffix(address[:i], "/state") || strings.HasSuffix(address[:i], "/action")) {
		return ""
	}
	return address[i+1:]
}

// accept records one success entry in body.
func accept(body model.StateBody, param string, value json.RawMessage, sent model.StateBody) model.StateBody {
	num := func(fallback *int) *int {
		var f float64
		if json.Unmarshal(value, &f) != nil {
			return fallback
		}
		v := int(f)
		return &v
	}
	switch param {
	case "on":
		var on bool
		if json.Unmarshal(value, &on) != nil {
			body.On = sent.On
		} else {
			body.On = &on
		}
	case "bri":
		body.Bri = num(sent.Bri)
	case "hue":
		body.Hue = num(sent.Hue)
	case "sat":
		body.Sat = num(sent.Sat)
	case "ct":
		body.CT = num(sent.CT)
	case "transitiontime":
		body.TransitionTime = num(sent.TransitionTime)
	case "xy":
		var xy []float64
		if json.Unmarshal(value, &xy) == nil && len(xy) == 2 {
			body.XY = &[2]float64{xy[0], xy[1]}
		} else {
			body.XY = sent.XY
		}
	}
	return body
}
