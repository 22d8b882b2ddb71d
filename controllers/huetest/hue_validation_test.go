package huetest

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// TestHueManifestValidation: the API server itself rejects wrong manifests
// with a message a person understands.
func TestHueManifestValidation(t *testing.T) {
	c := startHue(t)
	type obj = map[string]any
	light := func(spec obj) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: obj{
			"apiVersion": "hue.tether.dev/v1alpha1", "kind": "HueLight",
			"metadata": obj{"generateName": "invalid-", "namespace": "entrance"},
			"spec":     spec,
		}}
	}
	bridge := func(spec obj) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: obj{
			"apiVersion": "hue.tether.dev/v1alpha1", "kind": "HueBridge",
			"metadata": obj{"generateName": "invalid-"},
			"spec":     spec,
		}}
	}
	secret := obj{"namespace": "tether-system", "name": "hue"}
	cases := []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"neither name nor id", light(obj{"brightness": 10}), "set exactly one of name (the light's name on the bridge) or id"},
		{"both name and id", light(obj{"name": "hallway", "id": "1"}), "set exactly one of name"},
		{"brightness 0", light(obj{"name": "h", "brightness": 0}), "spec.brightness: Invalid value: 0: spec.brightness in body should be greater than or equal to 1"},
		{"brightness 255", light(obj{"name": "h", "brightness": 255}), "should be less than or equal to 254"},
		{"two colours", light(obj{"name": "h", "color": obj{"xy": []any{0.3, 0.3}, "colorTemperature": 300}}),
			"color must set exactly one of: xy, colorTemperature, or hue together with saturation"},
		{"no colour in color", light(obj{"name": "h", "color": obj{}}), "color must set exactly one of"},
		{"hue without saturation", light(obj{"name": "h", "color": obj{"hue": 100}}), "hue and saturation go together: set both or neither"},
		{"xy with three numbers", light(obj{"name": "h", "color": obj{"xy": []any{0.1, 0.2, 0.3}}}), "must have at most 2 items"},
		{"xy outside 0..1", light(obj{"name": "h", "color": obj{"xy": []any{1.5, 0.2}}}), "should be less than or equal to 1"},
		{"colour temperature too cold", light(obj{"name": "h", "color": obj{"colorTemperature": 100}}), "should be greater than or equal to 153"},
		{"colour temperature too warm", light(obj{"name": "h", "color": obj{"colorTemperature": 501}}), "should be less than or equal to 500"},
		{"hue past the wheel", light(obj{"name": "h", "color": obj{"hue": 70000, "saturation": 1}}), "should be less than or equal to 65535"},
		{"saturation 255", light(obj{"name": "h", "color": obj{"hue": 1, "saturation": 255}}), "should be less than or equal to 254"},
		{"transition not in tenths", light(obj{"name": "h", "transitionTime": "150ms"}), "transitionTime must be a multiple of 100ms"},
		{"transition not a duration", light(obj{"name": "h", "transitionTime": "soon"}), "spec.transitionTime in body should match"},
		{"transition too long", light(obj{"name": "h", "transitionTime": "2h"}), "transitionTime must be between 0s and 1h49m13.5s"},
		{"unknown onDelete", light(obj{"name": "h", "onDelete": "Explode"}), `supported values: "TurnOff", "Keep"`},
		{"id not a number", light(obj{"id": "hallway"}), "spec.id in body should match"},
		{"gradient with one point", light(obj{"name": "h", "gradient": obj{"points": []any{obj{"xy": []any{0.3, 0.3}}}}}),
			"should have at least 2 items"},
		{"gradient with six points", light(obj{"name": "h", "gradient": obj{"points": []any{obj{"xy": []any{0.3, 0.3}},
			obj{"xy": []any{0.3, 0.3}}, obj{"xy": []any{0.3, 0.3}}, obj{"xy": []any{0.3, 0.3}}, obj{"xy": []any{0.3, 0.3}},
			obj{"xy": []any{0.3, 0.3}}}}}), "must have at most 5 items"},
		{"gradient point outside 0..1", light(obj{"name": "h", "gradient": obj{"points": []any{obj{"xy": []any{0.3, 1.3}},
			obj{"xy": []any{0.3, 0.3}}}}}), "should be less than or equal to 1"},
		{"gradient mode not a name", light(obj{"name": "h", "gradient": obj{"mode": "Random Pixelated", "points": []any{
			obj{"xy": []any{0.3, 0.3}}, obj{"xy": []any{0.3, 0.3}}}}}), "spec.gradient.mode in body should match"},
		{"gradient with color", light(obj{"name": "h", "color": obj{"xy": []any{0.3, 0.3}}, "gradient": obj{"points": []any{
			obj{"xy": []any{0.3, 0.3}}, obj{"xy": []any{0.3, 0.3}}}}}), "gradient sets the light's colours: leave color out"},
		{"speed above 1", light(obj{"name": "h", "dynamics": obj{"speed": 1.5}}), "should be less than or equal to 1"},
		{"speed below 0", light(obj{"name": "h", "dynamics": obj{"speed": -0.1}}), "should be greater than or equal to 0"},
		{"dynamics without a speed", light(obj{"name": "h", "dynamics": obj{}}), "spec.dynamics.speed: Required value"},
		{"unknown powerup preset", light(obj{"name": "h", "powerup": obj{"preset": "always_on"}}),
			`supported values: "safety", "powerfail", "last_on_state", "custom"`},
		{"powerup parts with a preset other than custom", light(obj{"name": "h", "powerup": obj{"preset": "safety",
			"on": obj{"mode": "toggle"}}}), "powerup.on, powerup.dimming and powerup.color go only with preset custom"},
		{"custom powerup with no part", light(obj{"name": "h", "powerup": obj{"preset": "custom"}}),
			"preset custom needs at least one of powerup.on, powerup.dimming or powerup.color"},
		{"powerup on mode on without on", light(obj{"name": "h", "powerup": obj{"preset": "custom", "on": obj{"mode": "on"}}}),
			"powerup.on.on is set with mode on, and only then"},
		{"powerup on with mode previous", light(obj{"name": "h", "powerup": obj{"preset": "custom",
			"on": obj{"mode": "previous", "on": true}}}), "powerup.on.on is set with mode on, and only then"},
		{"powerup dimming without brightness", light(obj{"name": "h", "powerup": obj{"preset": "custom",
			"dimming": obj{"mode": "dimming"}}}), "powerup.dimming.brightness is set with mode dimming, and only then"},
		{"powerup brightness 0", light(obj{"name": "h", "powerup": obj{"preset": "custom",
			"dimming": obj{"mode": "dimming", "brightness": 0}}}), "should be greater than or equal to 1"},
		{"powerup colour mode color without xy", light(obj{"name": "h", "powerup": obj{"preset": "custom",
			"color": obj{"mode": "color", "colorTemperature": 300}}}), "powerup.color.xy is set with mode color, and only then"},
		{"powerup colour temperature too warm", light(obj{"name": "h", "powerup": obj{"preset": "custom",
			"color": obj{"mode": "color_temperature", "colorTemperature": 600}}}), "should be less than or equal to 500"},
		{"powerup xy outside 0..1", light(obj{"name": "h", "powerup": obj{"preset": "custom",
			"color": obj{"mode": "color", "xy": []any{1.2, 0.3}}}}), "should be less than or equal to 1"},
		{"bridge without address or id", bridge(obj{"credentialsSecretRef": secret}), "set address, or bridgeID to find the bridge by mDNS"},
		{"bridge id of the wrong form", bridge(obj{"bridgeID": "00:17:88", "credentialsSecretRef": secret}), "spec.bridgeID in body should match"},
		{"unknown apiVersion", bridge(obj{"address": "bridge", "apiVersion": "V3", "credentialsSecretRef": secret}), `supported values: "Auto", "V1", "V2"`},
		{"insecure with a caBundle", bridge(obj{"address": "bridge", "insecureSkipVerify": true, "caBundle": "x", "credentialsSecretRef": secret}),
			"insecureSkipVerify checks no certificate"},
		{"bridge address with a space", bridge(obj{"address": "my bridge", "credentialsSecretRef": secret}), "address must not contain spaces"},
		{"bridge ftp address", bridge(obj{"address": "ftp://bridge", "credentialsSecretRef": secret}), "address scheme must be http:// or https://"},
		{"bridge address a URL with a path", bridge(obj{"address": "http://svc/admin/config?x=", "credentialsSecretRef": secret}), "address must be only a host"},
		{"bridge address with a user", bridge(obj{"address": "http://user:pw@bridge", "credentialsSecretRef": secret}), "address must be only a host"},
		{"bridge address with a query", bridge(obj{"address": "bridge:80?x=1", "credentialsSecretRef": secret}), "address must be only a host"},
		{"bridge address with a trailing path", bridge(obj{"address": "bridge/api", "credentialsSecretRef": secret}), "address must be only a host"},
		{"bridge IPv6 address without brackets", bridge(obj{"address": "fe80::1", "credentialsSecretRef": secret}), "address must be only a host"},
		{"bridge polling too often", bridge(obj{"address": "bridge", "credentialsSecretRef": secret, "pollInterval": "100ms"}), "pollInterval must be between 1s and 1h"},
		{"bridge without credentials", bridge(obj{"address": "bridge"}), "spec.credentialsSecretRef: Required value"},
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

	t.Run("a host and a port are valid addresses", func(t *testing.T) {
		for _, addr := range []string{"bridge", "hue-bridge.home.arpa", "192.168.1.20", "192.168.1.20:8080", "[fe80::1]", "[fd00::17:88ff:fe23:bfc2]:443",
			"http://192.168.1.20", "https://bridge.local:443"} {
			NewWithT(t).Expect(c.Create(context.Background(), bridge(obj{"address": addr, "credentialsSecretRef": secret}), client.DryRunAll)).
				To(Succeed(), "address %q", addr)
		}
	})

	t.Run("the talk's manifest is valid", func(t *testing.T) {
		l := light(obj{"name": "hallway", "brightness": 254})
		l.SetGenerateName("")
		l.SetName("valid-talk")
		NewWithT(t).Expect(c.Create(context.Background(), l, client.DryRunAll)).To(Succeed())
		NewWithT(t).Expect(l.Object["spec"]).To(HaveKeyWithValue("on", true), "on defaults to true")
		NewWithT(t).Expect(l.Object["spec"]).To(HaveKeyWithValue("onDelete", "TurnOff"), "onDelete defaults to TurnOff")
	})

	// A bare on: key, as kubectl, Helm, Argo CD and Flux read it (YAML 1.1
	// through sigs.k8s.io/yaml: "true"), is refused with the fix, on each
	// kind and nested type that has an on field; quoted, it is taken. Before,
	// "true" was pruned and on took its default: a light told to be off
	// switched on.
	t.Run("a bare on: key", func(t *testing.T) {
		manifests := map[string]string{
			"HueLight": "apiVersion: hue.tether.dev/v1alpha1\nkind: HueLight\nmetadata: {generateName: bare-, namespace: entrance}\n" +
				"spec:\n  name: hallway\n  on: false\n",
			"HueLight powerup": "apiVersion: hue.tether.dev/v1alpha1\nkind: HueLight\nmetadata: {generateName: bare-, namespace: entrance}\n" +
				"spec:\n  name: hallway\n  powerup:\n    preset: custom\n    \"on\": {mode: \"on\", on: false}\n",
			"HueGroup": "apiVersion: hue.tether.dev/v1alpha1\nkind: HueGroup\nmetadata: {generateName: bare-, namespace: entrance}\n" +
				"spec:\n  name: hall\n  on: false\n",
			"HueScene": "apiVersion: hue.tether.dev/v1alpha1\nkind: HueScene\nmetadata: {generateName: bare-, namespace: entrance}\n" +
				"spec:\n  name: evening\n  groupRef: {name: hall}\n  lights:\n  - name: hallway\n    on: false\n",
		}
		for kind, manifest := range manifests {
			u := &unstructured.Unstructured{}
			NewWithT(t).Expect(yaml.Unmarshal([]byte(manifest), &u.Object)).To(Succeed())
			err := c.Create(context.Background(), u, client.DryRunAll)
			NewWithT(t).Expect(err).To(MatchError(ContainSubstring(`a bare on: key is read by YAML as true: (YAML 1.1)`)), kind)

			quoted := strings.ReplaceAll(strings.ReplaceAll(manifest, " on: false", ` "on": false`), "{mode: \"on\", on: false}", `{mode: "on", "on": false}`)
			u = &unstructured.Unstructured{}
			NewWithT(t).Expect(yaml.Unmarshal([]byte(quoted), &u.Object)).To(Succeed())
			NewWithT(t).Expect(c.Create(context.Background(), u, client.DryRunAll)).To(Succeed(), kind+" quoted")
		}
	})
}
