package wire_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The bridge is outside our control: whatever it answers, the adapter must
// not panic and must hand the reconciler a typed error (retry after a delay,
// or terminal) whose condition message stays short. These fuzz targets run
// their committed seeds (testdata/fuzz/...) in every `go test`; `make fuzz`
// explores further.

// fuzzStatus maps any fuzzed int onto a status code net/http can write.
func fuzzStatus(n int) int {
	if n < 0 {
		n = -n
	}
	if n < 0 { // math.MinInt
		n = 0
	}
	return 200 + n%400
}

// checkTyped fails unless err, as the reconciler sees it after classify, is
// nil, a retry-after with a reason and a positive delay, or terminal with a
// reason; and its message is short enough for a condition. It returns a
// (The two untyped cases it found, huego's decode errors and an error
// object without a type, are now BridgeProtocolError.)
func checkTyped(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if len(err.Error()) > 1024 {
		t.Errorf("%s: %d-character message would flood a condition: %.120s...", what, len(err.Error()), err.Error())
	}
	if ra, ok := providers.AsRetryAfter(err); ok {
		if ra.Reason == "" || ra.Delay <= 0 {
			t.Errorf("%s: retry-after without reason or delay: %#v", what, ra)
		}
		return
	}
	if te, ok := providers.AsTerminal(err); ok {
		if te.Reason == "" {
			t.Errorf("%s: terminal error without a reason: %v", what, err)
		}
		return
	}
	t.Errorf("%s: untyped error reaches the reconciler: %T %v", what, err, err)
}

// FuzzDecodeAnswer: the raw PUT path's own decoder (success/error arrays).
func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range []struct {
		status int
		body   string
	}{
		{200, `[{"success":{"/lights/1/state/on":true}}]`},
		{200, `[{"error":{"type":901,"description":"busy"}}]`},
		{200, `[{"error":{"type":"seven","address":5}}]`},
		{200, `[{"error":null},{"error":{}}]`},
		{502, `<html><body>Bad Gateway</body></html>`},
		{503, `[]`},
		{200, `{"1":{"state":{}}}`},
		{200, ``},
		{200, "[" + strings.Repeat(`{"error":{"type":1,"description":"`+strings.Repeat("x", 300)+`"}},`, 3) + "{}]"},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = fuzzStatus(status)
		_, err := wire.DecodeAnswer(status, body, model.StateBody{})
		var perr *wire.ProtocolError
		var bridgeErr *wire.BridgeError
		if err != nil && !errors.As(err, &perr) && !errors.As(err, &bridgeErr) {
			t.Fatalf("decodeAnswer returned %T: %v", err, err)
		}
		if err == nil && status >= 300 {
			t.Fatalf("HTTP %d accepted as success: %q", status, body)
		}
		checkTyped(t, "decodeAnswer", hue.Classify("fuzz", err))
	})
}

// answerServer answers every request with the current status and body.
type answerServer struct {
	mu     sync.Mutex
	status int
	body   []byte
	srv    *httptest.Server
}

func newAnswerServer(t testing.TB) *answerServer {
	a := &answerServer{status: 200}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a.mu.Lock()
		status, body := a.status, a.body
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *answerServer) answer(status int, body []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.status, a.body = status, body
}

// FuzzBridgeAnswer: every call the adapter makes, over real HTTP, against
// an arbitrary answer.
func FuzzBridgeAnswer(f *testing.F) {
	for _, s := range []struct {
		status int
		body   string
	}{
		{200, `{"1":{"name":"hallway","state":{"on":true,"bri":254,"xy":[0.3,0.3],"colormode":"xy","reachable":true}}}`},
		{200, `[{"error":{"type":1,"address":"/lights","description":"unauthorized user"}}]`},
		{200, `[{"error":{"type":1,"description":"unauthorized user"}}]`},
		{200, `[{"error":{"type":"1"}}]`},
		{200, `[{"success":{"username":"abc"}}]`},
		{200, `[{"success":{"username":42}}]`},
		{200, `{"name":"Bridge","bridgeid":"001788FFFE","whitelist":{"u":{"name":"x"}}}`},
		{200, `{"whitelist":[]}`},
		{200, `{"1":{"state":{"xy":[0.1]}},"2":{"state":null}}`},
		{200, `{"1":{"state":{"bri":300,"hue":-1,"ct":1e9}}}`},
		{200, `{"x":{}}`},
		{200, `null`},
		{200, `[]`},
		{502, `<html><body>Bad Gateway</body></html>`},
		{200, `{"1":`},
		{404, ``},
	} {
		f.Add(s.status, []byte(s.body))
	}
	a := newAnswerServer(f)
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		a.answer(fuzzStatus(status), body)
		c := wire.NewClient(a.srv.URL, "fuzz-user", 2*time.Second)
		ctx := context.Background()

		_, err := c.Lights(ctx)
		checkTyped(t, "Lights", hue.Classify("fuzz", err))

		_, err = c.Config(ctx)
		checkTyped(t, "Config", hue.Classify("fuzz", err))

		_, err = c.Pair(ctx, "tether#fuzz")
		checkTyped(t, "Pair", hue.Classify("fuzz", err))

		for _, body := range []model.StateBody{
			{On: ptr.To(true), Bri: ptr.To(10)},
			{On: ptr.To(true), Hue: ptr.To(0), Sat: ptr.To(0)},
		} {
			_, err = c.SetLightState(ctx, "1", body)
			checkTyped(t, "SetLightState", hue.Classify("fuzz", err))
		}
	})
}
