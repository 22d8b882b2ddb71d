package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	gtypes "github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
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
	Bridges []map[string]string `json:"bridges"`
	Bulbs   []map[string]string `json:"bulbs"`
	Entries []map[string]string `json:"entries"`
	Tables  []map[string]string `json:"tables"`
	Rooms   []map[string]string `json:"rooms"`
	Scenes  []map[string]string `json:"scenes"`
	Indexes []map[string]string `json:"indexes"`
	Plan    []map[string]string `json:"plan"`
}

const readPageJS = `(() => {
	const all = (sel) => [...document.querySelectorAll(sel)].map((e) => ({ ...e.dataset, text: e.innerText }));
	return { live: document.body.dataset.live, bridges: all("#bridges .bridge"), bulbs: all(".bulb"), entries: all(".entry"),
		tables: all(".table"), rooms: all(".room"), scenes: all(".room .v2scene"), indexes: all(".table .index"), plan: all(".table .checklist .step") };
})()`

// emptyStatesJS records, from the moment a document starts, every state of
// the page's empty and connecting notes: a note that says there is nothing
// while the page has not heard from the demo yet is a false empty state
// (a speaker reloading the page would read "No lights" on a bridge full of
// them). It runs before the page's own script and keeps its record in
// window.emptyStates.
const emptyStatesJS = `(() => {
	window.emptyStates = [];
	const visible = (e) => e && !e.hidden && e.offsetParent !== null;
	const record = () => {
		const b = document.body;
		if (!b) return;
		const notes = [...document.querySelectorAll(".empty, .connecting")].filter(visible).map((e) => ({
			text: e.innerText, empty: e.classList.contains("empty"),
			bridge: b.dataset.bridgeSnapshot === "true", cluster: b.dataset.clusterSnapshot === "true" }));
		const key = JSON.stringify(notes);
		if (window.emptyStates.length === 0 || window.emptyStates[window.emptyStates.length - 1].key !== key) {
			window.emptyStates.push({ key, notes });
		}
	};
	document.addEventListener("DOMContentLoaded", () => {
		record();
		new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
	});
})()`

// emptyNote is one note the recorder saw.
type emptyNote struct {
	Text    string `json:"text"`
	Empty   bool   `json:"empty"`
	Bridge  bool   `json:"bridge"`
	Cluster bool   `json:"cluster"`
}

// bulbNamed matches the card of one bulb.
func bulbNamed(name string, m ...gtypes.GomegaMatcher) gtypes.GomegaMatcher {
	return ContainElement(And(append([]gtypes.GomegaMatcher{HaveKeyWithValue("lightName", name)}, m...)...))
}

// entryWith matches a timeline entry.
func entryWith(m ...gtypes.GomegaMatcher) gtypes.GomegaMatcher {
	return ContainElement(And(m...))
}

// walkthrough drives hack/demo-script.sh as a speaker does: it waits at
// each step for Enter. The step before is done once the next one's title
// is printed.
type walkthrough struct {
	t      *testing.T
	cmd    *exec.Cmd
	enter  io.WriteCloser
	titles chan string
	done   chan error
	out    *testenv.SyncBuffer
}

func startWalkthrough(t *testing.T, root, stateDir string) *walkthrough {
	t.Helper()
	w := &walkthrough{t: t, titles: make(chan string, 64), done: make(chan error, 1), out: &testenv.SyncBuffer{}}
	w.cmd = exec.Command(filepath.Join(root, "hack", "demo-script.sh"))
	w.cmd.Env = append(os.Environ(), "DEMO_STATE="+stateDir)
	w.cmd.Dir = root
	var err error
	if w.enter, err = w.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.cmd.Stderr = w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(w.out, line)
			if _, title, ok := strings.Cut(line, "== "); ok {
				w.titles <- strings.TrimSuffix(title, "\033[0m")
			}
		}
		close(w.titles)
		w.done <- w.cmd.Wait()
	}()
	t.Cleanup(func() { _ = w.cmd.Process.Kill() })
	return w
}

