package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Client is the port between the adapter and one bridge: what Tether asks
// of a bridge, in Tether's own types, so nothing past this file depends on
// how a bridge is spoken to. client_v1.go implements it for the v1 API
// (plain HTTP); a CLIP v2 client is a second implementation, and
// the cache takes its lights from whichever produces them.
//
// Units are Tether's, which are the v1 API's: bri 1-254, ct in mireds, xy
// in CIE 1931, hue 0-65535, sat 0-254, transitiontime in 100 ms.
type Client interface {
	// Lights reads every light with its capabilities and the state fields
	// the bridge reports.
	Lights(ctx context.Context) ([]Light, error)
	// Config reads the bridge's identity, and whether it knows the user.
	Config(ctx context.Context) (BridgeConfig, error)
	// Pair asks for a username and a client key; it succeeds only in the
	// link-button window.
	Pair(ctx context.Context, deviceType string) (Credentials, error)
	// SetLightState sends a command to one light. The error is for the
	// request as a whole (unreachable, refused user, overloaded); the
	// Result says which attributes the bridge accepted and refused.
	SetLightState(ctx context.Context, id string, body StateBody) (Result, error)
	// Groups: one command for many lights (a budget of its own).
	Groups(ctx context.Context) (map[string]string, error) // id -> name
	CreateGroup(ctx context.Context, name string, lightIDs []string) (string, error)
	SetGroupState(ctx context.Context, id string, body StateBody) (Result, error)
	DeleteGroup(ctx context.Context, id string) error
}

// Read is one read of a bridge's lights, as of At. An event stream hears
// of each light at its own time (LightAt): a command the bridge accepted
// after that is not taken as read back. Full: everything was read, not
// Only what an event named.
type Read struct {
	Lights  []Light
	At      time.Time
	LightAt map[string]time.Time
	Full    bool
}

// Light is one bulb as its bridge describes it.
type Light struct {
	ID   string
	Name string
	// Type is the bridge's light type ("Extended color light") and ModelID
	// the product's model ("LCT015").
	Type         string
	ModelID      string
	Capabilities Capabilities
	State        LightState
}

// LightState is what the bridge reports of a bulb. A nil field is one the
// bridge does not report for it: unknown, never a reason to send.
type LightState struct {
	On        bool
	Reachable bool
	Bri       *int
	Hue       *int
	Sat       *int
	XY        *[2]float64
	CT        *int
	// ColorMode is the colour setting last used (xy, ct, hs); empty when
	// not reported.
	ColorMode string
}

// Capabilities is what a bulb can show.
type Capabilities struct {
	// Dimmable: it takes a brightness.
	Dimmable bool
	// Color: it takes xy (and hue/saturation, through HueSat or as xy).
	Color bool
	// HueSat: the bridge takes hue/saturation for it (v1 colour bulbs).
	// CLIP v2 has only xy, so a spec's hue/saturation goes as xy (hsxy.go).
	HueSat bool
	// ColorTemperature is its range in mireds; nil when it has none.
	ColorTemperature *MiredRange
	// Gamut is the triangle of colours it can show; nil when unknown (then
	// xy is sent as written, and the bridge maps it).
	Gamut *Gamut
}

// MiredRange is a colour-temperature range, inclusive.
type MiredRange struct{ Min, Max int }

// Gamut is a triangle in CIE xy: the colours a bulb can show.
type Gamut struct {
	Type             string // A, B, C or other
	Red, Green, Blue [2]float64
}

// Credentials are what pairing issues: the username (CLIP v2's
// hue-application-key) and the client key (only the Entertainment API
// uses it; kept beside the username so that nothing needs pairing again).
type Credentials struct {
	Username  string
	ClientKey string
}

// BridgeConfig is a bridge's identity.
type BridgeConfig struct {
	BridgeID   string
	Name       string
	APIVersion string
	// Authorized is false when the bridge does not know the user: it
	// answers its public config to anyone.
	Authorized bool
}

// Result is a bridge's answer to a command, attribute by attribute.
type Result struct {
	// Accepted holds the attributes the bridge answered success for, with
	// the value it echoed (which may differ from what was sent).
	Accepted StateBody
	// Refused holds the attributes it refused.
	Refused []Refusal
}

