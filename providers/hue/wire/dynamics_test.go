package wire

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestV2ClientSpeed: the v2 client reads a light's dynamics (it takes a
// speed) and its speed only while valid (an effect plays), sends a speed
// in the one dynamics object with a transition's duration, reads a 400
// for a speed out of range as that attribute refused; the v1 client reads
// no dynamics.
func TestV2ClientSpeed(t *testing.T) {
	sim := huetest.StartSim(t, huesim.Options{Lights: []string{"newer"}, Models: map[string]string{"newer": "LCA001"}})
	c := v2For(t, sim, huetest.User, Trust{})
	ctx := context.Background()
	read := func() model.Light {
		t.Helper()
		lights, err := c.Lights(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return byID(lights)["1"]
	}
	if l := read(); !l.Capabilities.Dynamics || l.State.Speed != nil {
		t.Fatalf("a light playing nothing: dynamics %v, speed %v (not valid, so not reported)", l.Capabilities.Dynamics, l.State.Speed)
	}
	res, err := c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true), Effect: ptr.To("candle"), Speed: ptr.To(0.7), TransitionTime: ptr.To(4)})
	if err != nil || len(res.Refused) > 0 {
		t.Fatalf("candle at 0.7: %v %+v", err, res)
	}
	if l := read(); l.State.Speed == nil || *l.State.Speed != 0.7 {
		t.Fatalf("playing candle, speed read as %v, want 0.7", l.State.Speed)
	}
	res, err = c.SetLightState(ctx, "1", model.StateBody{On: ptr.To(true), Speed: ptr.To(1.5)})
	if err != nil || len(res.Refused) != 1 || res.Refused[0].Param != "speed" {
		t.Fatalf("speed 1.5: %v %+v, want speed refused", err, res)
	}

	v1, err := NewClient(sim.Addr(), huetest.User, DefaultCallTimeout).Lights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l := v1[0]; l.Capabilities.Dynamics || l.State.Speed != nil {
		t.Errorf("v1 light read with CLIP v2 dynamics")
	}
}

// TestSpeedAndTransitionShareDynamics: a speed and a transition go in one
// dynamics object, each alone in its own.
func TestSpeedAndTransitionShareDynamics(t *testing.T) {
	cases := []struct {
		name string
		body model.StateBody
		want string
	}{
		{"both", model.StateBody{Speed: ptr.To(0.25), TransitionTime: ptr.To(15)}, `{"dynamics":{"duration":1500,"speed":0.25}}`},
		{"a speed alone", model.StateBody{Speed: ptr.To(0.0)}, `{"dynamics":{"speed":0}}`},
		{"a transition alone", model.StateBody{TransitionTime: ptr.To(0)}, `{"dynamics":{"duration":0}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := json.Marshal(lightPut(tc.body, nil))
			if string(data) != tc.want {
				t.Errorf("sends %s, want %s", data, tc.want)
			}
		})
	}
}
