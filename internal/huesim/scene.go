package huesim

import (
	"encoding/json"
	"time"
)

// A scene as the bridge stores it: its lights' states and, for CLIP v2,
// its palette and options (v2sceneoptions.go). The v1 API over scenes is
// scenes.go, the v2 one v2scenes.go.

// Scene is a scene stored on the bridge.
type Scene struct {
	ID      string
	Name    string
	Type    string
	Group   string // GroupScene: the group it belongs to
	Lights  []string
	Owner   string // the whitelist user that created it
	Recycle bool
	AppData *SceneAppData
	// States are the lightstates by light id.
	States map[string]SceneState
	// V2 is what a CLIP v2 scene holds besides its lightstates
	// (v2sceneoptions.go).
	V2          SceneV2
	LastUpdated time.Time
	lastUsed    time.Time
}

// SceneAppData is a scene's application data: "data" up to 16 characters.
type SceneAppData struct {
	Version int    `json:"version"`
	Data    string `json:"data"`
}

// SceneState is one light's stored state: up to one colour (xy, hs or ct),
// brightness, on, effect and transitiontime.
type SceneState struct {
	On             *bool       `json:"on,omitempty"`
	Bri            *int        `json:"bri,omitempty"`
	Hue            *int        `json:"hue,omitempty"`
	Sat            *int        `json:"sat,omitempty"`
	XY             *[2]float64 `json:"xy,omitempty"`
	CT             *int        `json:"ct,omitempty"`
	Effect         *string     `json:"effect,omitempty"`
	TransitionTime *int        `json:"transitiontime,omitempty"`
}

// sceneStateKeys are the attributes a lightstate keeps; others are ignored,
// as the bridge ignores unknown parameters outside PUT commands (error 6's
// description in the v1 error list).
var sceneStateKeys = []string{"on", "bri", "hue", "sat", "xy", "ct", "effect", "transitiontime"}

// parseSceneState validates one lightstate; the error names the attribute.
func parseSceneState(raw json.RawMessage) (SceneState, string, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return SceneState{}, "", false
	}
	var st SceneState
	for _, k := range sceneStateKeys {
		v, ok := fields[k]
		if !ok {
			continue
		}
		switch k {
		case "on":
			var on bool
			if json.Unmarshal(v, &on) != nil {
				return SceneState{}, k, false
			}
			st.On = &on
		case "xy":
			var xy []float64
			if json.Unmarshal(v, &xy) != nil || len(xy) != 2 || !unit(xy[0]) || !unit(xy[1]) {
				return SceneState{}, k, false
			}
			st.XY = &[2]float64{xy[0], xy[1]}
		case "effect":
			var e string
			if json.Unmarshal(v, &e) != nil || (e != "none" && e != "colorloop") {
				return SceneState{}, k, false
			}
			st.Effect = &e
		default:
			n, ok := intValue(v, intRanges[k])
			if !ok {
				return SceneState{}, k, false
			}
			switch k {
			case "bri":
				st.Bri = &n
			case "hue":
				st.Hue = &n
			case "sat":
				st.Sat = &n
			case "ct":
				st.CT = &n
			case "transitiontime":
				st.TransitionTime = &n
			}
		}
	}
	return st, "", true
}

// body is the lightstate as a state PUT body, to apply it as a group
// action applies a state (each bulb takes what it can).
func (st SceneState) body() map[string]json.RawMessage {
	raw, _ := json.Marshal(st)
	var out map[string]json.RawMessage
	_ = json.Unmarshal(raw, &out)
	return out
}
