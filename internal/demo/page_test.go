package demo

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	gtypes "github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/api"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/browsertest"
	"github.com/tether-dev/tether/internal/testenv"
)

// pageDOM is what the open page shows, read from its elements' data
// attributes and visible text.
type pageDOM struct {
	Live    string              `json:"live"`
	Bridge  string              `json:"bridge"`
	Bulbs   []map[string]string `json:"bulbs"`
	Entries []map[string]string `json:"entries"`
	Tables  []map[string]string `json:"tables"`
	Rooms   []map[string]string `json:"rooms"`
	Indexes []map[string]string `json:"indexes"`
}

const readPageJS = `(() => {
	const all = (sel) => [...document.querySelectorAll(sel)].map((e) => ({ ...e.dataset, text: e.innerText }));
	return { live: document.body.dataset.live, bridge: document.getElementById("bridge-info").innerText,
		bulbs: all(".bulb"), entries: all(".entry"), tables: all(".table"), rooms: all(".room"), indexes: all(".table .index") };
})()`

// bulbNamed matches the card of one bulb.
func bulbNamed(name string, m ...gtypes.GomegaMatcher) gtypes.GomegaMatcher {
	return ContainElement(And(append([]gtypes.GomegaMatcher{HaveKeyWithValue("lightName", name)}, m...)...))
}

// entryWith matches a timeline entry.
func entryWith(m ...gtypes.GomegaMatcher) gtypes.GomegaMatcher {
	return ContainElement(And(m...))
}

