package huetest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestHueV2BridgeWithoutV1: a CLIP v2 bridge whose firmware answers 404 on
// every v1 path but pairing and the public config. The HueBridge is Ready
// with its id, name and version read over CLIP v2 and its stream
// Connected; HueLights are Ready and a change made in the Hue app is put
// back by push; v1 is asked only the keyless public config Tether reads
// before it sends the key, and once, by the sender's look for temporary
// groups a crash left, whose 404 ends every use of v1. A HueGroup creates,
// sets and deletes its room over CLIP v2 alone (before, it said
// RoomsNotSupported: rooms went through v1). On the code before that,
// the HueBridge's config came from /api/config, and the sender listed v1
// groups and then scenes at its start, both refused.
func TestHueV2BridgeWithoutV1(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV2, "without-v1", true, huesim.Options{Lights: []string{"hall", "desk", "landing"}, V1Off: true, Name: "Upstairs"})
	g := NewWithT(t)
	for _, bulb := range []string{"hall", "desk"} {
		l := h.newLight("entrance", bulb, bulb)
		l.Spec.Brightness = ptr.To[int32](180)
		h.create(l)
	}
	g.Eventually(func(g Gomega) {
		b := h.hueBridge(g)
		g.Expect(readyReason(b.Status.Conditions, "Ready")).To(Equal("True/Available"))
		g.Expect(b.Status.BridgeID).To(Equal(h.sim.BridgeID()))
		g.Expect(b.Status.Name).To(Equal("Upstairs"), "the bridge device's name, over CLIP v2")
		g.Expect(b.Status.APIVersion).NotTo(BeEmpty(), "the bridge device's software version, over CLIP v2")
		g.Expect(b.Status.EventStream).NotTo(BeNil())
		g.Expect(b.Status.EventStream.State).To(Equal(bridge.StreamConnected))
	}, hueTimeout, huePoll).Should(Succeed())
	h.eventuallyLightReady("entrance", "hall", "True/Available")
	h.eventuallyLightReady("entrance", "desk", "True/Available")
	g.Expect(h.bulb(g, "hall").Bri).To(Equal(180))

	g.Expect(h.sim.ChangeLight("1", func(s *huesim.LightState) { s.Bri = 20 })).To(Succeed())
	g.Eventually(func(g Gomega) int { return h.bulb(g, "hall").Bri }, driftSeen, huePoll).Should(Equal(180), "drift put back")
	h.eventuallyLightReady("entrance", "hall", "True/Available")

	// Asked of v1: the keyless public config before the key went, and the
	// sender's one look for temporary groups a crash left, whose 404 tells
	// it the bridge has no v1; nothing after (no look for leftover scenes,
	// no config read with the key).
	var keyed []huesim.V1Request
	for _, r := range h.sim.V1Requests() {
		if r != (huesim.V1Request{Method: "GET", Path: "/api/config"}) {
			keyed = append(keyed, r)
		}
	}
	g.Expect(keyed).To(Equal([]huesim.V1Request{{Method: "GET", Path: "/api/{user}/groups", Refused: true}}))
	g.Expect(h.hueBridge(g).Status.EventStream.State).To(Equal(bridge.StreamConnected))

	// A room over the third bulb: created, set and deleted over CLIP v2
	// alone, through its grouped_light; v1 is asked nothing more.
	gr := h.newGroup("entrance", "upstairs", "Upstairs")
	gr.Spec.Type, gr.Spec.Lights, gr.Spec.Brightness = huev1alpha1.GroupRoom, []string{"landing"}, ptr.To[int32](90)
	h.create(gr)
	h.eventuallyGroupReady("entrance", "upstairs", "True/Available")
	g.Expect(h.bulb(g, "landing").Bri).To(Equal(90))
	room, ok := h.groupNamed("Upstairs")
	g.Expect(ok).To(BeTrue())
	g.Expect(h.groupCommands(room.ID)).To(HaveLen(1), "one command to the room's grouped_light")
	g.Expect(h.c.Delete(context.Background(), gr)).To(Succeed())
	g.Eventually(func() bool { _, ok := h.groupNamed("Upstairs"); return ok }, hueTimeout, huePoll).Should(BeFalse(),
		"the room Tether created is deleted with its HueGroup")
	h.expectNoV1()
	h.eventuallyLightReady("entrance", "hall", "True/Available")
}

