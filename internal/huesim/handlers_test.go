package huesim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const testUser = "tether-test-user"

func newTestBridge(t *testing.T) (*Bridge, *httptest.Server) {
	t.Helper()
	b := New(Options{Lights: []string{"hallway", "kitchen"}, Usernames: []string{testUser}})
	srv := httptest.NewServer(b.Handler())
	t.Cleanup(srv.Close)
	return b, srv
}

func do(t *testing.T, srv *httptest.Server, method, path, body string) (int, any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %s", method, path, raw)
	}
	return res.StatusCode, v
}

// firstError returns the type and address of the first error element, or 0.
func firstError(v any) (int, string) {
	arr, ok := v.([]any)
	if !ok {
		return 0, ""
	}
	for _, el := range arr {
		if e, ok := el.(map[string]any)["error"].(map[string]any); ok {
			return int(e["type"].(float64)), e["address"].(string)
		}
	}
	return 0, ""
}

func TestAPIErrors(t *testing.T) {
	u := "/api/" + testUser
	cases := []struct {
		name, method, path, body string
		wantStatus, wantType     int
		wantAddress              string
	}{
		{"unknown user", "GET", "/api/nobody/lights", "", 200, ErrUnauthorized, "/lights"},
		{"unknown light", "GET", u + "/lights/99", "", 200, ErrNotAvailable, "/lights/99"},
		{"put to unknown light", "PUT", u + "/lights/99/state", `{"on":true}`, 200, ErrNotAvailable, "/lights/99"},
		{"invalid json", "PUT", u + "/lights/1/state", `{"on":`, 200, ErrInvalidJSON, ""},
		{"bri out of range", "PUT", u + "/lights/1/state", `{"on":true,"bri":300}`, 200, ErrInvalidValue, "/lights/1/state/bri"},
		{"bri not a number", "PUT", u + "/lights/1/state", `{"on":true,"bri":"x"}`, 200, ErrInvalidValue, "/lights/1/state/bri"},
		{"xy outside 0..1", "PUT", u + "/lights/1/state", `{"on":true,"xy":[1.5,0.2]}`, 200, ErrInvalidValue, "/lights/1/state/xy"},
		{"unknown parameter", "PUT", u + "/lights/1/state", `{"on":true,"sparkle":1}`, 200, ErrParameterNotAvail, "/lights/1/state/sparkle"},
		{"bri on a light that is off", "PUT", u + "/lights/1/state", `{"bri":10}`, 200, ErrDeviceOff, "/lights/1/state/bri"},
		{"ct on a light switched off in the same body", "PUT", u + "/lights/1/state", `{"on":false,"ct":300}`, 200, ErrDeviceOff, "/lights/1/state/ct"},
		{"pairing before the link button", "POST", "/api", `{"devicetype":"tether#test"}`, 200, ErrLinkButton, ""},
		{"pairing without devicetype", "POST", "/api", `{}`, 200, ErrMissingParameters, ""},
		{"unknown group", "GET", u + "/groups/7", "", 200, ErrNotAvailable, "/groups/7"},
		{"unknown resource", "GET", u + "/gadgets", "", 200, ErrNotAvailable, "/gadgets"},
		{"method not available", "DELETE", u + "/config", "", 200, ErrMethodNotAvailable, "/config"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := newTestBridge(t)
			status, v := do(t, srv, tc.method, tc.path, tc.body)
			typ, addr := firstError(v)
			if status != tc.wantStatus || typ != tc.wantType || addr != tc.wantAddress {
				t.Fatalf("got HTTP %d error %d at %q, want HTTP %d error %d at %q (answer %v)",
					status, typ, addr, tc.wantStatus, tc.wantType, tc.wantAddress, v)
			}
		})
	}
}

func TestStateChanges(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		check func(LightState) bool
	}{
		{"on with brightness", `{"on":true,"bri":254}`, func(s LightState) bool { return s.On && s.Bri == 254 }},
		{"xy sets colormode xy", `{"on":true,"xy":[0.3,0.4]}`, func(s LightState) bool { return s.ColorMode == "xy" && s.XY == [2]float64{0.3, 0.3999} }}, // four decimals, as a bridge reports (see reportedXY)
		{"ct sets colormode ct", `{"on":true,"ct":250}`, func(s LightState) bool { return s.ColorMode == "ct" && s.CT == 250 }},
		{"hue 0 and sat 0 are values", `{"on":true,"hue":0,"sat":0}`, func(s LightState) bool { return s.ColorMode == "hs" && s.Hue == 0 && s.Sat == 0 }},
		{"xy wins over ct", `{"on":true,"ct":250,"xy":[0.2,0.2]}`, func(s LightState) bool { return s.ColorMode == "xy" }},
		{"off light keeps brightness when refused", `{"bri":10}`, func(s LightState) bool { return !s.On && s.Bri == 127 }},
		// 65000 + 1000 wraps to 464, reported after the bridge's round trip
		// through the xy the bulb takes (hsxy.go): within a few steps.
		{"hue_inc wraps", `{"on":true,"hue":65000,"hue_inc":1000}`, func(s LightState) bool { return s.Hue >= 454 && s.Hue <= 474 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, srv := newTestBridge(t)
			do(t, srv, "PUT", "/api/"+testUser+"/lights/1/state", tc.body)
			l, _ := b.Light("1")
			if !tc.check(l.State) {
				t.Fatalf("state after %s: %+v", tc.body, l.State)
			}
		})
	}
}