// next waits for the next step's title (the step before it is done).
func (w *walkthrough) next(timeout time.Duration) string {
	w.t.Helper()
	select {
	case title, ok := <-w.titles:
		if !ok {
			w.t.Fatalf("the walkthrough ended early: %v\n%s", <-w.done, w.out.String())
		}
		return title
	case <-time.After(timeout):
		w.t.Fatalf("no next step within %s:\n%s", timeout, w.out.String())
		return ""
	}
}

// proceed presses Enter.
func (w *walkthrough) proceed() {
	w.t.Helper()
	if _, err := io.WriteString(w.enter, "\n"); err != nil {
		w.t.Fatalf("pressing Enter: %v\n%s", err, w.out.String())
	}
}

// TestDemoPageInChromium follows the README's own sequence with the page
// open in headless Chromium: `make demo` (Start), the samples the README
// applies, then hack/demo-script.sh step by step, Enter after each, as a
// speaker runs it. Along the way it checks what the audience sees:
//   - the page says "connecting" until each stream's first snapshot, and
//     never that there is nothing when there is (a reload included);
//   - every bulb names its object, Ready and model; bulbs nobody declares
//     are unmanaged; rooms show their HueGroup and scene;
//   - a change by hand (the walkthrough's, and the page's Hue app control)
//     is one entry: changed by hand, pushed by the bridge, put back, with
//     the time each took; the bulb card marks the push;
//   - a bridge going offline is one line however many objects wait for it;
//   - a table's plan of two index creations is a checklist, both ticked;
//   - at 1280x720 and at 1920x1080 (screenshots of both are kept) the bulbs
//     fill their share of the width, the type grows with the screen, and
//     everything is on screen with no text under 16 px;
//   - the walkthrough raises no Warning event but the bridge's outage.
//
// It also checks that the page loads nothing from elsewhere and that its
// identity may only read the cluster.
func TestDemoPageInChromium(t *testing.T) {
	g := NewWithT(t)
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	stateDir := t.TempDir()
	d, err := Start(ctx, Options{StateDir: stateDir, AssetsDir: assets, WebAddr: "127.0.0.1:0"})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(d.Stop)
	browser := browsertest.Start(t) // stopped before the demo: the page's streams end first
	page, err := browser.Open(ctx, "about:blank")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(page.SetViewport(ctx, 1280, 720)).To(Succeed())
	g.Expect(page.OnNewDocument(ctx, emptyStatesJS)).To(Succeed())
	g.Expect(page.Navigate(ctx, d.WebURL)).To(Succeed())

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
	eventually := func(timeout time.Duration, m gtypes.GomegaMatcher, what string) {
		t.Helper()
		g.Eventually(read).WithTimeout(timeout).WithPolling(100*time.Millisecond).Should(m, what)
	}
	// Connected: every bulb is there, none declared yet, so all unmanaged;
	// the bridge pushes its changes.
	eventually(60*time.Second, And(
		HaveField("Live", "true"),
		HaveField("Bulbs", HaveLen(len(DefaultLights))),
		HaveField("Bulbs", HaveEach(And(HaveKeyWithValue("managed", "false"), HaveKeyWithValue("text", ContainSubstring("unmanaged"))))),
		HaveField("Bridges", ConsistOf(And(HaveKeyWithValue("bridge", "home"), HaveKeyWithValue("stream", "Connected"),
			HaveKeyWithValue("text", And(MatchRegexp(`HueBridge home · Hue API V2 \(\d`), ContainSubstring("⇡ pushes changes"),
				ContainSubstring("Ready ✓")))))),
	), "the page does not show the demo's bridge, connected")

	// The README's samples.
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huelight.yaml")
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huelight_limits.yaml")
	kubectl("apply", "-f", "config/samples/aws_v1alpha1_dynamodbtable.yaml")
	eventually(2*time.Minute, And(
		HaveField("Bulbs", And(
			bulbNamed("hallway", HaveKeyWithValue("driver", "entrance/hallway-light"), HaveKeyWithValue("ready", "True"),
				HaveKeyWithValue("on", "true"), HaveKeyWithValue("bri", "254"),
				HaveKeyWithValue("text", And(ContainSubstring("HueLight entrance/hallway-light"), ContainSubstring("Ready ✓"),
					ContainSubstring("Synced ✓"), ContainSubstring("colour · LCA001")))),
			bulbNamed("porch", HaveKeyWithValue("readyReason", "Limited"), HaveKeyWithValue("text", ContainSubstring("plug · LOM001"))),
			bulbNamed("kitchen", HaveKeyWithValue("managed", "false"), HaveKeyWithValue("text", ContainSubstring("ambiance · LTW001"))),
		)),
		HaveField("Entries", entryWith(HaveKeyWithValue("reason", "Updated"),
			HaveKeyWithValue("text", ContainSubstring("hallway: switched on, brightness 127 → 254")))),
		HaveField("Tables", ContainElement(And(HaveKeyWithValue("tableName", "orders"), HaveKeyWithValue("status", "ACTIVE"),
			HaveKeyWithValue("ready", "True"), HaveKeyWithValue("text", ContainSubstring("PAY_PER_REQUEST"))))),
	), "the README's samples do not show")

	// A speaker reloads the page: it says "connecting" until it hears from
	// the demo again, and never that there is nothing.
	g.Expect(page.Eval(ctx, `window.beforeReload = true; location.reload()`, nil)).To(Succeed())
	g.Eventually(func(g Gomega) bool {
		var old bool
		g.Expect(page.Eval(ctx, `window.beforeReload === true`, &old)).To(Succeed())
		return old
	}).WithTimeout(30*time.Second).WithPolling(50*time.Millisecond).Should(BeFalse(), "the page did not reload")
	eventually(60*time.Second, And(HaveField("Live", "true"), HaveField("Bulbs", HaveLen(len(DefaultLights)))), "the page does not come back")
	var states []struct{ Notes []emptyNote }
	g.Expect(page.Eval(ctx, `window.emptyStates`, &states)).To(Succeed())
	g.Expect(states).NotTo(BeEmpty(), "the recorder saw nothing: the check below checks nothing")
	g.Expect(states[0].Notes).To(ContainElement(HaveField("Text", ContainSubstring("connecting"))),
		"the reloaded page did not say it was connecting before its first snapshot")

	// The walkthrough, step by step.
	walkStart := time.Now()
	w := startWalkthrough(t, root, stateDir)
	g.Expect(w.next(2 * time.Minute)).To(Equal("Clearing the stage"))
	for {
		title := w.next(3 * time.Minute)
		switch {
		case strings.HasPrefix(title, "The bridge drops off the network"):
			// The hand change the walkthrough made (curl, as the Hue app
			// would) is done: then the page's own Hue app control.
			checkHandLoops(ctx, t, g, page, read)
			checkScreens(ctx, t, g, page)
		case strings.HasPrefix(title, "The living room"):
			// The candle: the bulb says which effect it plays (read from
			// the bridge's CLIP v2 state); the timeline has it lit, stopped
			// by hand and lit again by Tether.
			eventually(30*time.Second, And(
				HaveField("Bulbs", bulbNamed("hallway", HaveKeyWithValue("driver", "entrance/candle"),
					HaveKeyWithValue("effect", "candle"), HaveKeyWithValue("text", MatchRegexp(`(?m)^candle$`)))),
				HaveField("Entries", And(
					entryWith(HaveKeyWithValue("reason", "Updated"), HaveKeyWithValue("text", MatchRegexp(`hallway: switched on, .*plays candle`))),
					entryWith(HaveKeyWithValue("source", "hand"), HaveKeyWithValue("text", And(
						ContainSubstring("hallway changed by hand (Hue app): effect candle → none"), ContainSubstring("PUT BACK")))),
					entryWith(HaveKeyWithValue("reason", "DriftCorrected"), HaveKeyWithValue("text", ContainSubstring("hallway: put back: plays candle"))),
				)),
			), "the candle, its hand change and its correction do not show")
			// The outage was one red line, however many objects waited.
			eventually(30*time.Second, HaveField("Entries", entryWith(HaveKeyWithValue("type", "Warning"),
				HaveKeyWithValue("reason", "BridgeUnreachable"),
				HaveKeyWithValue("text", And(ContainSubstring("BridgeUnreachablebridge home is unreachable: connection refused\n"),
					ContainSubstring("HueBridge home"), ContainSubstring("HueLight entrance/hallway-light"))))),
				"the outage is not one line naming its objects")
		case strings.HasPrefix(title, "Delete the room's HueGroup"):
			eventually(30*time.Second, And(
				HaveField("Rooms", ContainElement(And(HaveKeyWithValue("roomName", "Living room"),
					HaveKeyWithValue("driver", "entrance/living-room"), HaveKeyWithValue("scene", "movie")))),
				HaveField("Bulbs", And(bulbNamed("bedroom", HaveKeyWithValue("driver", "entrance/living-room"), HaveKeyWithValue("on", "false")),
					bulbNamed("kitchen", HaveKeyWithValue("driver", "entrance/downstairs")))),
				HaveField("Entries", entryWith(HaveKeyWithValue("text", ContainSubstring("Living room: shows scene movie")))),
				// The room's lights, its CLIP v2 id, and the scenes stored
				// on it as CLIP v2 scenes, each light's action, movie active.
				HaveField("Rooms", ContainElement(And(HaveKeyWithValue("roomName", "Living room"),
					HaveKeyWithValue("lights", "living-room, bedroom"), HaveKeyWithValue("v2id", Not(BeEmpty())),
					HaveKeyWithValue("text", ContainSubstring("· living-room, bedroom"))))),
				HaveField("Scenes", And(
					ContainElement(And(HaveKeyWithValue("sceneName", "Evening"), HaveKeyWithValue("active", "false"),
						HaveKeyWithValue("sceneId", Not(BeEmpty())), HaveKeyWithValue("lights", MatchRegexp(`^living-room on \d+% #[0-9a-f]{6}; bedroom on \d+% #[0-9a-f]{6}$`)))),
					ContainElement(And(HaveKeyWithValue("sceneName", "Movie"), HaveKeyWithValue("active", "true"),
						HaveKeyWithValue("lights", ContainSubstring("bedroom off")))),
				)),
			), "the scenes do not show")
			// With the rooms' scenes and the candle drawn, the page still
			// fits the projector.
			screenshot(ctx, t, g, page, "page-scenes-1280x720.png")
			checkFits(ctx, t, g, page, 1280, 720)
		case strings.HasPrefix(title, "Delete it"):
			// Two indexes, one per call: a checklist of two steps, both
			// ticked.
			eventually(time.Minute, And(
				HaveField("Plan", ConsistOf(
					And(HaveKeyWithValue("step", "create index by-status"), HaveKeyWithValue("done", "true")),
					And(HaveKeyWithValue("step", "create index by-date"), HaveKeyWithValue("done", "true")))),
				HaveField("Indexes", And(
					ContainElement(And(HaveKeyWithValue("index", "by-status"), HaveKeyWithValue("status", "ACTIVE"))),
					ContainElement(And(HaveKeyWithValue("index", "by-date"), HaveKeyWithValue("status", "ACTIVE"))))),
				HaveField("Tables", ContainElement(HaveKeyWithValue("text", ContainSubstring("plan done 2/2")))),
			), "the table's plan is not a ticked checklist")
		}
		w.proceed()
		if strings.HasPrefix(title, "Delete it") {
			break
		}
	}
	select {
	case err := <-w.done:
		g.Expect(err).NotTo(HaveOccurred(), "the walkthrough failed:\n%s", w.out.String())
	case <-time.After(3 * time.Minute):
		t.Fatalf("the walkthrough did not end:\n%s", w.out.String())
	}
	g.Expect(w.out.String()).To(ContainSubstring("That was the talk."))
	checkNoWarningsBut(ctx, g, d, walkStart, "BridgeUnreachable")

	g.Expect(page.Eval(ctx, `window.emptyStates`, &states)).To(Succeed())
	for _, s := range states {
		for _, n := range s.Notes {
			g.Expect(n.Empty && (!n.Bridge || !n.Cluster || strings.Contains(n.Text, "No lights") ||
				strings.Contains(n.Text, "no HueBridge"))).To(BeFalse(), "a false empty state: %+v", n)
		}
	}
	checkOffline(ctx, g, page)
	checkPageIsReadOnly(ctx, g, d)
}

