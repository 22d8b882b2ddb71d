package huetest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// sceneLights are a zone's bulbs for the scene options test: a plain
// colour bulb (no effects, no gradient), a gradient lightstrip (effects
// and a gradient) and a newer colour bulb (effects, no gradient).
var sceneLights = huesim.Options{Lights: []string{"lamp", "strip", "candles"},
	Models: map[string]string{"strip": "LCX004", "candles": "LCA001"}}

// optionsScene is a HueScene with a palette, speed and autoDynamic, a
// gradient and an effect on the strip, an effect on the candles and one on
// the lamp, which has none.
func optionsScene(sunset [][2]float64) *huev1alpha1.HueScene {
	return &huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "campfire"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "nook"}, Name: "Campfire",
			Palette: &huev1alpha1.ScenePalette{
				Colors: []huev1alpha1.PaletteColor{
					{XY: []huev1alpha1.Chromaticity{0.6, 0.35}, Brightness: 200},
					{XY: []huev1alpha1.Chromaticity{0.5, 0.4}, Brightness: 120}},
				ColorTemperatures: []huev1alpha1.PaletteColorTemperature{{ColorTemperature: 400, Brightness: 150}},
				Brightness:        ptr.To[int32](180),
				Effects:           []string{"candle", "fire"}},
			Speed: ptr.To(huev1alpha1.Speed(0.7)), AutoDynamic: ptr.To(true),
			Lights: []huev1alpha1.SceneLight{
				{Name: "lamp", Brightness: ptr.To[int32](100), Effect: ptr.To("candle")},
				{Name: "strip", Brightness: ptr.To[int32](150), Effect: ptr.To("fire"), Gradient: gradientOf("", sunset...)},
				{Name: "candles", Brightness: ptr.To[int32](90), Effect: ptr.To("candle")}}},
	}
}

// expectSceneLimited waits for the HueScene to be Ready, Limited, with a
// message holding each of msgs.
func expectSceneLimited(h *hueEnv, name string, msgs ...string) {
	h.t.Helper()
	NewWithT(h.t).Eventually(func(g Gomega) {
		var sc huev1alpha1.HueScene
		g.Expect(h.c.Get(context.Background(), client.ObjectKey{Namespace: "entrance", Name: name}, &sc)).To(Succeed())
		c := meta.FindStatusCondition(sc.Status.Conditions, "Ready")
		g.Expect(c).NotTo(BeNil())
		g.Expect(string(c.Status) + "/" + c.Reason).To(Equal("True/" + hue.ReasonLimited))
		for _, m := range msgs {
			g.Expect(c.Message).To(ContainSubstring(m))
		}
	}, hueTimeout, huePoll).Should(Succeed())
}

