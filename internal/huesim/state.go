// Package huesim is a Philips Hue bridge simulator speaking the v1 REST API
// and CLIP v2 (over HTTPS, with its event stream, rooms, zones,
// grouped_lights and scenes; a Bridge Pro mode, pro.go, and a firmware
// without v1, v1off.go): the JSON shapes, success/error arrays, link-button
// pairing, the documented rate limits, and test controls (offline, slow,
// unreachable bulbs, changes made "from the Hue app"). Tether's tests and
// demo use it in place of a real bridge; its fidelity is checked with huego
// and node-hue-api (v1) and openhue-go (CLIP v2, foreignv2).
//
// Its files are layered: each refers only to files of its own layer or
// below, from the bottom up:
//   - the bulb model: lightstate.go (LightState and what a state command
//     does to it), models.go, hsxy.go, gamut.go, color.go, and the CLIP
//     v2 features effects.go, gradient.go, powerup.go, dynamics.go;
//   - the bridge's state: state.go (Bridge, Options, Light), with its
//     parts' data in group.go, scene.go, v2sceneoptions.go,
//     requestlog.go, network.go, watch.go, eventhub.go, pro.go, v2ids.go;
//   - request plumbing: apierror.go and commands.go (v1), v2request.go
//     and v2lightput.go (CLIP v2);
//   - the features: lights.go, config.go, groups.go, rooms.go, scenes.go,
//     v1off.go; proresources.go, v2rooms.go, v2scenes.go;
//   - what names the features: handlers.go (the v1 routes),
//     v2resources.go (the CLIP v2 view), v2events.go (its event stream),
//     v2handlers.go (the CLIP v2 routes), server.go and v2tls.go (the two
//     ports);
//   - test controls and the web page: controls.go, controlapi.go,
//     handeffect.go, mdns.go, web*.go, sse.go.
package huesim

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Light is one bulb known to the bridge.
type Light struct {
	ID       string
	Name     string
	UniqueID string
	// Model is its model id (a key of Models).
	Model string
	State LightState
	// omit are state fields GET /lights leaves out although the type has
	// them, as some bridges do for some bulbs: diyHue, a bridge others
	// wrote that the Hue app drives, reports an LCT001's state without ct
	// although its capabilities give a ct range (diyhue/diyHue,
	// BridgeEmulator/lights/light_types.py).
	omit map[string]bool
	// strict refuses a colour temperature beyond the bulb's range with
	// error 7 instead of clamping it.
	strict bool
}

func (l *Light) model() Model { return Models[l.Model] }

// ShowsHueSat reports whether the bulb shows the colour hue/sat select:
// in colour (hs or xy mode) at the xy they give on its gamut. The hue/sat
// a bridge reports back are derived from that xy and need not equal what
// was sent, so a judge of "the bulb shows its spec" compares this way.
func (l Light) ShowsHueSat(hue, sat int) bool {
	st := l.State
	return (st.ColorMode == "hs" || st.ColorMode == "xy") && st.XY == HueSatXY(l.Model, hue, sat)
}

// Options configures a simulated bridge.
type Options struct {
	// Lights are the names of the bulbs, given ids "1", "2", ... in order.
	Lights []string
	// Models gives a bulb (by name) a model id of Models; the others are
	// DefaultModel.
	Models map[string]string
	// Usernames are accepted without pairing (a bridge paired earlier).
	Usernames []string
	// CommandsPerSecond and Burst shape the light-command token bucket;
	// defaults 10 and 10, like a real bridge's documented budget.
	CommandsPerSecond float64
	Burst             int
	// LinkWindow is how long a link-button press allows pairing; default 30s.
	LinkWindow time.Duration
	// BridgeID (random when empty) and Name are reported by /config.
	BridgeID string
	Name     string
	// CertificateName is the common name of the HTTPS certificate; empty
	// for the bridge id in lower case, as a real bridge's. Another name
	// makes a bridge whose certificate does not match its id.
	CertificateName string
	// V1Off makes a bridge without the v1 API (v1off.go): 404 on every
	// v1 path but pairing and the public config, on both ports.
	V1Off bool
	// Pro makes a Hue Bridge Pro (BSB003, pro.go): HTTPS only (301 from
	// plain HTTP), its identity, certificate shape and newer resources.
	Pro bool
	// ProChain is how a Pro's certificate chains to the test CA (pro.go):
	// issued by it directly (the default) or through an intermediate.
	ProChain ProChain
}