// checkHandLoops: the walkthrough's hand change, then one made with the
// page's Hue app control, are each one entry that shows the bridge pushing
// the change and Tether putting the bulb back, with the times; the bulb's
// card marks the push.
func checkHandLoops(ctx context.Context, t *testing.T, g *WithT, page *browsertest.Page, read func(Gomega) pageDOM) {
	t.Helper()
	loop := func(what string) gtypes.GomegaMatcher {
		return entryWith(HaveKeyWithValue("source", "hand"), HaveKeyWithValue("light", "hallway"),
			HaveKeyWithValue("pushed", "true"), HaveKeyWithValue("putBack", "true"),
			HaveKeyWithValue("text", And(ContainSubstring("hallway changed by hand (Hue app): "+what),
				MatchRegexp(`⇡ pushed by the bridge \+[\d.]+ m?s`), MatchRegexp(`PUT BACK by Tether in [\d.]+ m?s \([\d.]+ m?s after the push\)`))))
	}
	g.Eventually(read).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(And(
		HaveField("Entries", loop("on → off")),
		HaveField("Bulbs", bulbNamed("hallway", HaveKeyWithValue("pushedAt", Not(BeEmpty())), HaveKeyWithValue("on", "true"),
			HaveKeyWithValue("text", ContainSubstring("⇡ pushed by the bridge")))),
	), "the walkthrough's hand change is not shown pushed and put back")

	clicked := time.Now()
	g.Expect(page.Eval(ctx, `(() => {
		document.getElementById("hue-app-bulb").value = "hallway";
		document.querySelector("#hue-app button[data-change='{\"on\":true,\"bri\":25}']").click();
	})()`, nil)).To(Succeed())
	var p pageDOM
	g.Eventually(func(g Gomega) {
		p = read(g)
		g.Expect(p.Entries).To(loop("brightness 60 → 25"))
	}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(Succeed(), "the Hue app's change is not shown pushed and put back")
	waited := time.Since(clicked)
	for _, e := range p.Entries {
		if e["source"] == "hand" && strings.Contains(e["text"], "brightness 60 → 25") {
			var pushed, took float64
			_, _ = fmt.Sscan(e["pushedMs"], &pushed)
			_, _ = fmt.Sscan(e["tookMs"], &took)
			g.Expect(pushed).To(BeNumerically(">", 0))
			g.Expect(took).To(And(BeNumerically(">=", pushed), BeNumerically("<=", float64(waited.Milliseconds()))),
				"the correction's time is not between the push and the test seeing it")
		}
	}
	var note string
	g.Expect(page.Eval(ctx, `document.getElementById("hue-app-note").textContent`, &note)).To(Succeed())
	g.Expect(note).To(MatchRegexp(`^\d\d:\d\d:\d\d\.\d: "Dim" sent to hallway$`))
	g.Eventually(read).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(HaveField("Bulbs",
		bulbNamed("hallway", HaveKeyWithValue("bri", "60"), HaveKeyWithValue("ready", "True"), HaveKeyWithValue("readyReason", "Available"))),
		"the hallway does not settle Ready")
}

// checkScreens takes the screenshots at a projector's 1280x720 and at
// 1920x1080, and checks each: everything on screen, no text under 16 px,
// the bulbs filling their share of the width; and that the type grows
// with the screen.
func checkScreens(ctx context.Context, t *testing.T, g *WithT, page *browsertest.Page) {
	t.Helper()
	var sizes []float64
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		g.Expect(page.SetViewport(ctx, size[0], size[1])).To(Succeed())
		screenshot(ctx, t, g, page, fmt.Sprintf("page-%dx%d.png", size[0], size[1]))
		checkFits(ctx, t, g, page, size[0], size[1])
		sizes = append(sizes, checkBulbsFillTheWidth(ctx, t, g, page))
	}
	g.Expect(sizes[1]/sizes[0]).To(BeNumerically(">=", 1.4), "the bulbs' names do not grow from 1280 to 1920 wide")
	for _, laptop := range [][2]int{{1400, 900}, {1440, 900}} { // the header wrapped its title at 1400
		g.Expect(page.SetViewport(ctx, laptop[0], laptop[1])).To(Succeed())
		checkFits(ctx, t, g, page, laptop[0], laptop[1])
	}
	g.Expect(page.SetViewport(ctx, 1280, 720)).To(Succeed())
}