// TestHueSceneV2Options: a HueScene with a palette (two colours, a white,
// a brightness and two effects), speed 0.7, autoDynamic and per-light effects and a
// gradient, through the real manager on each API.
//   - On CLIP v2 (with and without v1) the scene the bridge holds has that
//     palette, speed and auto_dynamic, the strip's gradient and fire effect
//     and the candles' candle effect; the lamp, which has no effects, is
//     named in the Ready condition and its action carries no effect; the
//     scene is created and never written again (counted over several poll
//     intervals). The Hue app then sets the speed, empties the palette and
//     drops the strip's effect: the push wakes the HueScene (the bridge is
//     polled once an hour), which puts all three back within driftSeen.
//   - On v1 the palette, speed and autoDynamic and every effect and the
//     gradient are named as CLIP v2 features in the Ready condition; the
//     scene is stored without them and not written again.
//
// Without the change, the spec had no such fields, and the v2 scene kept
// the simulator's empty palette.
func TestHueSceneV2Options(t *testing.T) {
	sunset := [][2]float64{{0.6, 0.35}, {0.5, 0.4}, {0.3, 0.2}}
	forEachGroupAPI(t, func(t *testing.T, api string) {
		// On CLIP v2 the bridge is polled once an hour: only the event
		// stream can tell Tether of the Hue app's change in time.
		var hourly func(*huev1alpha1.HueBridgeSpec)
		if api != wire.APIV1 {
			hourly = func(s *huev1alpha1.HueBridgeSpec) { s.PollInterval = &metav1.Duration{Duration: time.Hour} }
		}
		h := newHueEnvOnWith(t, api, "sceneopts", true, sceneLights, hourly)
		g := NewWithT(t)
		ctx := context.Background()
		h.sim.AddZone("Nook", "1", "2", "3")
		h.create(h.newGroup("entrance", "nook", "Nook"))
		h.eventuallyGroupReady("entrance", "nook", "True/Available")
		h.create(optionsScene(sunset))

		if api == wire.APIV1 {
			expectSceneLimited(h, "campfire", "palette, speed, autoDynamic: CLIP v2 scene features",
				"strip: effect fire is a CLIP v2 feature", "strip: gradient is a CLIP v2 feature")
			var sc huev1alpha1.HueScene
			g.Expect(h.c.Get(ctx, client.ObjectKey{Namespace: "entrance", Name: "campfire"}, &sc)).To(Succeed())
			stored := h.sim.Scenes()[sc.Status.SceneID]
			g.Expect(stored.States).To(HaveLen(3))
			g.Expect(stored.States["2"].Effect).To(BeNil(), "no effect in a v1 lightstate")
			g.Consistently(func() []string { return h.sceneWrites(sc.Status.SceneID) }, effectQuiet, huePoll).Should(BeEmpty(), "nothing resent")
			return
		}

		expectSceneLimited(h, "campfire", "lamp: this bulb (LCT015, Extended color light) has no effects: effect candle is ignored")
		var sc huev1alpha1.HueScene
		g.Expect(h.c.Get(ctx, client.ObjectKey{Namespace: "entrance", Name: "campfire"}, &sc)).To(Succeed())
		id := sc.Status.SceneID
		expectStored := func(g Gomega) {
			v2 := h.sim.Scenes()[id].V2
			g.Expect(v2.Speed).To(BeNumerically("~", 0.7, 0.001))
			g.Expect(v2.AutoDynamic).To(BeTrue())
			g.Expect(v2.Palette.Color).To(HaveLen(2))
			g.Expect(v2.Palette.Color[0].Color.XY.X).To(BeNumerically("~", 0.6, 0.0001))
			g.Expect(v2.Palette.ColorTemperature).To(HaveLen(1))
			g.Expect(v2.Palette.ColorTemperature[0].ColorTemperature.Mirek).To(Equal(400))
			g.Expect(v2.Palette.Dimming).To(HaveLen(1))
			g.Expect(v2.Palette.Effects).To(HaveLen(2))
			g.Expect([]string{v2.Palette.Effects[0].Effect, v2.Palette.Effects[1].Effect}).To(Equal([]string{"candle", "fire"}), "the palette's effects")
			g.Expect(v2.Effects).To(Equal(map[string]string{"2": "fire", "3": "candle"}), "no effect for the lamp")
			g.Expect(v2.Gradients).To(HaveKey("2"))
			g.Expect(v2.Gradients["2"].Points).To(Equal(sunset))
		}
		g.Eventually(expectStored, hueTimeout, huePoll).Should(Succeed())
		g.Consistently(func() []string { return h.sceneWrites(id) }, effectQuiet, huePoll).Should(BeEmpty(),
			"stored once: the lamp's effect is never sent, nothing resent")

		hueApp := v2AppClient(t, h.sim)
		g.Expect(hueApp("PUT", "/clip/v2/resource/scene/"+h.sim.SceneIDV2(id), fmt.Sprintf(
			`{"speed":0.1,"palette":{"color":[],"color_temperature":[],"dimming":[],"effects":[]},`+
				`"actions":[{"target":{"rid":%q,"rtype":"light"},"action":{"on":{"on":true},"dimming":{"brightness":50}}}]}`,
			h.sim.LightIDV2("2")))).To(Equal(http.StatusOK))
		// The bridge's log holds the Hue app's write, then Tether's put-back
		// (reading the scene right after the PUT would race the push, which
		// puts it back within milliseconds).
		g.Eventually(func(g Gomega) {
			writes := h.sceneWrites(id)
			g.Expect(writes).To(HaveLen(2), "the Hue app's write and one put-back")
			g.Expect(writes[0]).To(ContainSubstring(`"speed":0.1`), "the Hue app's change reached the bridge")
		}, driftSeen, huePoll).Should(Succeed())
		g.Eventually(expectStored, driftSeen, huePoll).Should(Succeed(), "palette, speed and effects put back")
		if api == apiV2WithoutV1 {
			h.expectNoV1()
		}
	})
}