// TestDemoPageInChromium runs the demo and drives the whole control loop
// through its page in headless Chromium at a projector's 1280x720: a
// HueLight applied shows on its bulb with its object, Ready and model;
// bulbs nobody declares show as unmanaged; a patch shows on the timeline in
// words; rooms show their HueGroup and scene; a table shows its status,
// billing and indexes, and two indexes added show their plan step by step;
// a HueLight for a missing bulb shows its warning; last, the page's Hue app
// control changes a bulb by hand, and the timeline shows the change and
// Tether's correction with the time it took. It checks the page fits a
// projector and a laptop and loads nothing from elsewhere, and keeps a
// screenshot as an artifact (the README's is one).
func TestDemoPageInChromium(t *testing.T) {
	g := NewWithT(t)
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	d, err := Start(ctx, Options{StateDir: t.TempDir(), AssetsDir: assets, WebAddr: "127.0.0.1:0"})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(d.Stop)
	browser := browsertest.Start(t) // stopped before the demo: the page's streams end first
	page, err := browser.Open(ctx, d.WebURL)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(page.SetViewport(ctx, 1280, 720)).To(Succeed())

	kubectl := func(args ...string) {
		cmd := exec.Command(d.Kubectl, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "KUBECONFIG="+d.Kubeconfig)
		out, err := cmd.CombinedOutput()
		g.Expect(err).NotTo(HaveOccurred(), "kubectl %v: %s", args, out)
	}
	read := func(g Gomega) pageDOM {
		var p pageDOM
		g.Expect(page.Eval(ctx, readPageJS, &p)).To(Succeed())
		return p
	}
	// Connected: every bulb is there, none declared yet, so all unmanaged.
	g.Eventually(read).WithTimeout(60 * time.Second).WithPolling(100 * time.Millisecond).Should(And(
		HaveField("Live", "true"),
		HaveField("Bulbs", HaveLen(len(DefaultLights))),
		HaveField("Bulbs", HaveEach(And(HaveKeyWithValue("managed", "false"), HaveKeyWithValue("text", ContainSubstring("unmanaged"))))),
		HaveField("Bridge", And(ContainSubstring("HueBridge home"), MatchRegexp(`Hue API V2 \(\d`))),
	))
	// The bridge speaks CLIP v2: the header shows its event stream's
	// state from status.eventStream (Connected once the stream is up).
	g.Eventually(read).WithTimeout(60 * time.Second).WithPolling(100 * time.Millisecond).Should(
		HaveField("Bridge", And(ContainSubstring("event stream Connected"), ContainSubstring("Ready ✓"))))

	// Apply the talk's HueLight: its bulb shows the object, Ready, the model.
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huelight.yaml")
	g.Eventually(read).WithTimeout(90 * time.Second).WithPolling(100 * time.Millisecond).Should(HaveField("Bulbs", And(
		bulbNamed("hallway", HaveKeyWithValue("managed", "true"), HaveKeyWithValue("driver", "entrance/hallway-light"),
			HaveKeyWithValue("ready", "True"), HaveKeyWithValue("on", "true"), HaveKeyWithValue("bri", "254"),
			HaveKeyWithValue("text", And(ContainSubstring("HueLight entrance/hallway-light"), ContainSubstring("Ready ✓"),
				ContainSubstring("Synced ✓"), ContainSubstring("colour · LCT015")))),
		bulbNamed("kitchen", HaveKeyWithValue("managed", "false"), HaveKeyWithValue("text", ContainSubstring("ambiance · LTW001"))),
		bulbNamed("porch", HaveKeyWithValue("text", ContainSubstring("plug · LOM001"))),
	)))
	// The bulb existed: the HueLight adopts it, and the first write says so.
	g.Eventually(read).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(HaveField("Entries",
		entryWith(HaveKeyWithValue("reason", "Updated"), HaveKeyWithValue("text", ContainSubstring("hallway: on false -> true, brightness 127 -> 254"))),
	), "no Updated entry for the first write")

	// Patch it: the timeline says what changed, in words.
	kubectl("patch", "huelight", "hallway-light", "-n", "entrance", "--type", "merge", "-p", `{"spec":{"brightness":40}}`)
	g.Eventually(read).WithTimeout(90 * time.Second).WithPolling(100 * time.Millisecond).Should(HaveField("Entries",
		entryWith(HaveKeyWithValue("reason", "Updated"), HaveKeyWithValue("text", And(
			ContainSubstring("hallway: brightness 254 -> 40"), ContainSubstring("HueLight entrance/hallway-light"))))))
	g.Eventually(read).WithTimeout(90 * time.Second).WithPolling(100 * time.Millisecond).Should(HaveField("Bulbs",
		bulbNamed("hallway", HaveKeyWithValue("bri", "40"), HaveKeyWithValue("ready", "True"))))

	// A HueLight for a bulb the bridge does not have: a warning, in red.
	missing := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "garage-light"},
		Spec: huev1alpha1.HueLightSpec{Name: "garage"}}
	g.Expect(d.Client.Create(ctx, missing)).To(Succeed())
	g.Eventually(read).WithTimeout(90 * time.Second).WithPolling(100 * time.Millisecond).Should(HaveField("Entries",
		entryWith(HaveKeyWithValue("type", "Warning"), HaveKeyWithValue("reason", "LightNotFound"),
			HaveKeyWithValue("text", And(ContainSubstring("garage:"), ContainSubstring("HueLight entrance/garage-light")))),
	))
	g.Expect(d.Client.Delete(ctx, missing)).To(Succeed())

	// Rooms: the living room adopted by a HueGroup, showing its Evening
	// scene; its bulbs show the HueGroup as what drives them.
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huegroup.yaml", "-f", "config/samples/hue_v1alpha1_huescene.yaml")
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huegroup_evening.yaml")
	g.Eventually(read).WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(And(
		HaveField("Rooms", ContainElement(And(HaveKeyWithValue("roomName", "Living room"), HaveKeyWithValue("driver", "entrance/living-room"),
			HaveKeyWithValue("ready", "True"), HaveKeyWithValue("scene", "evening"), HaveKeyWithValue("text", ContainSubstring("scene evening"))))),
		HaveField("Bulbs", And(
			bulbNamed("bedroom", HaveKeyWithValue("driver", "entrance/living-room"), HaveKeyWithValue("bri", "60"),
				HaveKeyWithValue("text", ContainSubstring("HueGroup entrance/living-room"))),
			bulbNamed("kitchen", HaveKeyWithValue("driver", "entrance/downstairs"), HaveKeyWithValue("managed", "true")),
			bulbNamed("porch", HaveKeyWithValue("managed", "false")),
		)),
	))

	// A table: its status, billing and index as DynamoDB reports them.
	kubectl("apply", "-f", "config/samples/aws_v1alpha1_dynamodbtable.yaml")
	g.Eventually(read).WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(And(
		HaveField("Tables", ContainElement(And(HaveKeyWithValue("tableName", "orders"), HaveKeyWithValue("status", "ACTIVE"),
			HaveKeyWithValue("ready", "True"), HaveKeyWithValue("text", And(ContainSubstring("PAY_PER_REQUEST"), ContainSubstring("nothing pending")))))),
		HaveField("Indexes", ContainElement(And(HaveKeyWithValue("index", "by-customer"), HaveKeyWithValue("status", "ACTIVE")))),
	))

	// Two indexes at once: DynamoDB takes one per call, so the plan has
	// two steps, and the page shows it shrink to none.
	kubectl("patch", "dynamodbtable", "orders", "--type", "json", "-p", `[
		{"op":"add","path":"/spec/attributeDefinitions/-","value":{"attributeName":"status","attributeType":"S"}},
		{"op":"add","path":"/spec/globalSecondaryIndexes/-","value":{"indexName":"by-status","keySchema":[{"attributeName":"status","keyType":"HASH"}],"projection":{"projectionType":"KEYS_ONLY"}}},
		{"op":"add","path":"/spec/globalSecondaryIndexes/-","value":{"indexName":"by-date","keySchema":[{"attributeName":"createdAt","keyType":"HASH"}],"projection":{"projectionType":"KEYS_ONLY"}}}]`)
	g.Eventually(read).WithTimeout(3 * time.Minute).WithPolling(200 * time.Millisecond).Should(And(
		HaveField("Entries", And(
			entryWith(HaveKeyWithValue("source", "plan"), HaveKeyWithValue("text", MatchRegexp(`orders: plan, 2 step\(s\) to go: create index by-\w+ → create index by-\w+`))),
			entryWith(HaveKeyWithValue("source", "plan"), HaveKeyWithValue("text", MatchRegexp(`orders: plan, 1 step\(s\) to go: create index by-\w+`))),
			entryWith(HaveKeyWithValue("source", "plan"), HaveKeyWithValue("text", ContainSubstring("orders: plan done"))),
		)),
		HaveField("Indexes", And(
			ContainElement(And(HaveKeyWithValue("index", "by-status"), HaveKeyWithValue("status", "ACTIVE"))),
			ContainElement(And(HaveKeyWithValue("index", "by-date"), HaveKeyWithValue("status", "ACTIVE"))),
		)),
		HaveField("Tables", ContainElement(HaveKeyWithValue("text", ContainSubstring("nothing pending")))),
	))

	// The Hue app control: switch the hallway off by hand. The bulb goes
	// off (the hand entry), Tether puts it back (the event, and the
	// correction with the time it took, which cannot exceed what the test
	// itself waited).
	clicked := time.Now()
	g.Expect(page.Eval(ctx, `(() => {
		document.getElementById("hue-app-bulb").value = "hallway";
		document.querySelector("#hue-app button[data-change='{\"on\":false}']").click();
	})()`, nil)).To(Succeed())
	g.Eventually(read).WithTimeout(90 * time.Second).WithPolling(100 * time.Millisecond).Should(HaveField("Entries", And(
		entryWith(HaveKeyWithValue("source", "hand"), HaveKeyWithValue("text", ContainSubstring("hallway changed by hand (Hue app): on -> off"))),
		entryWith(HaveKeyWithValue("source", "putBack"), HaveKeyWithValue("text", MatchRegexp(`hallway put back in (\d+\.\d\d s|\d+\.\d ms): off -> on`))),
		entryWith(HaveKeyWithValue("reason", "DriftCorrected"), HaveKeyWithValue("text", ContainSubstring("hallway: put back on false -> true"))),
	)))
	waited := time.Since(clicked)
	// The control's note says what was sent, in the past tense: still true
	// now that the bulb is back on.
	var note string
	g.Expect(page.Eval(ctx, `document.getElementById("hue-app-note").textContent`, &note)).To(Succeed())
	g.Expect(note).To(MatchRegexp(`^\d\d:\d\d:\d\d\.\d: "Off" sent to hallway$`))
	var took int64
	for _, e := range read(g).Entries {
		if e["source"] == "putBack" {
			took, err = strconv.ParseInt(e["tookMs"], 10, 64)
			g.Expect(err).NotTo(HaveOccurred())
		}
	}
	g.Expect(took).To(And(BeNumerically(">", 0), BeNumerically("<=", waited.Milliseconds())),
		"the correction's time is not between the click and the test seeing it")
	light, _ := d.Bridge.LightByName("hallway")
	g.Expect(light.State.On).To(BeTrue(), "the page says put back, the bulb is off")
	g.Eventually(read).WithTimeout(90*time.Second).WithPolling(100*time.Millisecond).Should(HaveField("Bulbs",
		bulbNamed("hallway", HaveKeyWithValue("on", "true"), HaveKeyWithValue("ready", "True"))), "the hallway does not settle Ready")

	// The screenshot first, so a page that fails the checks below can be seen.
	screenshot(ctx, t, g, page, "page.png")
	checkFits(ctx, t, g, page, 1280, 720)
	checkOffline(ctx, g, page)
	checkPageIsReadOnly(ctx, g, d)
	// A laptop's screen: still all on screen.
	g.Expect(page.SetViewport(ctx, 1440, 900)).To(Succeed())
	checkFits(ctx, t, g, page, 1440, 900)
}