func TestSuccessArrayNamesEachAttribute(t *testing.T) {
	_, srv := newTestBridge(t)
	_, v := do(t, srv, "PUT", "/api/"+testUser+"/lights/2/state", `{"on":true,"bri":200,"transitiontime":0}`)
	got, _ := json.Marshal(v)
	want := `[{"success":{"/lights/2/state/on":true}},{"success":{"/lights/2/state/bri":200}},{"success":{"/lights/2/state/transitiontime":0}}]`
	if string(got) != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
}

func TestPairingAfterLinkButton(t *testing.T) {
	b, srv := newTestBridge(t)
	b.PressLinkButton()
	_, v := do(t, srv, "POST", "/api", `{"devicetype":"tether#test"}`)
	user, _ := v.([]any)[0].(map[string]any)["success"].(map[string]any)["username"].(string)
	if len(user) < 20 {
		t.Fatalf("no username in %v", v)
	}
	_, lights := do(t, srv, "GET", "/api/"+user+"/lights", "")
	if _, ok := lights.(map[string]any)["1"]; !ok {
		t.Fatalf("new user cannot read lights: %v", lights)
	}
	_, cfg := do(t, srv, "GET", "/api/"+user+"/config", "")
	if _, ok := cfg.(map[string]any)["whitelist"].(map[string]any)[user]; !ok {
		t.Fatalf("whitelist lacks the new user: %v", cfg)
	}
}

func TestConfigForStrangersHasNoWhitelist(t *testing.T) {
	_, srv := newTestBridge(t)
	_, cfg := do(t, srv, "GET", "/api/nobody/config", "")
	m := cfg.(map[string]any)
	if _, ok := m["whitelist"]; ok || m["bridgeid"] == nil || m["apiversion"] != APIVersion {
		t.Fatalf("public config wrong: %v", m)
	}
}

func TestGroupZeroActionSwitchesAll(t *testing.T) {
	b, srv := newTestBridge(t)
	do(t, srv, "PUT", "/api/"+testUser+"/groups/0/action", `{"on":true,"bri":50}`)
	for id, l := range b.Lights() {
		if !l.State.On || l.State.Bri != 50 {
			t.Fatalf("light %s after group action: %+v", id, l.State)
		}
	}
	_, g := do(t, srv, "GET", "/api/"+testUser+"/groups/0", "")
	if g.(map[string]any)["state"].(map[string]any)["all_on"] != true {
		t.Fatalf("group 0 state: %v", g)
	}
}

func TestOverloadAnswers503(t *testing.T) {
	b, srv := newTestBridge(t)
	b.SetRate(10, 10)
	overloaded := 0
	for range 30 {
		status, v := do(t, srv, "PUT", "/api/"+testUser+"/lights/1/state", `{"on":true}`)
		if typ, _ := firstError(v); status == http.StatusServiceUnavailable && typ == ErrInternal {
			overloaded++
		}
	}
	if overloaded < 15 || b.Overloads() != overloaded {
		t.Fatalf("30 commands at once: %d overloaded (log says %d), want most of the 20 past the burst",
			overloaded, b.Overloads())
	}
}

func TestCommandLogAndGetCounts(t *testing.T) {
	b, srv := newTestBridge(t)
	do(t, srv, "GET", "/api/"+testUser+"/lights", "")
	do(t, srv, "GET", "/api/"+testUser+"/lights", "")
	do(t, srv, "PUT", "/api/"+testUser+"/lights/1/state", `{"on":true}`)
	if n := b.GetCounts()["/lights"]; n != 2 {
		t.Fatalf("GET /lights counted %d, want 2", n)
	}
	cmds := b.Commands()
	if len(cmds) != 1 || cmds[0].Path != "/lights/1/state" || cmds[0].Time.IsZero() || string(cmds[0].Body) != `{"on":true}` {
		t.Fatalf("log: %+v", cmds)
	}
	b.ResetCommands()
	b.ResetGetCounts()
	if len(b.Commands()) != 0 || len(b.GetCounts()) != 0 {
		t.Fatal("reset did not empty the log and counts")
	}
}

// TestASlowBodyHoldsUpOnlyItsOwnCommand sends a command's headers and half
// its body and, once the bridge is reading that body, another client's
// command: that one is answered while the first body is still unfinished,
// and the first is applied once its body arrives. A lock taken before the
// body is read would hold every command up behind the slow client.
func TestASlowBodyHoldsUpOnlyItsOwnCommand(t *testing.T) {
	b := New(Options{Lights: []string{"hallway", "kitchen"}, Usernames: []string{testUser}})
	slowPath := "/api/" + testUser + "/lights/1/state"
	reading := make(chan struct{}) // the slow command's body is being read
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == slowPath {
			r.Body = &readStarted{ReadCloser: r.Body, started: reading}
		}
		b.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	body := `{"on":true,"bri":200}`
	half := len(body) / 2
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: bridge\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", slowPath, len(body), body[:half])
	<-reading

	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPut, srv.URL+"/api/"+testUser+"/lights/2/state", strings.NewReader(`{"on":true}`))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	select {
	case code := <-answered:
		if code != http.StatusOK {
			t.Fatalf("the other client's command was answered with %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other client's command waited behind an unfinished body")
	}

	fmt.Fprint(conn, body[half:])
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if l, _ := b.Light("1"); res.StatusCode != http.StatusOK || l.State.Bri != 200 {
		t.Fatalf("the slow command was not applied once its body arrived: %d, bri %d", res.StatusCode, l.State.Bri)
	}
}

// readStarted closes started at the first read of the body it wraps.
type readStarted struct {
	io.ReadCloser
	once    sync.Once
	started chan struct{}
}

func (r *readStarted) Read(p []byte) (int, error) {
	r.once.Do(func() { close(r.started) })
	return r.ReadCloser.Read(p)
}
