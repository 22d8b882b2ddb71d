package huesim

import (
	"fmt"
	"slices"
)

// Light effects, a CLIP v2 feature only (the v1 API has its own "effect",
// none or colorloop, which is another thing): a light that has them carries
// an effects object {effect_values, status, status_values}, and one that
// has none carries no effects object at all; a client sets one with
// PUT {"effects": {"effect": "<name>"}} (CLIP v2 API reference, "light",
// https://developers.meethue.com/develop/hue-api-v2/api-reference/#resource_light;
// openhue/openhue-api, src/light/schemas, which openhue-go v0.4.0 generates
// its LightGet.Effects and LightPut.Effects from).
//
// Which bulb lists which values is not in the sources at hand: a Bridge
// Pro's dump (home-assistant-libs/aiohue, tests/fixtures/v2_resources.json)
// shows the Bloom and the old lightstrip without an effects object. So the
// simulator gives the one model it says has effects (LCA001) the values
// openhue-go v0.4.0 names (SupportedEffects), and its older models (LCT015
// and the rest) none: a choice, not a record of those products.

// documentedEffects are the effect values openhue-go v0.4.0 defines
// (SupportedEffects), no_effect first as bridges list it. Newer bridges
// list more (underwater, cosmos, sunbeam, enchant: aiohue's models).
var documentedEffects = []string{"no_effect", "candle", "fire", "prism", "sparkle", "opal", "glisten"}

// noEffect is the status of a light with effects that plays none.
const noEffect = "no_effect"

// hasEffects reports whether the model has an effects object.
func (m Model) hasEffects() bool { return m.Effects != nil }

// effectsJSON is the light's effects object: what it can play, and what it
// plays (status).
func effectsJSON(m Model, st LightState) map[string]any {
	status := st.V2Effect
	if status == "" {
		status = noEffect
	}
	return map[string]any{"effect_values": m.Effects, "status": status, "status_values": m.Effects}
}

// effectRefusal says why a v2 bridge answers 400 to an effect, "" when the
// light lists it. A light without effects refuses any (the words are the
// simulator's own: real ones are not recorded).
func effectRefusal(m Model, effect string) string {
	if !slices.Contains(m.Effects, effect) {
		return fmt.Sprintf("invalid value for effects.effect: %q is not one of the light's effect_values", effect)
	}
	return ""
}
