package huetest

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// bulbCase is one HueLight on a bulb of one model: what it asks, and how
// the bulb settles.
type bulbCase struct {
	name, model string
	spec        func(*huev1alpha1.HueLightSpec)
	// setup makes the simulated bridge misbehave for the bulb.
	setup func(sim *huesim.Server, id string)
	ready string // Ready as "Status/Reason"
	// message is a part of Ready's message ("" checks it is empty).
	message string
	check   func(huesim.LightState) bool
	// v1Only: a v1 bridge's quirk (setup) that a v2 bridge does not have.
	v1Only bool
	// readyV2 and messageV2, when set, are what a v2 bridge ends in.
	readyV2, messageV2 string
}

func ct(v int32) func(*huev1alpha1.HueLightSpec) {
	return func(s *huev1alpha1.HueLightSpec) { s.Color = &huev1alpha1.Color{ColorTemperature: ptr.To(v)} }
}

func xy(x, y float64) func(*huev1alpha1.HueLightSpec) {
	return func(s *huev1alpha1.HueLightSpec) {
		s.Color = &huev1alpha1.Color{XY: []huev1alpha1.Chromaticity{huev1alpha1.Chromaticity(x), huev1alpha1.Chromaticity(y)}}
	}
}

func hs(h, s int32) func(*huev1alpha1.HueLightSpec) {
	return func(spec *huev1alpha1.HueLightSpec) {
		spec.Color = &huev1alpha1.Color{Hue: ptr.To(h), Saturation: ptr.To(s)}
	}
}

func near(a, b [2]float64) bool { return math.Abs(a[0]-b[0]) < 2e-4 && math.Abs(a[1]-b[1]) < 2e-4 }

// nearHS: the bulb shows about hue/sat (a bridge reports them after its
// conversion: within a few steps).
func nearHS(s huesim.LightState, hue, sat int) bool {
	return (s.ColorMode == "hs" || s.ColorMode == "xy") && math.Abs(float64(s.Hue-hue)) < 500 && math.Abs(float64(s.Sat-sat)) <= 4
}