// checkFits: at width x height (a projector's 1280x720, a laptop's screen)
// every bulb, the Hue app control, the timeline and each table are on
// screen whole (nothing cut off or scrolled away), and no text is smaller
// than 16 px.
func checkFits(ctx context.Context, t *testing.T, g *WithT, page *browsertest.Page, width, height int) {
	t.Helper()
	var fit struct {
		Width, Height int
		Checked       int
		Outside       []string
		Small         []string
	}
	g.Expect(page.Eval(ctx, `(() => {
		const outside = [], small = [];
		const parts = document.querySelectorAll("header, .bulb, #hue-app, #timeline, #tables, .table");
		for (const e of parts) {
			const r = e.getBoundingClientRect();
			if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight || r.width === 0) outside.push(e.id || e.className);
		}
		const tables = document.getElementById("tables");
		if (tables.scrollHeight > tables.clientHeight) outside.push("the tables panel scrolls");
		for (const e of document.querySelectorAll("body *")) {
			const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
			if (own && e.offsetParent !== null && parseFloat(getComputedStyle(e).fontSize) < 16) small.push(e.outerHTML.slice(0, 80));
		}
		return { Width: innerWidth, Height: innerHeight, Checked: parts.length, Outside: outside, Small: small };
	})()`, &fit)).To(Succeed())
	g.Expect(fit.Width).To(Equal(width))
	g.Expect(fit.Height).To(Equal(height))
	g.Expect(fit.Checked).To(BeNumerically(">=", len(DefaultLights)+4))
	g.Expect(fit.Outside).To(BeEmpty(), "parts of the page off a %dx%d screen", width, height)
	g.Expect(fit.Small).To(BeEmpty(), "text under 16px")
}

