package huesim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestControlAPI(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctl, stop, err := s.ServeControl("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	call := func(method, path, body string) int {
		req, _ := http.NewRequest(method, "http://"+ctl+path, strings.NewReader(body))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	steps := []struct {
		name, method, path, body string
		check                    func() bool
	}{
		{"press link button", "POST", "/link", "", func() bool { return s.pair("x", false)["success"] != nil }},
		{"unreachable", "POST", "/lights/1/reachable?value=false", "", func() bool { l, _ := s.Light("1"); return !l.State.Reachable }},
		{"change behind the back", "PUT", "/lights/1/state", `{"on":true,"bri":42}`, func() bool { l, _ := s.Light("1"); return l.State.On && l.State.Bri == 42 }},
		{"add a light", "POST", "/lights", `{"name":"porch"}`, func() bool { _, ok := s.LightByName("porch"); return ok }},
		{"offline", "POST", "/offline?mode=refuse", "", func() bool { _, err := http.Get(s.URL() + "/api/u/lights"); return err != nil }},
		{"online", "POST", "/online", "", func() bool { _, err := http.Get(s.URL() + "/api/u/lights"); return err == nil }},
		{"reset gets", "DELETE", "/gets", "", func() bool { return len(s.GetCounts()) == 0 }},
	}
	for _, st := range steps {
		if code := call(st.method, st.path, st.body); code != http.StatusOK {
			t.Fatalf("%s: HTTP %d", st.name, code)
		}
		if !st.check() {
			t.Fatalf("%s: no effect", st.name)
		}
	}
	if len(s.Commands()) != 0 {
		t.Fatalf("controls must not appear in the command log: %+v", s.Commands())
	}

	res, err := http.Get("http://" + ctl + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var log []Command
	if err := json.NewDecoder(res.Body).Decode(&log); err != nil {
		t.Fatalf("GET /log is not a command list: %v", err)
	}
}

func TestControlRefusesNonLoopback(t *testing.T) {
	s, err := Start(Options{}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, _, err := s.ServeControl("0.0.0.0:0"); err == nil {
		t.Fatal("control API accepted a non-loopback address")
	}
}
