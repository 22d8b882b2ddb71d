package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/browsertest"
)

// TestDemoPageShowsEveryHueBridge: with two HueBridges declared (one on
// CLIP v2 pushing its changes, one polled on v1 and not Ready), the page's
// header shows both, each with its own API, stream and Ready, and both
// chips fit on a 1280x720 and a 1920x1080 screen. The page is fed a cluster
// snapshot built from the demo's own types, so the test follows them.
func TestDemoPageShowsEveryHueBridge(t *testing.T) {
	g := NewWithT(t)
	snapshot, err := json.Marshal(clusterState{
		Bridges: []bridgeView{
			{Name: "home", APIVersion: "1.70.0", API: "V2", Stream: "Connected", Lights: 6, Ready: condView{Status: "True", Reason: "Available"}},
			{Name: "cabin", APIVersion: "1.50.0", API: "V1", Lights: 3, Ready: condView{Status: "False", Reason: "BridgeUnreachable"}},
		},
		Drivers: []driverView{}, Scenes: []sceneView{}, Tables: []tableView{},
	})
	g.Expect(err).NotTo(HaveOccurred())
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if r.URL.Path == "/cluster/events" {
				_, _ = fmt.Fprintf(w, "event: cluster\ndata: %s\n\n", snapshot)
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(pageHTML)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	browser := browsertest.Start(t)
	page, err := browser.Open(ctx, "about:blank")
	g.Expect(err).NotTo(HaveOccurred())
	type chip struct {
		Bridge, API, Stream, Ready, Text string
		Whole                            bool
	}
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		g.Expect(page.SetViewport(ctx, size[0], size[1])).To(Succeed())
		g.Expect(page.Navigate(ctx, srv.URL+"/")).To(Succeed())
		g.Eventually(func(g Gomega) []chip {
			var chips []chip
			g.Expect(page.Eval(ctx, `[...document.querySelectorAll("#bridges .bridge")].map((e) => {
				const r = e.getBoundingClientRect(), box = document.getElementById("bridges").getBoundingClientRect();
				return { Bridge: e.dataset.bridge, API: e.dataset.api, Stream: e.dataset.stream, Ready: e.dataset.ready, Text: e.innerText,
					Whole: r.width > 0 && r.left >= Math.max(0, box.left) && r.right <= Math.min(innerWidth, box.right) && r.top >= 0 && r.bottom <= innerHeight };
			})`, &chips)).To(Succeed())
			return chips
		}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(ConsistOf(
			And(HaveField("Bridge", "home"), HaveField("API", "V2"), HaveField("Stream", "Connected"), HaveField("Ready", "True"),
				HaveField("Text", ContainSubstring("⇡ pushes changes")), HaveField("Whole", BeTrue())),
			And(HaveField("Bridge", "cabin"), HaveField("API", "V1"), HaveField("Ready", "False"),
				HaveField("Text", And(ContainSubstring("polled"), ContainSubstring("not Ready (BridgeUnreachable)"))), HaveField("Whole", BeTrue())),
		), "at %dx%d the header does not show both HueBridges whole", size[0], size[1])
	}
}