// modelCases are, for every bulb model of the simulator, specs it can show
// and specs beyond it, and the awkward bridges of issue 11: a field it does
// not report, an attribute it refuses.
var modelCases = []bulbCase{
	// Specs the bulb can show: Ready=True, Available, no message.
	{name: "lct015-xy", model: "LCT015", spec: xy(0.3, 0.3), ready: "True/Available",
		check: func(s huesim.LightState) bool { return near(s.XY, [2]float64{0.3, 0.3}) }},
	{name: "lct001-ct", model: "LCT001", spec: ct(300), ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.CT == 300 && s.ColorMode == "ct" }},
	// Hue/sat: a v1 bridge reports them after its conversion through the
	// xy the bulb takes, a v2 bridge takes only xy (issue 11). Each settles
	// with one command on every colour model, in gamut, beyond it (blue on
	// gamut B, red on gamut C), white, and at the end of the wheel.
	{name: "llc010-hs", model: "LLC010", spec: hs(10000, 200), ready: "True/Available",
		check: func(s huesim.LightState) bool { return nearHS(s, 10000, 200) }},
	{name: "lct015-hs", model: "LCT015", spec: hs(46000, 180), ready: "True/Available",
		check: func(s huesim.LightState) bool { return nearHS(s, 46000, 180) }},
	{name: "lct015-hs-red", model: "LCT015", spec: hs(0, 254), ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.XY[0] > 0.68 }},
	{name: "lct001-hs-blue", model: "LCT001", spec: hs(46920, 254), ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.XY[1] < 0.06 }},
	{name: "lct015-hs-white", model: "LCT015", spec: hs(8000, 0), ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.Sat == 0 }},
	{name: "llc010-hs-wrap", model: "LLC010", spec: hs(65535, 150), ready: "True/Available"},
	{name: "ltw001-hs", model: "LTW001", spec: hs(20000, 100), ready: "True/Limited",
		message: "this bulb (LTW001, Color temperature light) shows no colour: color.hue and color.saturation are ignored"},
	{name: "ltw001-ct", model: "LTW001", spec: ct(300), ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.CT == 300 }},
	{name: "lwb010-bri", model: "LWB010", ready: "True/Available"},
	{name: "lom001-on", model: "LOM001", spec: func(s *huev1alpha1.HueLightSpec) { s.Brightness = nil }, ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.On }},
	{name: "gl-c-006p-ct", model: "GL-C-006P", spec: ct(200), ready: "True/Available",
		check: func(s huesim.LightState) bool { return s.CT == 200 }},

	// Beyond the bulb: projected as the bridge would, Ready=True, Limited.
	{name: "ltw001-ct-500", model: "LTW001", spec: ct(500), ready: "True/Limited",
		message: "color.colorTemperature 500 is outside this bulb's 153-454 mireds; it shows 454",
		check:   func(s huesim.LightState) bool { return s.CT == 454 }},
	{name: "lct015-xy-out", model: "LCT015", spec: xy(0.8, 0.2), ready: "True/Limited",
		message: "color.xy [0.8, 0.2] is outside this bulb's gamut C",
		check:   func(s huesim.LightState) bool { return s.ColorMode == "xy" && s.XY[0] < 0.6916 && s.XY[0] > 0.6 }},
	{name: "lct001-xy-out", model: "LCT001", spec: xy(0.17, 0.7), ready: "True/Limited",
		message: "outside this bulb's gamut B", check: func(s huesim.LightState) bool { return s.XY[1] <= 0.518 }},
	{name: "llc010-xy-out", model: "LLC010", spec: xy(0.1, 0.85), ready: "True/Limited",
		message: "outside this bulb's gamut A", check: func(s huesim.LightState) bool { return s.ColorMode == "xy" }},
	{name: "llc010-ct", model: "LLC010", spec: ct(300), ready: "True/Limited",
		message: "this bulb (LLC010, Color light) has no colour temperature: color.colorTemperature is ignored"},
	{name: "ltw001-xy", model: "LTW001", spec: xy(0.3, 0.3), ready: "True/Limited",
		message: "this bulb (LTW001, Color temperature light) shows no colour: color.xy is ignored"},
	{name: "lwb010-xy", model: "LWB010", spec: xy(0.5, 0.4), ready: "True/Limited",
		message: "this bulb (LWB010, Dimmable light) shows no colour: color.xy is ignored"},
	{name: "lwb010-hs", model: "LWB010", spec: hs(0, 254), ready: "True/Limited",
		message: "shows no colour: color.hue and color.saturation are ignored"},
	{name: "lom001-bri", model: "LOM001", ready: "True/Limited",
		message: "this bulb (LOM001, On/Off plug-in unit) cannot dim: brightness is ignored",
		check:   func(s huesim.LightState) bool { return s.On }},

	// A bridge that does not report ct for a bulb: sent once, then known
	// only from what the bridge accepted.
	{name: "lct015-ct-unreported", model: "LCT015", spec: ct(300), v1Only: true,
		setup: func(sim *huesim.Server, id string) { _ = sim.OmitState(id, "ct") }, ready: "True/Limited",
		message: "the bridge does not report color.colorTemperature for this bulb: it accepted 300",
		check:   func(s huesim.LightState) bool { return s.CT == 300 }},
	// A bridge that refuses a ct beyond the bulb's range (error 7), for a
	// bulb that does not report its range: the rest applies, ct is not
	// sent again, Ready names it. A v2 bridge reports the range the bulb
	// shows (mirek_schema 158-495), so Tether sends what fits.
	{name: "gl-c-006p-ct-refused", model: "GL-C-006P", spec: ct(500),
		setup: func(sim *huesim.Server, id string) { _ = sim.RefuseOutOfRange(id) }, ready: "False/AttributeRefused",
		message: "the bridge refused color.colorTemperature 500 (error 7",
		check:   func(s huesim.LightState) bool { return s.On },
		readyV2: "True/Limited", messageV2: "color.colorTemperature 500 is outside this bulb's 158-495 mireds; it shows 495"},
}

