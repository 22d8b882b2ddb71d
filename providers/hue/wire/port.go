package wire

import (
	"context"
	"fmt"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"
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
	Lights(ctx context.Context) ([]model.Light, error)
	// Config reads the bridge's identity, and whether it knows the user.
	Config(ctx context.Context) (BridgeConfig, error)
	// Pair asks for a username and a client key; it succeeds only in the
	// link-button window.
	Pair(ctx context.Context, deviceType string) (Credentials, error)
	// SetLightState sends a command to one light. The error is for the
	// request as a whole (unreachable, refused user, overloaded); the
	// Result says which attributes the bridge accepted and refused.
	SetLightState(ctx context.Context, id string, body model.StateBody) (Result, error)
	// Groups: one command for many lights (a budget of its own).
	Groups(ctx context.Context) (map[string]string, error) // id -> name
	CreateGroup(ctx context.Context, name string, lightIDs []string) (string, error)
	SetGroupState(ctx context.Context, id string, body model.StateBody) (Result, error)
	DeleteGroup(ctx context.Context, id string) error
}

// Read is one read of a bridge's lights, as of At. An event stream hears
// of each light at its own time (LightAt): a command the bridge accepted
// after that is not taken as read back. Full: everything was read, not
// Only what an event named.
type Read struct {
	Lights  []model.Light
	At      time.Time
	LightAt map[string]time.Time
	Full    bool
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
	// BridgeID is in its one form (NormalizeBridgeID): the session key.
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
	Accepted model.StateBody
	// Refused holds the attributes it refused.
	Refused []Refusal
}

// Refusal is one attribute a bridge refused (parameter not available,
// invalid value, device off).
type Refusal struct {
	Param       string // bri, xy, ct, hue, sat, on, transitiontime, effect, powerup, gradient, speed
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

// CountCall is told of every request a client sends: its operation
// ("GetLights", "SetLightState", ...) and its error, nil on success. The
// adapter layer counts them in tether_external_calls_total; wire itself
// keeps no metrics, so by default it does nothing.
var CountCall = func(operation string, err error) {}
