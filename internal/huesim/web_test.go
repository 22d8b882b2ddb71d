package huesim

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// sseEvent is one server-sent event, or a comment when Name is empty.
type sseEvent struct {
	Name, Data, Comment string
}

// startWeb serves a bridge (API on a free port) and its page.
func startWeb(t *testing.T, opts WebOptions) (*Server, *httptest.Server) {
	t.Helper()
	s, err := Start(Options{Lights: []string{"hallway", "kitchen"}, Usernames: []string{testUser}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	web := httptest.NewServer(s.WebHandler(opts))
	t.Cleanup(web.Close)
	return s, web
}

// openEvents connects to /events and parses the stream on a goroutine.
// The stream is closed when the test ends, before the server is.
func openEvents(t *testing.T, web *httptest.Server) (<-chan sseEvent, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, web.URL+"/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	events := make(chan sseEvent, 100)
	go parseSSE(res.Body, events)
	t.Cleanup(cancel)
	return events, cancel
}

func parseSSE(body io.ReadCloser, out chan<- sseEvent) {
	defer body.Close()
	defer close(out)
	var ev sseEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				out <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, ":"):
			ev.Comment = strings.TrimSpace(line[1:])
		case strings.HasPrefix(line, "event: "):
			ev.Name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			ev.Data = line[len("data: "):]
		}
	}
}

// nextState waits for the next "state" event, skipping comments and other
// events, and decodes it.
func nextState(t *testing.T, events <-chan sseEvent) pageState {
	t.Helper()
	g := NewWithT(t)
	var st pageState
	g.Eventually(func(g Gomega) {
		var ev sseEvent
		g.Expect(events).To(Receive(&ev))
		g.Expect(ev.Name).To(Equal("state"))
		g.Expect(json.Unmarshal([]byte(ev.Data), &st)).To(Succeed())
	}).WithTimeout(5 * time.Second).WithPolling(5 * time.Millisecond).Should(Succeed())
	return st
}

func viewNamed(st pageState, name string) (lightView, bool) {
	for _, l := range st.Lights {
		if l.Name == name {
			return l, true
		}
	}
	return lightView{}, false
}