// TestHueEveryModelSettles applies a HueLight to a bulb of every model with
// specs it can show and specs beyond it: each settles with at most one
// command, says what the bulb does in its Ready condition (one event for a
// note, not one per poll) and shows the bulb's capabilities, and nothing
// more is sent while 3 poll intervals pass.
func TestHueEveryModelSettles(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		var cases []bulbCase
		for _, c := range modelCases {
			if api == wire.APIV2 && c.v1Only {
				continue
			}
			if api == wire.APIV2 && c.readyV2 != "" {
				c.ready, c.message = c.readyV2, c.messageV2
			}
			cases = append(cases, c)
		}
		names := make([]string, len(cases))
		models := map[string]string{}
		for i, c := range cases {
			names[i], models[c.name] = c.name, c.model
		}
		// Counted light by light: no temporary scene carries them.
		h := newHueEnvOnWith(t, api, "models", true, huesim.Options{Lights: names, Models: models}, withoutTemporaryScenes)
		g := NewWithT(t)
		ns := "models-" + strings.ToLower(api) // its events apart from the other run's
		g.Expect(h.c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).
			To(Or(Succeed(), WithTransform(apierrors.IsAlreadyExists, BeTrue())))
		for i, c := range cases {
			if c.setup != nil {
				c.setup(h.sim, strconv.Itoa(i+1))
			}
			l := h.newLight(ns, c.name, c.name)
			// A brightness and a transition of its own: no two want the same
			// state, so every command is a light command to count.
			l.Spec.Brightness = ptr.To(int32(10 + i))
			l.Spec.TransitionTime = &metav1.Duration{Duration: time.Duration(i+1) * 100 * time.Millisecond}
			if c.spec != nil {
				c.spec(&l.Spec)
			}
			h.create(l)
		}
		for i, c := range cases {
			h.eventuallyLightReady(ns, c.name, c.ready)
			l := h.light(g, ns, c.name)
			ready := meta.FindStatusCondition(l.Status.Conditions, commonv1alpha1.Ready)
			if c.message == "" {
				g.Expect(ready.Message).To(BeEmpty(), c.name)
			} else {
				g.Expect(ready.Message).To(ContainSubstring(c.message), c.name)
			}
			g.Expect(l.Status.Capabilities).NotTo(BeNil(), c.name)
			g.Expect(l.Status.Capabilities.ModelID).To(Equal(c.model), c.name)
			if c.check != nil {
				g.Expect(h.bulb(g, c.name)).To(Satisfy(c.check), "%s: the bulb", c.name)
			}
			g.Expect(h.lightCommands(strconv.Itoa(i+1))).To(Equal(1), "%s: one command to settle", c.name)
		}
		before := len(h.sim.Commands())
		g.Consistently(func() int { return len(h.sim.Commands()) }, 3*huePollInterval, huePoll).Should(Equal(before),
			"nothing is sent to settled lights")
		for _, c := range cases {
			h.eventuallyLightReady(ns, c.name, c.ready)
		}
		limited := map[string]int{}
		var events eventsv1.EventList
		g.Expect(h.c.List(context.Background(), &events, client.InNamespace(ns))).To(Succeed())
		for _, e := range events.Items {
			if e.Reason == hue.ReasonLimited {
				limited[e.Regarding.Name]++
			}
		}
		for _, c := range cases {
			if strings.HasSuffix(c.ready, hue.ReasonLimited) {
				g.Expect(limited[c.name]).To(Equal(1), "%s: one event for its note", c.name)
			}
		}
	})
}

