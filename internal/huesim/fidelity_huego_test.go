package huesim

import (
	"context"
	"errors"
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
