package hue

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/amimof/huego"
)

// fakeBridge is a Client with lights in memory, counting calls.
type fakeBridge struct {
	mu     sync.Mutex
	lights map[string]huego.State
	names  map[string]string
	err    error
	gets   int
	config int // GET /config
	puts   []put
}

type put struct {
	id   string
	body StateBody
}

func newFakeBridge(names ...string) *fakeBridge {
	f := &fakeBridge{lights: map[string]huego.State{}, names: map[string]string{}}
	for i, n := range names {
		id := strconv.Itoa(i + 1)
		f.names[id] = n
		f.lights[id] = huego.State{On: false, Bri: 127, Ct: 366, ColorMode: "ct", Reachable: true}
	}
	return f
}

func (f *fakeBridge) set(id string, change func(*huego.State)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.lights[id]
	change(&st)
	f.lights[id] = st
}

func (f *fakeBridge) GetLights(context.Context) ([]huego.Light, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.err != nil {
		return nil, f.err
	}
	var out []huego.Light
	for id, st := range f.lights {
		n, _ := strconv.Atoi(id)
		st := st
		out = append(out, huego.Light{ID: n, Name: f.names[id], State: &st})
	}
	return out, nil
}

func (f *fakeBridge) GetConfig(context.Context) (*huego.Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.config++
	return &huego.Config{BridgeID: "FAKE", WhitelistMap: map[string]huego.Whitelist{}}, f.err
}

func (f *fakeBridge) CreateUser(context.Context, string) (string, error) { return "", f.err }

func (f *fakeBridge) SetLightState(_ context.Context, id string, body StateBody) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.puts = append(f.puts, put{id, body})
	return nil
}

func (f *fakeBridge) GetGroups(context.Context) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]string{}, f.err
}

func (f *fakeBridge) CreateGroup(context.Context, string, []string) (string, error) {
	return "", errors.New("the fake bridge has no groups")
}

func (f *fakeBridge) SetGroupState(context.Context, string, StateBody) error {
	return errors.New("the fake bridge has no groups")
}

func (f *fakeBridge) DeleteGroup(context.Context, string) error { return nil }

func (f *fakeBridge) calls() (gets int, puts []put) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets, append([]put(nil), f.puts...)
}
