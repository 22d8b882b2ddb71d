package hue

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"k8s.io/utils/ptr"
)

// fakeBridge is a Client with lights in memory, counting calls. It stands
// in for a bridge in unit tests of one function; behaviour that depends on
// how a bridge answers is tested against the simulator over HTTP.
type fakeBridge struct {
	mu     sync.Mutex
	id     string // the bridge id /config reports; default FAKE
	lights map[string]LightState
	names  map[string]string
	err    error
	gets   int
	config int // GET /config
	puts   []put
	// unauthorized makes /config leave out the whitelist.
	unauthorized bool
	pairs        int // POST /api (pairing)
}

type put struct {
	id   string
	body StateBody
}

func newFakeBridge(names ...string) *fakeBridge {
	f := &fakeBridge{lights: map[string]LightState{}, names: map[string]string{}}
	for i, n := range names {
		id := strconv.Itoa(i + 1)
		f.names[id] = n
		f.lights[id] = LightState{On: false, Bri: ptr.To(127), CT: ptr.To(366), Hue: ptr.To(8418), Sat: ptr.To(140),
			XY: &[2]float64{0.4573, 0.41}, ColorMode: "ct", Reachable: true}
	}
	return f
}

func (f *fakeBridge) set(id string, change func(*LightState)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.lights[id]
	change(&st)
	f.lights[id] = st
}

func (f *fakeBridge) Lights(context.Context) ([]Light, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.err != nil {
		return nil, f.err
	}
	var out []Light
	for id, st := range f.lights {
		out = append(out, Light{ID: id, Name: f.names[id], Type: "Extended color light", ModelID: "LCT015", State: st,
			Capabilities: Capabilities{Dimmable: true, Color: true, ColorTemperature: &MiredRange{Min: 153, Max: 500}}})
	}
	return out, nil
}

func (f *fakeBridge) Config(context.Context) (BridgeConfig, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.config++
	id := f.id
	if id == "" {
		id = "FAKE"
	}
	return BridgeConfig{BridgeID: id, Authorized: !f.unauthorized}, f.err
}

func (f *fakeBridge) Pair(context.Context, string) (Credentials, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pairs++
	if f.err != nil {
		return Credentials{}, f.err
	}
	return Credentials{Username: "issued-by-pairing"}, nil
}

func (f *fakeBridge) SetLightState(_ context.Context, id string, body StateBody) (Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return Result{}, f.err
	}
	f.puts = append(f.puts, put{id, body})
	return Result{Accepted: body}, nil
}

func (f *fakeBridge) Groups(context.Context) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]string{}, f.err
}

func (f *fakeBridge) CreateGroup(context.Context, string, []string) (string, error) {
	return "", errors.New("the fake bridge has no groups")
}

func (f *fakeBridge) SetGroupState(context.Context, string, StateBody) (Result, error) {
	return Result{}, errors.New("the fake bridge has no groups")
}

func (f *fakeBridge) DeleteGroup(context.Context, string) error { return nil }

func (f *fakeBridge) calls() (gets int, puts []put) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets, append([]put(nil), f.puts...)
}
