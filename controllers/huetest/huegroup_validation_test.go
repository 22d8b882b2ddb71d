package huetest

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestHueGroupAndSceneValidation: the API server rejects HueGroups and
// HueScenes it can tell are wrong: empty groups, unknown types, a scene with
// a state for all, scene lights listed twice, ranges, a scene's palette
// past the CLIP v2 limits or empty, a speed past 1, an effect that is no
// name, a gradient of one point. (Whether a scene's
// lights are the group's it cannot tell from one object: the HueScene's
// condition says so, LightNotInGroup.)
func TestHueGroupAndSceneValidation(t *testing.T) {
	c := startHue(t)
	type obj = map[string]any
	object := func(kind string, spec obj) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: obj{
			"apiVersion": "hue.tether.dev/v1alpha1", "kind": kind,
			"metadata": obj{"generateName": "invalid-", "namespace": "entrance"},
			"spec":     spec,
		}}
	}
	group := func(spec obj) *unstructured.Unstructured { return object("HueGroup", spec) }
	scene := func(spec obj) *unstructured.Unstructured { return object("HueScene", spec) }
	ref := obj{"name": "kitchen"}
	one := []any{obj{"name": "a"}}
	cases := []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"group without a name", group(obj{"type": "Room"}), "spec.name: Required value"},
		{"an empty group", group(obj{"name": "Kitchen", "type": "Room", "lights": []any{}}), "should have at least 1 items"},
		{"an unknown type", group(obj{"name": "Kitchen", "type": "Garden"}), `supported values: "Room", "Zone"`},
		{"lights without a type", group(obj{"name": "Kitchen", "lights": []any{"a"}}), "spec.type (Room or Zone) is required with spec.lights"},
		{"a light twice", group(obj{"name": "Kitchen", "type": "Zone", "lights": []any{"a", "a"}}), "Duplicate value"},
		{"more lights than a bridge has", group(obj{"name": "K", "type": "Zone", "lights": manyNames(151)}), "must have at most 150 items"},
		{"scene and brightness", group(obj{"name": "K", "scene": "evening", "brightness": 10}), "set either scene or brightness/color"},
		{"scene and off", group(obj{"name": "K", "scene": "evening", "on": false}), "a scene sets each light on or off itself"},
		{"group brightness 0", group(obj{"name": "K", "brightness": 0}), "should be greater than or equal to 1"},
		{"group colour twice", group(obj{"name": "K", "color": obj{"xy": []any{0.3, 0.3}, "colorTemperature": 300}}), "color must set exactly one of"},
		{"group transition not in tenths", group(obj{"name": "K", "transitionTime": "50ms"}), "transitionTime must be a multiple of 100ms"},
		{"group unknown onDelete", group(obj{"name": "K", "onDelete": "Explode"}), `supported values: "TurnOff", "Keep"`},
		{"a temporary zone's name", group(obj{"name": "tether-temporary-x"}), "names starting with tether-temporary- are Tether's temporary zones"},
		{"scene without a group", scene(obj{"lights": []any{obj{"name": "a"}}}), "spec.groupRef: Required value"},
		{"scene without lights", scene(obj{"groupRef": ref, "lights": []any{}}), "should have at least 1 items"},
		{"scene light twice", scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a"}, obj{"name": "a"}}}), "Duplicate value"},
		{"scene light brightness 300", scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a", "brightness": 300}}}), "should be less than or equal to 254"},
		{"scene light two colours", scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a", "color": obj{"hue": 1}}}}), "hue and saturation go together"},
		{"a temporary scene's name", scene(obj{"groupRef": ref, "name": "tether-temporary-x", "lights": []any{obj{"name": "a"}}}),
			"names starting with tether-temporary- are Tether's temporary scenes"},
		{"an empty palette", scene(obj{"groupRef": ref, "lights": one, "palette": obj{}}), "a palette needs at least one of colors, colorTemperatures, brightness or effects"},
		{"a palette of 4 effects", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"effects": []any{"candle", "fire", "prism", "opal"}}}), "must have at most 3 items"},
		{"a palette effect twice", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"effects": []any{"candle", "candle"}}}), "Duplicate value"},
		{"a palette effect that is no name", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"effects": []any{"Candle!"}}}), "should match"},
		{"a palette of 10 colours", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"colors": paletteColours(10)}}), "must have at most 9 items"},
		{"two palette whites", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"colorTemperatures": []any{
			obj{"colorTemperature": 300, "brightness": 100}, obj{"colorTemperature": 400, "brightness": 100}}}}), "must have at most 1 item"},
		{"a palette colour without brightness", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"colors": []any{obj{"xy": []any{0.3, 0.3}}}}}),
			"brightness: Required value"},
		{"a palette colour outside 0..1", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"colors": []any{obj{"xy": []any{1.3, 0.3}, "brightness": 10}}}}),
			"should be less than or equal to 1"},
		{"a palette white too warm", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"colorTemperatures": []any{obj{"colorTemperature": 600, "brightness": 10}}}}),
			"should be less than or equal to 500"},
		{"palette brightness 0", scene(obj{"groupRef": ref, "lights": one, "palette": obj{"brightness": 0}}), "should be greater than or equal to 1"},
		{"speed past 1", scene(obj{"groupRef": ref, "lights": one, "speed": 1.5}), "should be less than or equal to 1"},
		{"autoDynamic not a bool", scene(obj{"groupRef": ref, "lights": one, "autoDynamic": "yes"}), "must be of type boolean"},
		{"scene light effect not a name", scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a", "effect": "Candle!"}}}), "spec.lights[0].effect in body should match"},
		{"scene light gradient of one point", scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a", "gradient": obj{"points": []any{obj{"xy": []any{0.3, 0.3}}}}}}}),
			"should have at least 2 items"},
		{"scene light colour and gradient", scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a", "color": obj{"colorTemperature": 300},
			"gradient": obj{"points": []any{obj{"xy": []any{0.3, 0.3}}, obj{"xy": []any{0.4, 0.4}}}}}}}), "leave color out when gradient is set"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Create(context.Background(), tc.obj)
			if err == nil {
				_ = c.Delete(context.Background(), tc.obj)
			}
			NewWithT(t).Expect(err).To(MatchError(ContainSubstring(tc.want)))
		})
	}
	t.Run("an adopting group and a scene are valid, with defaults", func(t *testing.T) {
		g := NewWithT(t)
		room := group(obj{"name": "Living room", "brightness": 200})
		g.Expect(c.Create(context.Background(), room, client.DryRunAll)).To(Succeed())
		g.Expect(room.Object["spec"]).To(And(HaveKeyWithValue("on", true), HaveKeyWithValue("onDelete", "TurnOff")))
		sc := scene(obj{"groupRef": ref, "lights": []any{obj{"name": "a", "color": obj{"colorTemperature": 400}}}})
		g.Expect(c.Create(context.Background(), sc, client.DryRunAll)).To(Succeed())
		g.Expect(sc.Object["spec"].(obj)["lights"].([]any)[0]).To(HaveKeyWithValue("on", true))
		dynamic := scene(obj{"groupRef": ref, "speed": 0.7, "autoDynamic": true,
			"palette": obj{"colors": paletteColours(9), "colorTemperatures": []any{obj{"colorTemperature": 400, "brightness": 150}}, "brightness": 180},
			"lights":  []any{obj{"name": "a", "effect": "candle", "gradient": obj{"points": []any{obj{"xy": []any{0.6, 0.35}}, obj{"xy": []any{0.3, 0.2}}}}}}})
		g.Expect(c.Create(context.Background(), dynamic, client.DryRunAll)).To(Succeed(), "a palette at its limits, speed, autoDynamic, effect and gradient")
	})
}

// paletteColours are n palette colours.
func paletteColours(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"xy": []any{0.5, 0.4}, "brightness": 100}
	}
	return out
}

func manyNames(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return out
}
