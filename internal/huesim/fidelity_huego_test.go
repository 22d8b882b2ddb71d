package huesim

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/amimof/huego"
)

// TestHuegoFidelity drives the simulator with huego, a client written
// against real bridges, through its public API only.
func TestHuegoFidelity(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway", "kitchen"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)

	anon := huego.New(s.Addr(), "")
	if _, err := anon.CreateUser("tether#fidelity"); !isAPIError(err, 101) {
		t.Fatalf("CreateUser before the link button: %v, want API error 101", err)
	}
	s.PressLinkButton()
	user, err := anon.CreateUser("tether#fidelity")
	if err != nil || user == "" {
		t.Fatalf("CreateUser after the link button: %q, %v", user, err)
	}

	bridge := huego.New(s.Addr(), user)
	lights, err := bridge.GetLights()
	if err != nil || len(lights) != 2 {
		t.Fatalf("GetLights: %d lights, %v", len(lights), err)
	}
	hallway := lightNamed(lights, "hallway")
	if hallway == nil || hallway.State == nil || !hallway.State.Reachable || hallway.ModelID == "" {
		t.Fatalf("hallway light decoded as %+v", hallway)
	}

	if _, err := bridge.SetLightState(hallway.ID, huego.State{Bri: 10}); !isAPIError(err, 201) {
		t.Fatalf("bri on a light that is off: %v, want API error 201", err)
	}
	if _, err := bridge.SetLightState(hallway.ID, huego.State{On: true, Bri: 254, Xy: []float32{0.3, 0.4}}); err != nil {
		t.Fatalf("SetLightState: %v", err)
	}
	got, err := bridge.GetLight(hallway.ID)
	if err != nil || !got.State.On || got.State.Bri != 254 || got.State.ColorMode != "xy" {
		t.Fatalf("after SetLightState: %+v, %v", got.State, err)
	}

	cfg, err := bridge.GetConfigContext(context.Background())
	if err != nil || cfg.BridgeID == "" || cfg.APIVersion != APIVersion || len(cfg.Whitelist) != 1 {
		t.Fatalf("GetConfig: %+v, %v", cfg, err)
	}
	if _, err := bridge.SetGroupState(0, huego.State{On: false}); err != nil {
		t.Fatalf("SetGroupState(0): %v", err)
	}
	if l, _ := s.Light("2"); l.State.On {
		t.Fatal("group 0 action did not switch kitchen off")
	}

	stranger := huego.New(s.Addr(), "stranger")
	if _, err := stranger.GetLights(); !isAPIError(err, 1) {
		t.Fatalf("GetLights as a stranger: %v, want API error 1", err)
	}
}

func TestHuegoSeesOfflineModes(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	bridge := huego.New(s.Addr(), "u")
	ctx := context.Background()

	s.Offline(Refuse)
	if _, err := bridge.GetLightsContext(ctx); err == nil {
		t.Fatal("GetLights succeeded while the bridge refuses connections")
	}
	s.Offline(Hang)
	if err := s.Online(); err != nil {
		t.Fatal(err)
	}
	if _, err := bridge.GetLightsContext(ctx); err != nil {
		t.Fatalf("GetLights after Online: %v", err)
	}

	s.Offline(Hang)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := bridge.GetLightsContext(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GetLights while the bridge hangs: %v, want the deadline", err)
	}
	if err := s.Online(); err != nil {
		t.Fatal(err)
	}
	if _, err := bridge.GetLightsContext(ctx); err != nil {
		t.Fatalf("GetLights after the hang ended: %v", err)
	}
}

func lightNamed(lights []huego.Light, name string) *huego.Light {
	for i := range lights {
		if lights[i].Name == name {
			return &lights[i]
		}
	}
	return nil
}

func isAPIError(err error, typ int) bool {
	var apiErr *huego.APIError
	return errors.As(err, &apiErr) && apiErr.Type == typ
}

