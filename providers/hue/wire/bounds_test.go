package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tether-dev/tether/internal/huetest"
)

// Hostile bridges for the bounds of bounds.go: servers that answer more
// than any bridge does, or redirect. Plain httptest servers stand in for
// them (no real bridge misbehaves this way); the v2 client reaches them
// with insecureSkipVerify, as the certificate is not what is tested.

// hostileClients are the client calls that read an answer, on each API.
func hostileClients(t *testing.T, plain, tls *httptest.Server) map[string]func(context.Context) error {
	t.Helper()
	v2, err := NewClientV2(tls.Listener.Addr().String(), huetest.User, 5*time.Second, Trust{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	v1 := NewClient(plain.Listener.Addr().String(), huetest.User, 5*time.Second)
	v1Public := NewClient(plain.Listener.Addr().String(), "", 5*time.Second)
	return map[string]func(context.Context) error{
		"v1 lights":        func(ctx context.Context) error { _, err := v1.Lights(ctx); return err },
		"v1 config":        func(ctx context.Context) error { _, err := v1.Config(ctx); return err },
		"v1 public config": func(ctx context.Context) error { _, err := v1Public.Config(ctx); return err },
		"v1 groups":        func(ctx context.Context) error { _, err := v1.Groups(ctx); return err },
		"v2 full read":     func(ctx context.Context) error { _, err := v2.Lights(ctx); return err },
		"v2 config":        func(ctx context.Context) error { _, err := v2.Config(ctx); return err },
		"v2 groups (v1)":   func(ctx context.Context) error { _, err := v2.Groups(ctx); return err },
		"v2 event stream": func(ctx context.Context) error {
			return v2.(PushClient).Watch(ctx, time.Minute, func() {}, func(Read) {})
		},
	}
}

// TestAnswersAreBounded: an answer past maxAnswerBytes (valid JSON, which
// the old clients read whole or cut short) is an error that says so, on
// every call of both APIs.
func TestAnswersAreBounded(t *testing.T) {
	huge := fmt.Appendf(nil, `{"name":%q,"bridgeid":"001788FFFE000001","data":[],"errors":[]}`, strings.Repeat("x", maxAnswerBytes))
	answer := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(huge) })
	plain, tls := httptest.NewServer(answer), httptest.NewTLSServer(answer)
	t.Cleanup(plain.Close)
	t.Cleanup(tls.Close)
	for name, call := range hostileClients(t, plain, tls) {
		if name == "v2 event stream" {
			continue // its answer is the stream: TestSSEReaderBoundsMessages
		}
		t.Run(name, func(t *testing.T) {
			err := call(context.Background())
			if err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
				t.Fatalf("got %v, want an answer refused for its size", err)
			}
		})
	}
}

// TestAGetIsReadIntoItsLastLength: each answer to a GET is read into one
// buffer of the length the last answer to that path had (its capacity is
// that length and the room bytes.Buffer wants for its last read), and a
// shorter answer makes the next buffer shorter; an answer past the bound
// is still refused and leaves the length as it was; a PUT's answer is
// not remembered. The answers come a few bytes at a time, as a chunked
// answer does.
func TestAGetIsReadIntoItsLastLength(t *testing.T) {
	long, short := strings.Repeat("l", 5000), strings.Repeat("s", 700)
	huge := strings.Repeat("h", maxAnswerBytes+1)
	var sizes answerSizes
	for _, step := range []struct {
		method, path, answer string
		wantCap              int // 0: not checked
		wantErr              bool
	}{
		{method: http.MethodGet, path: "/lights", answer: long},
		{method: http.MethodGet, path: "/lights", answer: long, wantCap: len(long) + bytes.MinRead},
		{method: http.MethodGet, path: "/groups", answer: short},
		{method: http.MethodGet, path: "/lights", answer: short, wantCap: len(long) + bytes.MinRead},
		{method: http.MethodGet, path: "/lights", answer: short, wantCap: len(short) + bytes.MinRead},
		{method: http.MethodGet, path: "/lights", answer: long}, // longer than the buffer: it grows
		{method: http.MethodGet, path: "/lights", answer: huge, wantErr: true},
		{method: http.MethodGet, path: "/lights", answer: short, wantCap: len(long) + bytes.MinRead},
		{method: http.MethodPut, path: "/lights/1/state", answer: short},
	} {
		raw, err := sizes.read(step.method, step.path, iotest.HalfReader(strings.NewReader(step.answer)))
		switch {
		case step.wantErr:
			if err == nil {
				t.Fatalf("%s %s of %d bytes: read, want refused", step.method, step.path, len(step.answer))
			}
			continue
		case err != nil || string(raw) != step.answer:
			t.Fatalf("%s %s: read %d bytes (%v), want the %d sent", step.method, step.path, len(raw), err, len(step.answer))
		case step.wantCap != 0 && cap(raw) != step.wantCap:
			t.Fatalf("%s %s: read into %d bytes, want %d (one buffer of the last length)", step.method, step.path, cap(raw), step.wantCap)
		}
	}
	if _, kept := sizes.last["/lights/1/state"]; kept || len(sizes.last) != 2 {
		t.Fatalf("remembered %v, want /lights and /groups only", sizes.last)
	}
}