// TestHueGroupRoomChangedInTheHueAppIsPutBackByPush: on a CLIP v2 bridge
// without v1, whose HueBridge polls once an hour (so nothing but the event
// stream can tell Tether of a change in time), a room Tether created is
// changed as the Hue app would (a direct CLIP v2 request to the bridge):
// a member taken out is put back, and the room deleted is made again with
// its lights and state, each within driftSeen, by push. On the code
// before, rooms went through v1 (RoomsNotSupported here), and a room's
// change was seen only by the groups read once per poll interval.
func TestHueGroupRoomChangedInTheHueAppIsPutBackByPush(t *testing.T) {
	h := newHueEnvOnWith(t, apiV2WithoutV1, "roompush", true, roomLights, func(s *huev1alpha1.HueBridgeSpec) {
		s.PollInterval = &metav1.Duration{Duration: time.Hour}
	})
	g := NewWithT(t)
	den := h.newGroup("entrance", "den", "Den")
	den.Spec.Type, den.Spec.Lights, den.Spec.Brightness = huev1alpha1.GroupRoom, []string{"lamp", "white"}, ptr.To[int32](150)
	h.create(den)
	h.eventuallyGroupReady("entrance", "den", "True/Available")
	room, ok := h.groupNamed("Den")
	g.Expect(ok).To(BeTrue())

	// The Hue app takes the white bulb out of the room.
	hueApp := v2AppClient(t, h.sim)
	g.Eventually(func() int {
		return hueApp("PUT", "/clip/v2/resource/room/"+h.sim.RoomIDV2(room.ID),
			fmt.Sprintf(`{"children":[{"rid":%q,"rtype":"device"}]}`, h.sim.DeviceIDV2("1")))
	}, hueTimeout, huePoll).Should(Equal(http.StatusOK)) // the bridge's group budget may answer 429 first
	g.Eventually(func() []string { r, _ := h.groupNamed("Den"); return r.Lights }, driftSeen, huePoll).
		Should(ConsistOf("1", "2"), "the member taken out is put back")

	// The Hue app deletes the room.
	g.Eventually(func() int {
		return hueApp("DELETE", "/clip/v2/resource/room/"+h.sim.RoomIDV2(room.ID), "")
	}, hueTimeout, huePoll).Should(Equal(http.StatusOK))
	g.Eventually(func() []string { r, _ := h.groupNamed("Den"); return r.Lights }, driftSeen, huePoll).
		Should(ConsistOf("1", "2"), "the room Tether created is made again")
	h.eventuallyGroupReady("entrance", "den", "True/Available")
	g.Expect(h.bulb(g, "white").Bri).To(Equal(150))
}

// v2AppClient sends CLIP v2 requests to the simulated bridge as the Hue
// app would (its key, verified TLS) and returns the HTTP status.
func v2AppClient(t *testing.T, sim *huesim.Server) func(method, path, body string) int {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(sim.CACertPEM())
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: sim.CertificateName()}}}
	return func(method, path, body string) int {
		req, _ := http.NewRequest(method, sim.TLSURL()+path, strings.NewReader(body))
		req.Header.Set("hue-application-key", hueUser)
		res, err := c.Do(req)
		if err != nil {
			t.Logf("%s %s: %v", method, path, err)
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
}

// TestHueSceneChangedInTheHueAppIsPutBackByPush: on a CLIP v2 bridge
// without v1, polled once an hour, a HueScene is stored as a v2 scene of
// its HueGroup's zone; the Hue app changes a light's action in it (a
// direct CLIP v2 request): the event wakes the HueScene, which stores its
// spec again within driftSeen. Without the push (the scene read at most
// once per poll interval, the HueScene woken by its resync) it would take
// far longer than the test waits.
func TestHueSceneChangedInTheHueAppIsPutBackByPush(t *testing.T) {
	h := newHueEnvOnWith(t, apiV2WithoutV1, "scenepush", true, roomLights, func(s *huev1alpha1.HueBridgeSpec) {
		s.PollInterval = &metav1.Duration{Duration: time.Hour}
	})
	g := NewWithT(t)
	ctx := context.Background()
	zone := h.sim.AddZone("Nook", "1", "3")
	h.create(h.newGroup("entrance", "nook", "Nook"))
	h.eventuallyGroupReady("entrance", "nook", "True/Available")
	h.create(&huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "cosy"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "nook"}, Name: "Cosy",
			Lights: []huev1alpha1.SceneLight{{Name: "lamp", Brightness: ptr.To[int32](120)}, {Name: "strip", Brightness: ptr.To[int32](60)}}},
	})
	eventuallySceneReady(h, "cosy", "True/Available")
	var sc huev1alpha1.HueScene
	g.Expect(h.c.Get(ctx, client.ObjectKey{Namespace: "entrance", Name: "cosy"}, &sc)).To(Succeed())
	id := sc.Status.SceneID
	g.Expect(h.sim.Scenes()).To(HaveKeyWithValue(id, HaveField("Group", zone)), "a v2 scene of the zone")

	hueApp := v2AppClient(t, h.sim)
	g.Expect(hueApp("PUT", "/clip/v2/resource/scene/"+h.sim.SceneIDV2(id), fmt.Sprintf(
		`{"actions":[{"target":{"rid":%q,"rtype":"light"},"action":{"on":{"on":true},"dimming":{"brightness":5}}}]}`, h.sim.LightIDV2("1")))).
		To(Equal(http.StatusOK))
	// The bridge's log holds the Hue app's write, then Tether's put-back
	// (reading the scene right after the PUT would race the push).
	g.Eventually(func(g Gomega) {
		writes := h.sceneWrites(id)
		app := slices.IndexFunc(writes, func(w string) bool { return strings.Contains(w, `"brightness":5`) })
		g.Expect(app).To(BeNumerically(">=", 0), "the Hue app's change reached the bridge")
		g.Expect(len(writes)).To(BeNumerically(">", app+1), "Tether wrote the scene after the Hue app")
	}, driftSeen, huePoll).Should(Succeed())
	g.Eventually(func() map[string]huesim.SceneState { return h.sim.Scenes()[id].States }, driftSeen, huePoll).
		Should(And(HaveLen(2), HaveKeyWithValue("1", HaveField("Bri", HaveValue(Equal(120))))), "the HueScene's spec is stored again")
	eventuallySceneReady(h, "cosy", "True/Available")
}