// Refusal is one attribute a bridge refused (parameter not available,
// invalid value, device off).
type Refusal struct {
	Param       string // bri, xy, ct, hue, sat, on, transitiontime
	Type        int    // the bridge's error type
	Description string
}

func (r Refusal) String() string {
	return fmt.Sprintf("%s (error %d: %s)", r.Param, r.Type, r.Description)
}

// BridgeError is an error a bridge answered for a request as a whole.
type BridgeError struct {
	Type        int
	Address     string
	Description string
}

// Error bounds what the bridge wrote (200 characters of its description,
// 100 of its address): the message ends up in a condition and an event.
func (e *BridgeError) Error() string {
	return fmt.Sprintf("ERROR %d [%.100s]: %.200q", e.Type, e.Address, e.Description)
}

// StateBody is a command: only the attributes to change. On is always set,
// so a brightness or colour change on a light that is off carries on:true
// (the bridge answers error 201 otherwise). The JSON is the v1 wire form.
type StateBody struct {
	On             *bool       `json:"on,omitempty"`
	Bri            *int        `json:"bri,omitempty"`
	Hue            *int        `json:"hue,omitempty"`
	Sat            *int        `json:"sat,omitempty"`
	XY             *[2]float64 `json:"xy,omitempty"`
	CT             *int        `json:"ct,omitempty"`
	TransitionTime *int        `json:"transitiontime,omitempty"`
}

// Key is the body as the bridge receives it, to compare bodies by value.
func (b StateBody) Key() string {
	data, _ := json.Marshal(b) // plain values: cannot fail
	return string(data)
}

// Without returns the body without the named attributes.
func (b StateBody) Without(params ...string) StateBody {
	for _, p := range params {
		switch p {
		case "on":
			b.On = nil
		case "bri":
			b.Bri = nil
		case "hue":
			b.Hue = nil
		case "sat":
			b.Sat = nil
		case "xy":
			b.XY = nil
		case "ct":
			b.CT = nil
		case "transitiontime":
			b.TransitionTime = nil
		}
	}
	return b
}

// Only returns the body with only the named attributes.
func (b StateBody) Only(params ...string) StateBody {
	var drop []string
	for _, p := range b.Params() {
		if !slices.Contains(params, p) {
			drop = append(drop, p)
		}
	}
	return b.Without(drop...)
}

// fields are the body's attributes by parameter name; nil ones are not set.
func (b StateBody) fields() map[string]any {
	return map[string]any{"on": b.On, "bri": b.Bri, "hue": b.Hue, "sat": b.Sat, "xy": b.XY, "ct": b.CT,
		"transitiontime": b.TransitionTime}
}

// Params lists the attributes the body sets.
func (b StateBody) Params() []string {
	var out []string
	for p, v := range b.fields() {
		if !isNil(v) {
			out = append(out, p)
		}
	}
	return out
}

// Value is one attribute's value as JSON, "" when the body leaves it out.
func (b StateBody) Value(param string) string {
	v, ok := b.fields()[param]
	if !ok || isNil(v) {
		return ""
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// Merged is b with the attributes next sets replaced.
func (b StateBody) Merged(next StateBody) StateBody {
	// A bulb shows one colour mode: a colour set later replaces the modes
	// set before it (hue and sat are one mode, and may come one at a time).
	// Kept, an earlier ct would outlive a later xy on a bridge that stops
	// reporting ct in xy mode (CLIP v2: mirek null), and read as the state.
	switch {
	case next.XY != nil:
		b = b.Without("ct", "hue", "sat")
	case next.CT != nil:
		b = b.Without("xy", "hue", "sat")
	case next.Hue != nil || next.Sat != nil:
		b = b.Without("xy", "ct")
	}
	if next.On != nil {
		b.On = next.On
	}
	if next.Bri != nil {
		b.Bri = next.Bri
	}
	if next.Hue != nil {
		b.Hue = next.Hue
	}
	if next.Sat != nil {
		b.Sat = next.Sat
	}
	if next.XY != nil {
		b.XY = next.XY
	}
	if next.CT != nil {
		b.CT = next.CT
	}
	if next.TransitionTime != nil {
		b.TransitionTime = next.TransitionTime
	}
	return b
}

func isNil(v any) bool {
	switch p := v.(type) {
	case *bool:
		return p == nil
	case *int:
		return p == nil
	case *[2]float64:
		return p == nil
	}
	return v == nil
}
