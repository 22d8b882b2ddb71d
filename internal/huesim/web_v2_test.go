package huesim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	. "github.com/onsi/gomega"
)

// TestWebShowsV2RoomScenesAndEffects: what a client wrote through CLIP v2
// reaches the page. A room's v2 id; the scenes stored on it as v2 scenes,
// each with its v2 id, every light's action (on, brightness, colour) and
// which one is active (the one recalled, while its lights show it); and
// the effect a bulb plays, only on the bulb that plays it. The page's state
// is read as JSON, so a field the page lost fails here, not only in a
// browser.
func TestWebShowsV2RoomScenesAndEffects(t *testing.T) {
	g := NewWithT(t)
	s, c := startV2(t, Options{Lights: []string{"fireplace", "lamp"}, Models: map[string]string{"fireplace": "LCA001", "lamp": "LCT015"}})
	web := httptest.NewServer(s.WebHandler(WebOptions{}))
	t.Cleanup(web.Close)
	room := s.AddGroup("Lounge", "1", "2")
	roomRef := `"group":{"rid":"` + s.RoomIDV2(room) + `","rtype":"room"}`
	action := func(light, a string) string {
		return `{"target":{"rid":"` + s.LightIDV2(light) + `","rtype":"light"},"action":` + a + `}`
	}
	post := func(body string) string {
		st, v := v2Do(t, c, s, "POST", "/clip/v2/resource/scene", testUser, body)
		g.Expect(st).To(Equal(http.StatusOK), "POST scene: %v", v)
		return v["data"].([]any)[0].(map[string]any)["rid"].(string)
	}
	red := `{"on":{"on":true},"dimming":{"brightness":50},"color":{"xy":{"x":0.675,"y":0.322}}}`
	evening := post(`{"metadata":{"name":"evening"},` + roomRef + `,"actions":[` +
		action("1", red) + `,` + action("2", `{"on":{"on":false}}`) + `]}`)
	movie := post(`{"metadata":{"name":"movie"},` + roomRef + `,"actions":[` +
		action("1", `{"on":{"on":true},"dimming":{"brightness":10}}`) + `,` + action("2", `{"on":{"on":false}}`) + `]}`)
	st, v := v2Do(t, c, s, "PUT", "/clip/v2/resource/scene/"+evening, testUser, `{"recall":{"action":"active"}}`)
	g.Expect(st).To(Equal(http.StatusOK), "recall: %v", v)
	st, v = v2Do(t, c, s, "PUT", "/clip/v2/resource/light/"+s.LightIDV2("1"), testUser, `{"effects":{"effect":"candle"}}`)
	g.Expect(st).To(Equal(http.StatusOK), "effect: %v", v)

	res, err := http.Get(web.URL + "/state.json")
	g.Expect(err).NotTo(HaveOccurred())
	defer res.Body.Close()
	var page map[string]any
	g.Expect(json.NewDecoder(res.Body).Decode(&page)).To(Succeed())

	g.Expect(page["rooms"]).To(ConsistOf(And(
		HaveKeyWithValue("name", "Lounge"),
		HaveKeyWithValue("v2id", s.RoomIDV2(room)),
		HaveKeyWithValue("scene", "evening"),
		HaveKeyWithValue("scenes", HaveExactElements(
			And(HaveKeyWithValue("id", evening), HaveKeyWithValue("name", "evening"), HaveKeyWithValue("active", true),
				HaveKeyWithValue("lights", HaveExactElements(
					And(HaveKeyWithValue("name", "fireplace"), HaveKeyWithValue("on", true), HaveKeyWithValue("briPercent", BeEquivalentTo(50)),
						HaveKeyWithValue("swatch", SwatchColor(LightState{ColorMode: "xy", XY: [2]float64{0.675, 0.322}}))),
					And(HaveKeyWithValue("name", "lamp"), HaveKeyWithValue("on", false)),
				))),
			And(HaveKeyWithValue("id", movie), HaveKeyWithValue("name", "movie"), HaveKeyWithValue("active", false),
				HaveKeyWithValue("lights", HaveExactElements(
					And(HaveKeyWithValue("name", "fireplace"), HaveKeyWithValue("briPercent", BeEquivalentTo(10))),
					HaveKeyWithValue("name", "lamp"),
				))),
		)),
	)), "the room and its v2 scenes")
	g.Expect(page["lights"]).To(ConsistOf(
		And(HaveKeyWithValue("name", "fireplace"), HaveKeyWithValue("effect", "candle")),
		And(HaveKeyWithValue("name", "lamp"), HaveKeyWithValue("effect", "")),
	), "the effect the bulb plays")
}