// Bridge is the simulated bridge's state. Its methods are safe for
// concurrent use; Handler serves the v1 API over it.
type Bridge struct {
	mu sync.Mutex
	// applying is held by each command from its effect to its entry in
	// the command log, and shared by the looks a test takes (lockView),
	// so that whoever sees a command's effect finds the command logged.
	applying  sync.RWMutex
	opts      Options
	lights    map[string]*Light
	users     map[string]whitelistEntry
	linkUntil time.Time
	limits    *limits
	groups    map[string]*Group // created through POST /groups
	// groupSerial is the last group's serial (groups.go).
	groupSerial int
	scenes      map[string]*Scene // scenes.go
	recalled    map[string]string // group id -> the scene last recalled on it
	commands    []Command
	gets        map[string]int
	conn        connectivity
	watch       watchers
	// The CLIP v2 API's requests in flight and those refused with 429
	// (v2request.go), and its event stream (v2events.go).
	v2InFlight atomic.Int32
	v2Refused  atomic.Int32
	events     eventHub
	// credentialed counts the requests that carried a username (network.go).
	credentialed atomic.Int64
	// v1Requests are the requests on v1 paths (v1off.go).
	v1Requests []V1Request
	// The Bridge Pro's plain-HTTP requests and changing resources (pro.go).
	plain            []PlainRequest
	proUpdateState   string
	proFutureVersion int
}

type whitelistEntry struct {
	Name     string `json:"name"`
	Created  string `json:"create date"`
	LastUsed string `json:"last use date"`
}

// APIVersion is the v1 API version the simulator claims.
const APIVersion = "1.65.0"

// New creates a bridge with the given lights, all off and reachable.
func New(opts Options) *Bridge {
	if opts.CommandsPerSecond <= 0 {
		opts.CommandsPerSecond = 10
	}
	if opts.Burst <= 0 {
		opts.Burst = 10
	}
	if opts.LinkWindow <= 0 {
		opts.LinkWindow = 30 * time.Second
	}
	if opts.BridgeID == "" {
		// Each bridge its own id, as real ones have: Tether keys its
		// bridge sessions by it.
		prefix := "001788FFFE"
		if opts.Pro {
			prefix = proIDPrefix
		}
		opts.BridgeID = prefix + strings.ToUpper(randomHex(3))
	}
	if opts.Name == "" {
		opts.Name = "Tether Hue Simulator"
	}
	b := &Bridge{
		opts:   opts,
		lights: map[string]*Light{},
		users:  map[string]whitelistEntry{},
		limits: newLimits(opts.CommandsPerSecond, opts.Burst),
		groups: map[string]*Group{},
		// The Pro's software update state (pro.go).
		proUpdateState: "no_update",
		gets:           map[string]int{},
		conn:           newConnectivity(),
	}
	b.scenes, b.recalled = map[string]*Scene{}, map[string]string{}
	for i, name := range opts.Lights {
		id := strconv.Itoa(i + 1)
		b.lights[id] = newLight(id, name, opts.Models[name])
	}
	now := timestamp(time.Now())
	for _, u := range opts.Usernames {
		b.users[u] = whitelistEntry{Name: "tether#preset", Created: now, LastUsed: now}
	}
	return b
}

// newLight is a bulb of the model (DefaultModel when "" or unknown), off
// and reachable, in the state a bulb has after power-on.
func newLight(id, name, model string) *Light {
	if _, known := Models[model]; !known {
		model = DefaultModel
	}
	n, _ := strconv.Atoi(id)
	mode := "ct" // a white bulb reports no mode: this one is never shown
	if m := Models[model]; m.colour() && !m.colourTemperature() {
		mode = "xy" // a Color light has no ct to be in
	}
	return &Light{
		ID:       id,
		Name:     name,
		Model:    model,
		UniqueID: fmt.Sprintf("00:17:88:01:00:%02x:%02x:%02x-0b", n>>16&0xff, n>>8&0xff, n&0xff),
		State: LightState{
			Bri: 127, Hue: 8418, Sat: 140, Effect: "none", XY: [2]float64{0.4573, 0.41},
			CT: 366, Alert: "none", ColorMode: mode, Mode: "homeautomation", Reachable: true,
		},
	}
}

// sortedLightIDs returns light ids in numeric order. Callers hold b.mu.
func (b *Bridge) sortedLightIDs() []string {
	ids := make([]string, 0, len(b.lights))
	for id := range b.lights {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, _ := strconv.Atoi(ids[i])
		c, _ := strconv.Atoi(ids[j])
		return a < c
	})
	return ids
}

// timestamp formats t as the bridge does (UTC, no zone suffix).
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }

func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}