// checkBulbsFillTheWidth: the bulbs take more than half of the screen's
// width, in rows of equal cards; it returns the size of a bulb's name.
func checkBulbsFillTheWidth(ctx context.Context, t *testing.T, g *WithT, page *browsertest.Page) float64 {
	t.Helper()
	var m struct {
		Width, Left, Right, NameSize float64
		Cards                        int
	}
	g.Expect(page.Eval(ctx, `(() => {
		const cards = [...document.querySelectorAll(".bulb")].map((c) => c.getBoundingClientRect());
		return { Width: innerWidth, Left: Math.min(...cards.map((r) => r.left)), Right: Math.max(...cards.map((r) => r.right)),
			NameSize: parseFloat(getComputedStyle(document.querySelector(".bulb .name")).fontSize), Cards: cards.length };
	})()`, &m)).To(Succeed())
	g.Expect(m.Cards).To(Equal(len(DefaultLights)))
	g.Expect((m.Right-m.Left)/m.Width).To(BeNumerically(">=", 0.55), "the bulbs take %.0f of %.0f px", m.Right-m.Left, m.Width)
	return m.NameSize
}

// checkNoWarningsBut: since start, Tether's objects had no Warning event
// but those of the reasons allowed.
func checkNoWarningsBut(ctx context.Context, g *WithT, d *Demo, start time.Time, allowed ...string) {
	var list eventsv1.EventList
	g.Expect(d.Client.List(ctx, &list)).To(Succeed())
	var unexpected []string
	for _, e := range list.Items {
		if e.Type != corev1.EventTypeWarning || eventTime(&e).Before(start) {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || e.Reason == a
		}
		if !ok {
			unexpected = append(unexpected, fmt.Sprintf("%s %s/%s: %s", e.Reason, e.Regarding.Kind, e.Regarding.Name, e.Note))
		}
	}
	g.Expect(unexpected).To(BeEmpty(), "the walkthrough's happy path raised warnings")
}

