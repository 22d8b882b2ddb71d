package huesim

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestHandChangesAreTold: a change by hand (ChangeLight, the control API)
// is told with the state before and after; a command over the bridge's API
// is not a hand change.
func TestHandChangesAreTold(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway"}, Usernames: []string{testUser}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var mu sync.Mutex
	var told []HandChange
	s.OnHandChange(func(c HandChange) {
		mu.Lock()
		told = append(told, c)
		mu.Unlock()
	})

	putState(t, s, "1", `{"on":true,"bri":200}`)
	if err := s.ChangeLight("1", func(st *LightState) { st.On = false }); err != nil {
		t.Fatal(err)
	}
	control := s.ControlHandler()
	req, _ := http.NewRequest(http.MethodPut, "/lights/1/state", strings.NewReader(`{"on":true,"bri":10}`))
	res := &recorder{header: http.Header{}}
	control.ServeHTTP(res, req)
	if res.status != 0 && res.status != http.StatusOK {
		t.Fatalf("control PUT: %d", res.status)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(told) != 2 {
		t.Fatalf("told %d hand changes, want 2 (the API command is not one): %+v", len(told), told)
	}
	first, second := told[0], told[1]
	if first.Name != "hallway" || first.LightID != "1" || !first.Before.On || first.Before.Bri != 200 || first.After.On || first.At.IsZero() {
		t.Errorf("first: %+v", first)
	}
	if second.Before.On || !second.After.On || second.After.Bri != 10 {
		t.Errorf("second (control API): %+v", second)
	}
}

// recorder is the least of an http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(status int)      { r.status = status }
