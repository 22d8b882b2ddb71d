package huesim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/browsertest"
)

// bulbDOM is what the page shows for one bulb.
type bulbDOM struct {
	LightName string `json:"lightName"`
	On        string `json:"on"`
	Bri       string `json:"bri"`
	Reachable string `json:"reachable"`
	Color     string `json:"color"`
	Text      string `json:"text"`
}

// bulbJS reads a bulb's data attributes and visible text, or null.
const bulbJS = `(() => {
	const el = document.querySelector('.bulb[data-light-name=%q]');
	return el && { ...el.dataset, text: el.innerText };
})()`

// TestWebPageInChromium loads the page in headless Chromium, changes a
// light the way a client (the operator) would, over the bridge API, and
// checks that the open page shows it without a reload.
func TestWebPageInChromium(t *testing.T) {
	tables := func(context.Context) ([]TableInfo, error) {
		return []TableInfo{{Name: "talk-orders", Status: "ACTIVE", BillingMode: "PAY_PER_REQUEST"}}, nil
	}
	s, web := startWeb(t, WebOptions{Tables: tables})
	browser := browsertest.Start(t) // after startWeb: stopped first, so the page's stream ends before the server
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, err := browser.Open(ctx, web.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	g := NewWithT(t)
	bulb := func(name string) func(Gomega) bulbDOM {
		return func(g Gomega) bulbDOM {
			var b bulbDOM
			g.Expect(page.Eval(ctx, fmt.Sprintf(bulbJS, name), &b)).To(Succeed())
			return b
		}
	}
	eventually := func(f any) AsyncAssertion {
		return g.Eventually(f).WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond)
	}

	// Loaded and connected: the bulb is drawn off, the stream is open.
	eventually(bulb("hallway")).Should(And(HaveField("On", "false"), HaveField("Reachable", "true")))
	eventually(func(g Gomega) string {
		var live string
		g.Expect(page.Eval(ctx, `document.body.dataset.live`, &live)).To(Succeed())
		return live
	}).Should(Equal("true"))
	g.Expect(page.Eval(ctx, `window.notReloaded = true`, nil)).To(Succeed())

	putState(t, s, "1", `{"on":true,"bri":127}`)

	want := GlowColor(LightState{On: true, Bri: 127, ColorMode: "ct", CT: 366})
	eventually(bulb("hallway")).Should(And(
		HaveField("On", "true"), HaveField("Bri", "127"), HaveField("Color", want),
		HaveField("Text", ContainSubstring("ON · 50%")),
	))
	var notReloaded bool
	g.Expect(page.Eval(ctx, `window.notReloaded === true`, &notReloaded)).To(Succeed())
	g.Expect(notReloaded).To(BeTrue(), "the page reloaded instead of being pushed the change")

	// Behind the operator's back: a bulb becomes unreachable, one is added.
	g.Expect(s.SetReachable("2", false)).To(Succeed())
	id := s.AddLight("porch")
	g.Expect(s.ChangeLight(id, func(st *LightState) { st.On, st.Bri, st.ColorMode, st.Hue, st.Sat = true, 254, "hs", 46920, 254 })).To(Succeed())
	eventually(bulb("kitchen")).Should(And(HaveField("Reachable", "false"), HaveField("Text", MatchRegexp("(?i)unreachable"))))
	eventually(bulb("porch")).Should(And(HaveField("On", "true"), HaveField("Color", SwatchColor(LightState{ColorMode: "hs", Hue: 46920, Sat: 254}))))

	// The bridge drops off the network and comes back: a banner says so.
	banner := func(g Gomega) bool {
		var shown bool
		g.Expect(page.Eval(ctx, `getComputedStyle(document.getElementById("banner")).display !== "none"`, &shown)).To(Succeed())
		return shown
	}
	s.Offline(Refuse)
	eventually(banner).Should(BeTrue())
	g.Expect(s.Online()).To(Succeed())
	eventually(banner).Should(BeFalse())

	eventually(func(g Gomega) string {
		var text string
		g.Expect(page.Eval(ctx, `document.querySelector('#tables').innerText`, &text)).To(Succeed())
		return text
	}).Should(And(ContainSubstring("talk-orders"), ContainSubstring("ACTIVE")))

	// A room whose scene is recalled over the API shows it, until one of
	// its lights is changed.
	room := s.AddGroup("Living room", "1", "3")
	scene := func(g Gomega) string {
		var sc string
		g.Expect(page.Eval(ctx, `(document.querySelector('.room[data-room-name="Living room"]') || {dataset: {}}).dataset.scene`, &sc)).To(Succeed())
		return sc
	}
	eventually(scene).Should(Equal(""))
	sceneID := apiCreateScene(t, s, `{"name":"Evening","lights":["1","3"],"lightstates":{"1":{"on":true,"bri":80,"ct":400},"3":{"on":true,"bri":200}}}`)
	apiPut(t, s, "/groups/"+room+"/action", `{"scene":"`+sceneID+`"}`)
	eventually(scene).Should(Equal("Evening"))
	g.Expect(s.ChangeLight("3", func(st *LightState) { st.Bri = 20 })).To(Succeed())
	eventually(scene).Should(Equal(""))
	apiPut(t, s, "/groups/"+room+"/action", `{"scene":"`+sceneID+`"}`)
	eventually(scene).Should(Equal("Evening"))

	// A bulb that plays a CLIP v2 effect says which.
	fireplace := s.AddLightModel("fireplace", "LCA001")
	eventually(bulb("fireplace")).Should(HaveField("Text", Not(ContainSubstring("effect"))))
	g.Expect(s.SetEffect(fireplace, "candle")).To(Succeed())
	eventually(bulb("fireplace")).Should(HaveField("Text", ContainSubstring("effect: candle")))

	// Stop the CSS transitions so the screenshot shows the final state.
	g.Expect(page.Eval(ctx, `document.head.insertAdjacentHTML("beforeend", "<style>*{transition:none!important}</style>")`, nil)).To(Succeed())
	png, err := page.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	browsertest.SaveArtifact(t, "page.png", png)
}

// putState sends a light command over the bridge's v1 API, as the operator
// does, and fails the test unless every attribute succeeded.
func putState(t *testing.T, s *Server, id, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, s.URL()+"/api/"+testUser+"/lights/"+id+"/state", strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var answer []map[string]any
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	for _, a := range answer {
		if _, ok := a["success"]; !ok {
			t.Fatalf("PUT %s: %v", body, answer)
		}
	}
}

// apiPut sends a PUT over the bridge's v1 API and fails the test unless
// every attribute succeeded.
func apiPut(t *testing.T, s *Server, path, body string) {
	t.Helper()
	for _, a := range apiCall(t, s, http.MethodPut, path, body) {
		if _, ok := a["success"]; !ok {
			t.Fatalf("PUT %s %s: %v", path, body, a)
		}
	}
}

// apiCreateScene stores a scene over the v1 API and returns its id.
func apiCreateScene(t *testing.T, s *Server, body string) string {
	t.Helper()
	answer := apiCall(t, s, http.MethodPost, "/scenes", body)
	id, _ := answer[0]["success"].(map[string]any)["id"].(string)
	if id == "" {
		t.Fatalf("POST /scenes: %v", answer)
	}
	return id
}

func apiCall(t *testing.T, s *Server, method, path, body string) []map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL()+"/api/"+testUser+path, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var answer []map[string]any
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	return answer
}
