// Package fakebridge is a bridge in memory for unit tests of one function
// above wire: it counts calls and returns what a test set. Behaviour that
// depends on how a bridge answers is tested against the simulator
// (huetest.StartSim).
package fakebridge

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// FakeBridge is a Client with lights in memory, counting calls. It stands
// in for a bridge in unit tests of one function; behaviour that depends on
// how a bridge answers is tested against the simulator over HTTP.
type FakeBridge struct {
	mu     sync.Mutex
	id     string // the bridge id /config reports; default FAKE
	lights map[string]model.LightState
	names  map[string]string
	err    error
	gets   int
	config int // GET /config
	puts   []Put
	pairs  int // POST /api (pairing)
}

// Put is a light command the fake received.
type Put struct {
	ID   string
	Body model.StateBody
}

// NewFakeBridge is a bridge with a light of each name, ids from "1", off.
func NewFakeBridge(names ...string) *FakeBridge {
	f := &FakeBridge{lights: map[string]model.LightState{}, names: map[string]string{}}
	for i, n := range names {
		id := strconv.Itoa(i + 1)
		f.names[id] = n
		f.lights[id] = model.LightState{On: false, Bri: ptr.To(127), CT: ptr.To(366), Hue: ptr.To(8418), Sat: ptr.To(140),
			XY: &[2]float64{0.4573, 0.41}, ColorMode: "ct", Reachable: true}
	}
	return f
}

// Set changes a light's state, as someone in the Hue app would.
func (f *FakeBridge) Set(id string, change func(*model.LightState)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.lights[id]
	change(&st)
	f.lights[id] = st
}

// SetID is the bridge id /config reports from now on.
func (f *FakeBridge) SetID(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.id = id
}

// Fail makes every call fail with err from now on (nil: none).
func (f *FakeBridge) Fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// Err is the error every call fails with now.
func (f *FakeBridge) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *FakeBridge) Lights(context.Context) ([]model.Light, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.err != nil {
		return nil, f.err
	}
	var out []model.Light
	for id, st := range f.lights {
		out = append(out, model.Light{ID: id, Name: f.names[id], Type: "Extended color light", ModelID: "LCT015", State: st,
			Capabilities: model.Capabilities{Dimmable: true, Color: true, ColorTemperature: &model.MiredRange{Min: 153, Max: 500}}})
	}
	return out, nil
}

func (f *FakeBridge) Config(context.Context) (wire.BridgeConfig, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.config++
	id := f.id
	if id == "" {
		id = "FAKE"
	}
	return wire.BridgeConfig{BridgeID: id, Authorized: true}, f.err
}

func (f *FakeBridge) Pair(context.Context, string) (wire.Credentials, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pairs++
	if f.err != nil {
		return wire.Credentials{}, f.err
	}
	return wire.Credentials{Username: "issued-by-pairing"}, nil
}

func (f *FakeBridge) SetLightState(_ context.Context, id string, body model.StateBody) (wire.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return wire.Result{}, f.err
	}
	f.puts = append(f.puts, Put{id, body})
	return wire.Result{Accepted: body}, nil
}

func (f *FakeBridge) Groups(context.Context) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]string{}, f.err
}

func (f *FakeBridge) CreateGroup(context.Context, string, []string) (string, error) {
	return "", errors.New("the fake bridge has no groups")
}

func (f *FakeBridge) SetGroupState(context.Context, string, model.StateBody) (wire.Result, error) {
	return wire.Result{}, errors.New("the fake bridge has no groups")
}

func (f *FakeBridge) DeleteGroup(context.Context, string) error { return nil }

// Calls are the GET /lights so far and the light commands received.
func (f *FakeBridge) Calls() (gets int, puts []Put) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets, append([]Put(nil), f.puts...)
}

// ConfigReads counts the GET /config so far.
func (f *FakeBridge) ConfigReads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.config
}

// Pairs counts the pairings asked for so far.
func (f *FakeBridge) Pairs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pairs
}

// NetErr is a connection refused, as net/http reports one.
type NetErr struct{}

func (NetErr) Error() string   { return "connection refused" }
func (NetErr) Timeout() bool   { return false }
func (NetErr) Temporary() bool { return true }