// TestWebEventsPushEveryChange checks that each kind of change reaches an
// open stream as the very next state event.
func TestWebEventsPushEveryChange(t *testing.T) {
	s, web := startWeb(t, WebOptions{})
	events, _ := openEvents(t, web)
	first := nextState(t, events)
	if h, ok := viewNamed(first, "hallway"); !ok || h.On || first.Network != "online" || first.TablesPanel {
		t.Fatalf("first snapshot = %+v", first)
	}

	apiPut := func(path, body string) {
		req, _ := http.NewRequest(http.MethodPut, s.URL()+"/api/"+testUser+path, strings.NewReader(body))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	steps := []struct {
		name   string
		change func()
		check  func(pageState) bool
	}{
		{"Go control API: ChangeLight", func() {
			_ = s.ChangeLight("1", func(st *LightState) { st.On, st.Bri, st.ColorMode, st.Hue, st.Sat = true, 200, "hs", 0, 254 })
		}, func(st pageState) bool {
			h, _ := viewNamed(st, "hallway")
			return h.On && h.Bri == 200 && h.BriPercent == 79 && h.Swatch == "#ff0000" && h.Glow == GlowColor(LightState{On: true, Bri: 200, ColorMode: "hs", Sat: 254})
		}},
		{"bridge API: PUT state", func() { apiPut("/lights/2/state", `{"on":true,"bri":127}`) }, func(st pageState) bool {
			k, _ := viewNamed(st, "kitchen")
			return k.On && k.Bri == 127 && k.BriPercent == 50
		}},
		{"bridge API: group action", func() { apiPut("/groups/0/action", `{"on":false}`) }, func(st pageState) bool {
			return !st.Lights[0].On && !st.Lights[1].On
		}},
		{"bridge API: rename", func() { apiPut("/lights/2", `{"name":"cooker"}`) }, func(st pageState) bool {
			_, ok := viewNamed(st, "cooker")
			return ok
		}},
		{"unreachable", func() { _ = s.SetReachable("1", false) }, func(st pageState) bool {
			h, _ := viewNamed(st, "hallway")
			return !h.Reachable
		}},
		{"add light", func() { s.AddLight("porch") }, func(st pageState) bool {
			_, ok := viewNamed(st, "porch")
			return ok && len(st.Lights) == 3
		}},
		{"remove light", func() { s.RemoveLight("3") }, func(st pageState) bool { return len(st.Lights) == 2 }},
		{"offline", func() { s.Offline(Refuse) }, func(st pageState) bool { return st.Network == "offline" }},
		{"online", func() { _ = s.Online() }, func(st pageState) bool { return st.Network == "online" }},
		{"hang", func() { s.Offline(Hang) }, func(st pageState) bool { return st.Network == "hanging" }},
	}
	for _, step := range steps {
		step.change()
		if st := nextState(t, events); !step.check(st) {
			t.Fatalf("%s: next event does not show it: %+v", step.name, st)
		}
	}
}

func TestWebEventsHeartbeatAndCleanup(t *testing.T) {
	s, web := startWeb(t, WebOptions{Heartbeat: 10 * time.Millisecond})
	events, cancel := openEvents(t, web)
	g := NewWithT(t)
	g.Eventually(events).WithTimeout(5 * time.Second).Should(Receive(HaveField("Comment", "heartbeat")))
	g.Expect(s.subscribers()).To(Equal(1))

	cancel() // the browser tab closes
	g.Eventually(s.subscribers).WithTimeout(5*time.Second).Should(BeZero(), "the stream must unsubscribe when the client goes")
}

func TestWebTablesPanel(t *testing.T) {
	var phase atomic.Int32
	items := int64(3)
	tables := func(context.Context) ([]TableInfo, error) {
		switch phase.Load() {
		case 0:
			return []TableInfo{{Name: "orders", Status: "CREATING", BillingMode: "PAY_PER_REQUEST"}}, nil
		case 1:
			return []TableInfo{{Name: "orders", Status: "ACTIVE", BillingMode: "PAY_PER_REQUEST", ItemCount: &items}}, nil
		default:
			return nil, errors.New("connection refused")
		}
	}
	_, web := startWeb(t, WebOptions{Tables: tables, TablesEvery: 10 * time.Millisecond})
	events, _ := openEvents(t, web)
	g := NewWithT(t)
	if st := nextState(t, events); !st.TablesPanel {
		t.Fatal("state does not ask for the tables panel")
	}
	nextTables := func() tablesState {
		var got tablesState
		g.Eventually(func(g Gomega) {
			var ev sseEvent
			g.Expect(events).To(Receive(&ev))
			g.Expect(ev.Name).To(Equal("tables"))
			g.Expect(json.Unmarshal([]byte(ev.Data), &got)).To(Succeed())
		}).WithTimeout(5 * time.Second).WithPolling(5 * time.Millisecond).Should(Succeed())
		return got
	}
	g.Expect(nextTables().Tables).To(ConsistOf(HaveField("Status", "CREATING")))
	phase.Store(1)
	g.Expect(nextTables().Tables).To(ConsistOf(And(HaveField("Status", "ACTIVE"), HaveField("ItemCount", HaveValue(BeEquivalentTo(3))))))
	phase.Store(2)
	g.Expect(nextTables()).To(Equal(tablesState{Tables: []TableInfo{}, Error: "connection refused"}))
}

func TestWebPageAndStateJSON(t *testing.T) {
	_, web := startWeb(t, WebOptions{})
	res, err := http.Get(web.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(page), `new EventSource("events")`) {
		t.Fatalf("GET / = %s %q", res.Header.Get("Content-Type"), page[:min(len(page), 200)])
	}

	res, err = http.Get(web.URL + "/state.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st map[string]any
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if _, ok := st["tables"]; ok || st["tablesPanel"] != false || len(st["lights"].([]any)) != 2 {
		t.Fatalf("state.json without a table source = %v", st)
	}
}

// TestWebPageAnswersOnlyToItsOwnAddress: the bulbs' page and its state
// are read only at the page's address (an IP or localhost): a DNS name
// rebound to it by another site gets nothing.
func TestWebPageAnswersOnlyToItsOwnAddress(t *testing.T) {
	_, web := startWeb(t, WebOptions{})
	for _, tc := range []struct {
		host string
		want int
	}{
		{"", http.StatusOK},
		{"localhost:8000", http.StatusOK},
		{"[::1]:8000", http.StatusOK},
		{"evil.example", http.StatusForbidden},
		{"evil.example:8000", http.StatusForbidden},
	} {
		for _, path := range []string{"/", "/state.json"} {
			req, err := http.NewRequest(http.MethodGet, web.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("GET %s with Host %q: HTTP %d, want %d", path, tc.host, res.StatusCode, tc.want)
			}
		}
	}
}