// TestRedirectsAreNotFollowed: a bridge that answers with a redirect (to
// plain http:// elsewhere) gets an error; nothing reaches where it points,
// least of all the hue-application-key.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("hue-application-key") != "" {
			t.Errorf("the key was forwarded to %s", r.URL)
		}
	}))
	t.Cleanup(elsewhere.Close)
	redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusFound)
	})
	plain, tls := httptest.NewServer(redirect), httptest.NewTLSServer(redirect)
	t.Cleanup(plain.Close)
	t.Cleanup(tls.Close)
	for name, call := range hostileClients(t, plain, tls) {
		t.Run(name, func(t *testing.T) {
			err := call(context.Background())
			if err == nil || !strings.Contains(err.Error(), "redirect") {
				t.Fatalf("got %v, want a refused redirect", err)
			}
			if n := reached.Load(); n != 0 {
				t.Fatalf("%d requests followed the redirect", n)
			}
		})
	}
}

// countingReader counts what is read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestSSEReaderBoundsMessages: a message past maxEventBytes, in one line
// or in many, ends the stream with errEventTooLarge, and the reader stops
// reading soon after the limit.
func TestSSEReaderBoundsMessages(t *testing.T) {
	cases := map[string]io.Reader{
		"one long line": io.MultiReader(strings.NewReader("data: ["), bytes.NewReader(bytes.Repeat([]byte(" "), 64<<20)), strings.NewReader("]\n\n")),
		"many lines":    strings.NewReader(strings.Repeat("data: "+strings.Repeat(" ", 1000)+"\n", 64<<10) + "\n"),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			src := &countingReader{r: in}
			_, err := newSSEReader(src).next()
			if !errors.Is(err, errEventTooLarge) {
				t.Fatalf("got %v, want errEventTooLarge", err)
			}
			if src.n > 2*maxEventBytes {
				t.Fatalf("read %d bytes to refuse a message over %d", src.n, maxEventBytes)
			}
		})
	}
}

// v2Raw is a resource as a bridge sends it.
func v2Raw(t *testing.T, r map[string]any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestV2StoreHoldsOnlyWhatTheBridgeHas: the store keeps the resource types
// its views read, merges an update only into a resource it holds, and
// refuses to grow past maxAnswerBytes.
func TestV2StoreHoldsOnlyWhatTheBridgeHas(t *testing.T) {
	s := newV2Store()
	now := time.Now()
	light := map[string]any{"id": "l1", "type": "light", "id_v1": "/lights/1", "on": map[string]any{"on": false}}
	list := []json.RawMessage{v2Raw(t, light)}
	for i := range 1000 {
		list = append(list, v2Raw(t, map[string]any{"id": fmt.Sprintf("s%d", i), "type": "scene", "actions": []any{map[string]any{"x": i}}}))
	}
	s.replace(list, now)
	if len(s.resources) != 1 {
		t.Fatalf("the store holds %d resources, want the light only", len(s.resources))
	}
	touched, err := s.apply([]v2Event{
		{Type: "update", Data: []json.RawMessage{v2Raw(t, map[string]any{"id": "ghost", "type": "light", "on": map[string]any{"on": true}})}},
		{Type: "add", Data: []json.RawMessage{v2Raw(t, map[string]any{"id": "s-new", "type": "scene"})}},
		{Type: "update", Data: []json.RawMessage{v2Raw(t, map[string]any{"id": "l1", "type": "light", "on": map[string]any{"on": true}})}},
	}, now)
	if err != nil || !touched.lights || touched.groups || len(s.resources) != 1 || !s.resources["l1"].On.On {
		t.Fatalf("touched %v, err %v, %d resources, light %+v: want only the held light updated", touched, err, len(s.resources), s.resources["l1"])
	}

	big := strings.Repeat("x", 64<<10)
	var err2 error
	for i := 0; err2 == nil && i < 2*maxAnswerBytes/len(big); i++ {
		_, err2 = s.apply([]v2Event{{Type: "add", Data: []json.RawMessage{v2Raw(t, map[string]any{
			"id": fmt.Sprintf("d%d", i), "type": "device", "metadata": map[string]any{"name": big}})}}}, now)
	}
	if err2 == nil || s.size > maxAnswerBytes+len(big)+1024 {
		t.Fatalf("the store grew to %d bytes (err %v)", s.size, err2)
	}
}

// TestV2FullReadDecodesIntoTypes: a full read costs a few times its size
// in allocations, not the tens of times a map[string]any decoding costs,
// however much of it Tether does not read.
func TestV2FullReadDecodesIntoTypes(t *testing.T) {
	var list []map[string]any
	// Scenes as a bridge with many of them sends: small values in nested
	// objects, what a map[string]any costs most for.
	action := map[string]any{"target": map[string]any{"rid": "3f1b2c4d-0000-4000-8000-000000000001", "rtype": "light"},
		"action": map[string]any{"on": map[string]any{"on": true}, "dimming": map[string]any{"brightness": 50.0},
			"color": map[string]any{"xy": map[string]any{"x": 0.45, "y": 0.41}}}}
	for i := range 3000 {
		list = append(list, map[string]any{"id": fmt.Sprintf("scene-%d", i), "type": "scene",
			"actions":  []any{action, action, action, action, action, action},
			"metadata": map[string]any{"name": "Evening"}, "speed": 0.6, "auto_dynamic": false})
	}
	body, _ := json.Marshal(map[string]any{"errors": []any{}, "data": list})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	t.Cleanup(srv.Close)
	c, err := NewClientV2(srv.Listener.Addr().String(), huetest.User, 5*time.Second, Trust{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lights(context.Background()); err != nil { // the connection, once
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := c.Lights(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a full read of %d KiB allocated %d KiB", len(body)>>10, allocated>>10)
	if allocated > 8*uint64(len(body)) {
		t.Fatalf("a full read of %d KiB allocated %d KiB", len(body)>>10, allocated>>10)
	}
}