// TestDemoPageSaysConnectingUntilItsFirstSnapshot: before its streams have
// sent anything, the page says it is connecting, in the header, where the
// bulbs go and where the tables go, and nowhere that there is nothing.
func TestDemoPageSaysConnectingUntilItsFirstSnapshot(t *testing.T) {
	g := NewWithT(t)
	silent := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select { // a stream that connects and says nothing
			case <-r.Context().Done():
			case <-silent:
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(pageHTML)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(silent) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	browser := browsertest.Start(t)
	page, err := browser.Open(ctx, srv.URL+"/")
	g.Expect(err).NotTo(HaveOccurred())
	var got struct {
		Header, Bulbs, Tables string
		Empty                 []string
	}
	g.Eventually(func(g Gomega) {
		g.Expect(page.Eval(ctx, `(() => ({
			Header: document.querySelector("header").innerText, Bulbs: document.getElementById("bulbs").innerText,
			Tables: document.getElementById("tables").innerText,
			Empty: [...document.querySelectorAll(".empty")].filter((e) => e.offsetParent !== null).map((e) => e.innerText) }))()`,
			&got)).To(Succeed())
		g.Expect(got.Header).To(ContainSubstring("connecting"))
	}).WithTimeout(30 * time.Second).Should(Succeed())
	g.Expect(got.Bulbs).To(ContainSubstring("connecting"))
	g.Expect(got.Tables).To(ContainSubstring("connecting"))
	g.Expect(got.Empty).To(BeEmpty())
	for _, text := range []string{got.Header, got.Bulbs, got.Tables} {
		g.Expect(text).NotTo(Or(ContainSubstring("No lights"), ContainSubstring("No DynamoDBTable"), ContainSubstring("no HueBridge")))
	}
}

// checkFits: at width x height (a projector's 1280x720, a 1080p one, a
// laptop's screen) every bulb, the Hue app control, the timeline and each
// table are on screen whole (nothing cut off or scrolled away), and no text
// is smaller than 16 px.
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
		const header = document.querySelector("header h1").getBoundingClientRect();
		if (header.height > 2.2 * parseFloat(getComputedStyle(document.querySelector("header h1")).fontSize)) outside.push("the title wraps");
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
	g.Expect(fit.Small).To(BeEmpty(), "text under 16px at %dx%d", width, height)
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