// checkOffline: the page loaded nothing from anywhere but the demo process
// (no fonts, scripts or styles from elsewhere; not the API server either).
func checkOffline(ctx context.Context, g *WithT, page *browsertest.Page) {
	var res struct {
		Origin    string
		Resources []string
		External  int
	}
	g.Expect(page.Eval(ctx, `({ Origin: location.origin,
		Resources: performance.getEntriesByType("resource").map((r) => r.name),
		External: document.querySelectorAll("script[src], link[href], img[src], iframe").length })`, &res)).To(Succeed())
	g.Expect(res.External).To(BeZero(), "the page loads scripts, styles or images")
	g.Expect(res.Resources).NotTo(BeEmpty(), "no resource timing: the check below checks nothing")
	for _, r := range res.Resources {
		g.Expect(r).To(HavePrefix(res.Origin+"/"), "the page fetched %s", r)
	}
}

// screenshot keeps what the page shows now as a test artifact, with CSS
// transitions stopped so it shows the final state.
func screenshot(ctx context.Context, t *testing.T, g *WithT, page *browsertest.Page, name string) {
	t.Helper()
	g.Expect(page.Eval(ctx, `document.head.insertAdjacentHTML("beforeend", "<style>*{transition:none!important}</style>")`, nil)).To(Succeed())
	png, err := page.Screenshot(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	browsertest.SaveArtifact(t, name, png)
}

// checkPageIsReadOnly: the identity the page reads the cluster with may
// list Tether's objects and may not change them.
func checkPageIsReadOnly(ctx context.Context, g *WithT, d *Demo) {
	s, err := api.NewScheme()
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(d.PageConfig, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())
	var lights huev1alpha1.HueLightList
	g.Expect(c.List(ctx, &lights)).To(Succeed())
	g.Expect(lights.Items).NotTo(BeEmpty())
	light := lights.Items[0]
	light.Spec.Brightness = ptr.To[int32](1)
	g.Expect(apierrors.IsForbidden(c.Update(ctx, &light))).To(BeTrue(), "the page's identity may update a HueLight")
	g.Expect(apierrors.IsForbidden(c.Create(ctx, &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "x"},
		Spec: huev1alpha1.HueLightSpec{Name: "porch"}}))).To(BeTrue(), "the page's identity may create a HueLight")
	g.Expect(apierrors.IsForbidden(c.List(ctx, &corev1.SecretList{}))).To(BeTrue(), "the page's identity may read Secrets")
}