// TestHueStallBreaker: a third-party bulb that reports no colour
// temperature range (0-65535) and clamps at 495. ct 500 is sent, the bridge
// accepts it, and every read shows 495: after the same command 3 times for
// the generation with no visible effect the HueLight stops, Stalled, naming
// the field, and nothing more is sent. A change from outside sends again
// (and stalls again); a spec the bulb can show settles.
func TestHueStallBreaker(t *testing.T) {
	h := newHueEnvWith(t, "stall", true, huesim.Options{Lights: []string{"strip"}, Models: map[string]string{"strip": "GL-C-006P"}})
	g := NewWithT(t)
	l := h.newLight("entrance", "strip", "strip")
	ct(500)(&l.Spec)
	h.create(l)
	g.Eventually(func(g Gomega) {
		synced := meta.FindStatusCondition(h.light(g, "entrance", "strip").Status.Conditions, commonv1alpha1.Synced)
		g.Expect(synced).NotTo(BeNil())
		g.Expect(synced.Reason).To(Equal(providers.ReasonStalled))
		g.Expect(synced.Message).To(ContainSubstring("colorTemperature: ct 495 -> 500"))
	}, hueTimeout, huePoll).Should(Succeed())
	h.eventuallyLightReady("entrance", "strip", "False/"+providers.ReasonStalled)
	sent := h.lightCommands("1")
	// The first command changed the bulb (366 -> 495); the next three did
	// nothing visible.
	g.Expect(sent).To(Equal(4))
	g.Consistently(func() int { return h.lightCommands("1") }, 4*huePollInterval, huePoll).Should(Equal(sent))

	g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.CT = 300 })).To(Succeed())
	g.Eventually(func() int { return h.lightCommands("1") }, hueTimeout, huePoll).Should(BeNumerically(">", sent))
	g.Eventually(func() int { return h.lightCommands("1") }, hueTimeout, huePoll).Should(Equal(sent + 4))
	g.Consistently(func() int { return h.lightCommands("1") }, 3*huePollInterval, huePoll).Should(Equal(sent + 4))

	h.update("entrance", "strip", func(l *huev1alpha1.HueLight) { l.Spec.Color.ColorTemperature = ptr.To[int32](400) })
	h.eventuallyLightReady("entrance", "strip", "True/Available")
	g.Expect(h.bulb(g, "strip").CT).To(Equal(400))
}

// TestHueTwoHueBridgesOnOneBridge: two HueBridge objects name one bridge
// (at one address: over plain v1 the address is all that proves a bridge,
// identity.go): one session serves both, so the bridge is read once per
// interval, and a HueLight through either sees the other's claim. The
// second uses the first one's Secret, so it names the bridge's id.
func TestHueTwoHueBridgesOnOneBridge(t *testing.T) {
	h := newHueEnv(t, "front", true, "desk")
	g := NewWithT(t)
	ctx := context.Background()
	// front binds with the Secret first: it names no bridge id, and a
	// Secret another HueBridge is bound with goes only to one that names
	// it (CredentialsSecretInUse), which back, created after, does.
	g.Eventually(func(g Gomega) string {
		var b huev1alpha1.HueBridge
		g.Expect(h.c.Get(ctx, client.ObjectKey{Name: h.bridge}, &b)).To(Succeed())
		return readyReason(b.Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(HavePrefix("True/"), "HueBridge front Ready")
	back := &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "back"},
		Spec: huev1alpha1.HueBridgeSpec{
			Address:              h.sim.Addr(),
			APIVersion:           huev1alpha1.APIV1,
			BridgeID:             h.sim.BridgeID(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: h.secret},
			PollInterval:         &metav1.Duration{Duration: huePollInterval},
		},
	}
	h.create(back)
	t.Cleanup(func() { _ = h.c.Delete(ctx, back) })

	first := h.newLight("entrance", "desk-a", "desk")
	first.Spec.Brightness = ptr.To[int32](200)
	h.create(first)
	h.eventuallyLightReady("entrance", "desk-a", "True/Available")
	second := h.newLight("entrance", "desk-b", "desk")
	second.Spec.BridgeRef.Name = "back"
	second.Spec.Brightness = ptr.To[int32](20)
	h.create(second)
	h.eventuallyLightReady("entrance", "desk-b", "False/Conflict")
	g.Expect(fmt.Sprint(h.light(g, "entrance", "desk-b").Status.Conditions)).To(ContainSubstring("entrance/desk-a"))
	g.Eventually(func(g Gomega) string {
		var b huev1alpha1.HueBridge
		g.Expect(h.c.Get(ctx, client.ObjectKey{Name: "back"}, &b)).To(Succeed())
		return readyReason(b.Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal("True/Available"))

	h.sim.ResetGetCounts()
	since := time.Now()
	g.Consistently(func() int { return h.sim.GetCounts()["/lights"] - int(time.Since(since)/huePollInterval) }, 5*huePollInterval, huePoll).
		Should(BeNumerically("<=", 1), "one read per interval for the bridge, not one per HueBridge")
	g.Expect(h.bulb(g, "desk").Bri).To(Equal(200), "the later HueLight sent nothing")

	g.Expect(h.c.Delete(ctx, first)).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "desk").Bri }, hueTimeout, huePoll).Should(Equal(20))
	h.eventuallyLightReady("entrance", "desk-b", "True/Available")
}