func TestSlowBridgeDelaysAnswers(t *testing.T) {
	s, err := Start(Options{Lights: []string{"hallway"}, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	bridge := huego.New(s.Addr(), "u")
	s.SetDelay(300 * time.Millisecond)
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := bridge.GetLightsContext(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a 100ms deadline against a 300ms bridge: %v", err)
	}
	start := time.Now()
	if _, err := bridge.GetLightsContext(context.Background()); err != nil || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("slow answer after %s: %v", time.Since(start), err)
	}
}

// TestHuegoFidelityPerModel drives a bulb of every model with huego: the
// type and model it decodes, what the bulb shows of a value it cannot (ct
// clamped, xy moved into the gamut, at four decimals), the per-attribute
// refusal a white bulb and a plug answer (huego surfaces the first error of
// the answer, with its address), and the echo of bri 255.
func TestHuegoFidelityPerModel(t *testing.T) {
	names, models := modelBulbs()
	s, err := Start(Options{Lights: names, Models: models, Usernames: []string{"u"}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	bridge := huego.New(s.Addr(), "u")
	lights, err := bridge.GetLights()
	if err != nil || len(lights) != len(names) {
		t.Fatalf("GetLights: %d lights, %v", len(lights), err)
	}
	byModel := map[string]huego.Light{}
	for _, l := range lights {
		if m := Models[models[l.Name]]; l.Type != m.Type || l.ModelID != m.ID {
			t.Fatalf("%s decoded as %s %s, want %s %s", l.Name, l.Type, l.ModelID, m.Type, m.ID)
		}
		byModel[l.ModelID] = l
	}

	ambiance := byModel["LTW001"].ID
	if _, err := bridge.SetLightState(ambiance, huego.State{On: true, Ct: 500}); err != nil {
		t.Fatalf("ct 500 on an LTW001: %v, want success (the bridge clamps)", err)
	}
	if got, _ := bridge.GetLight(ambiance); got.State.Ct != 454 || got.State.ColorMode != "ct" {
		t.Fatalf("LTW001 after ct 500: %+v, want ct 454", got.State)
	}

	colour := byModel["LCT015"].ID
	if _, err := bridge.SetLightState(colour, huego.State{On: true, Xy: []float32{0.8, 0.2}}); err != nil {
		t.Fatalf("xy outside gamut C: %v", err)
	}
	got, _ := bridge.GetLight(colour)
	if len(got.State.Xy) != 2 || got.State.Xy[0] > 0.6915 || got.State.Xy[0] < 0.6 {
		t.Fatalf("LCT015 after xy [0.8, 0.2]: %v, want the nearest point of gamut C", got.State.Xy)
	}
	for _, v := range got.State.Xy {
		if r := float64(v) * 1e4; math.Abs(r-math.Round(r)) > 1e-2 {
			t.Fatalf("xy %v has more than four decimals", got.State.Xy)
		}
	}

	white := byModel["LWB010"].ID
	_, err = bridge.SetLightState(white, huego.State{On: true, Xy: []float32{0.3, 0.3}})
	var apiErr *huego.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != 6 || apiErr.Address != "/lights/"+strconv.Itoa(white)+"/state/xy" {
		t.Fatalf("xy on a white bulb: %v, want error 6 at its state/xy", err)
	}
	if got, _ := bridge.GetLight(white); !got.State.On {
		t.Fatal("the white bulb refused xy and also on, which it has")
	}

	plug := byModel["LOM001"].ID
	if _, err := bridge.SetLightState(plug, huego.State{On: true, Bri: 100}); !isAPIError(err, 6) {
		t.Fatalf("bri on a plug: %v, want error 6", err)
	}
	res, err := bridge.SetLightState(colour, huego.State{On: true, Bri: 255})
	if err != nil || res.Success["/lights/"+strconv.Itoa(colour)+"/state/bri"] != float64(254) {
		t.Fatalf("bri 255: %+v, %v; want success echoing 254", res, err)
	}
}
