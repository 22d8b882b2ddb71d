package foreignv2

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openhue "github.com/openhue/openhue-go"
	"github.com/r3labs/sse/v2"

	"github.com/tether-dev/tether/internal/huesim"
)

const user = "foreign-client-key"

// startBridge serves a simulated bridge with a bulb of every model.
func startBridge(t *testing.T) *huesim.Server {
	t.Helper()
	opts := huesim.Options{Usernames: []string{user}, Models: map[string]string{}}
	for _, m := range huesim.ModelIDs() {
		opts.Lights = append(opts.Lights, "bulb "+m)
		opts.Models["bulb "+m] = m
	}
	sim, err := huesim.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// v1ID is the v1 id of the bulb of a model (ids follow ModelIDs' order).
func v1ID(t *testing.T, sim *huesim.Server, model string) string {
	for id, l := range sim.Lights() {
		if l.Model == model {
			return id
		}
	}
	t.Fatalf("no bulb %s", model)
	return ""
}

// TestOpenhueGoDrivesTheSimulator: openhue-go v0.4.0, a client written
// against Signify's OpenAPI description of CLIP v2 by other people, reads
// the simulator's lights, devices and grouped lights, and drives bulbs;
// what it sets shows in the simulator's v1 view of the same bridge. This
// proves the v2 shapes (openhue-go decodes them into its generated types)
// and the v1/v2 consistency from outside; it does not prove the simulator
// matches a real bridge where openhue-go is lenient (it ignores 207 and
// 4xx on updates: the raw client below checks those).
func TestOpenhueGoDrivesTheSimulator(t *testing.T) {
	sim := startBridge(t)
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	lights, err := home.GetLights()
	if err != nil {
		t.Fatal(err)
	}
	if len(lights) != len(huesim.ModelIDs()) {
		t.Fatalf("openhue-go sees %d lights, want %d", len(lights), len(huesim.ModelIDs()))
	}
	devices, err := home.GetDevices()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range huesim.ModelIDs() {
		id := v1ID(t, sim, m)
		l, ok := lights[sim.LightIDV2(id)]
		if !ok {
			t.Fatalf("%s: no light %s", m, sim.LightIDV2(id))
		}
		model := huesim.Models[m]
		dev := devices[sim.DeviceIDV2(id)]
		if dev.ProductData == nil || *dev.ProductData.ModelId != m || *dev.Metadata.Name != "bulb "+m {
			t.Errorf("%s: device %+v", m, dev.ProductData)
		}
		if (l.Color != nil) != (model.Type == huesim.TypeColor || model.Type == huesim.TypeExtendedColor) {
			t.Errorf("%s: colour feature %v", m, l.Color != nil)
		}
		if (l.Dimming != nil) != (model.Type != huesim.TypeOnOffPlug) {
			t.Errorf("%s: dimming feature %v", m, l.Dimming != nil)
		}
		if l.ColorTemperature != nil && l.ColorTemperature.MirekSchema != nil {
			min, max := *l.ColorTemperature.MirekSchema.MirekMinimum, *l.ColorTemperature.MirekSchema.MirekMaximum
			if min < 153 || max > 500 || min >= max {
				t.Errorf("%s: mirek_schema %d-%d", m, min, max)
			}
		}
	}

	// Drive the colour bulb and the ambiance bulb; read back through v1.
	colour, ambiance := v1ID(t, sim, "LCT015"), v1ID(t, sim, "LTW001")
	on, bri := true, float32(50)
	x, y := float32(0.3), float32(0.3)
	if err := home.UpdateLight(sim.LightIDV2(colour), openhue.LightPut{On: &openhue.On{On: &on}, Dimming: &openhue.Dimming{Brightness: &bri},
		Color: &openhue.Color{Xy: &openhue.GamutPosition{X: &x, Y: &y}}}); err != nil {
		t.Fatal(err)
	}
	mirek := 300
	if err := home.UpdateLight(sim.LightIDV2(ambiance), openhue.LightPut{On: &openhue.On{On: &on},
		ColorTemperature: &openhue.ColorTemperature{Mirek: &mirek}}); err != nil {
		t.Fatal(err)
	}
	c, _ := sim.Light(colour)
	if !c.State.On || c.State.Bri != 128 || c.State.ColorMode != "xy" || math.Abs(c.State.XY[0]-0.3) > 2e-4 {
		t.Errorf("LCT015 after openhue-go's command: %+v (brightness 50%% is bri 128)", c.State)
	}
	a, _ := sim.Light(ambiance)
	if !a.State.On || a.State.CT != 300 || a.State.ColorMode != "ct" {
		t.Errorf("LTW001 after openhue-go's command: %+v", a.State)
	}
	// And openhue-go reads back what it set.
	lights, _ = home.GetLights()
	if got := lights[sim.LightIDV2(colour)]; got.Dimming == nil || math.Abs(float64(*got.Dimming.Brightness)-50.2) > 0.01 {
		t.Errorf("brightness read back %v, want 50.2 (bri 128)", *got.Dimming.Brightness)
	}

	// bridge_home's grouped light switches every bulb off.
	groups, err := home.GetGroupedLights()
	if err != nil || len(groups) != 1 {
		t.Fatalf("grouped lights %v %v", groups, err)
	}
	off := false
	for id := range groups {
		if err := home.UpdateGroupedLight(id, openhue.GroupedLightPut{On: &openhue.On{On: &off}}); err != nil {
			t.Fatal(err)
		}
	}
	for id, l := range sim.Lights() {
		if l.State.On {
			t.Errorf("light %s still on after bridge_home's grouped light was switched off", id)
		}
	}
}

// TestOpenhueGoSeesTheStrictAnswers: openhue-go's generated client (which
// does return the status) gets v2's strict answers: 400 for a mirek beyond
// the bulb's mirek_schema, 403 for an unknown key.
func TestOpenhueGoSeesTheStrictAnswers(t *testing.T) {
	sim := startBridge(t)
	key := func(k string) openhue.ClientOption {
		return openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("hue-application-key", k)
			return nil
		})
	}
	c, err := openhue.NewClientWithResponses(sim.TLSURL(), key(user), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	mirek := 500
	res, err := c.UpdateLightWithResponse(context.Background(), sim.LightIDV2(v1ID(t, sim, "LTW001")),
		openhue.LightPut{ColorTemperature: &openhue.ColorTemperature{Mirek: &mirek}})
	if err != nil || res.StatusCode() != http.StatusBadRequest || !strings.Contains(string(res.Body), "mirek") {
		t.Fatalf("mirek 500 on a 153-454 bulb: %v %d %s", err, res.StatusCode(), res.Body)
	}
	stranger, _ := openhue.NewClientWithResponses(sim.TLSURL(), key("nobody"), openhue.WithHTTPClient(insecureClient()))
	if res, err := stranger.GetLightsWithResponse(context.Background()); err != nil || res.StatusCode() != http.StatusForbidden {
		t.Fatalf("an unknown key: %v %v", err, res)
	}
}

func insecureClient() *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}

// TestPlainSSEClientReadsTheEventStream: r3labs/sse, a general SSE client,
// reads the stream over verified TLS (the simulator's CA, the bridge id as
// the name) and gets a change made through the v1 API as a v2 update
// event: an id of the form <seconds>:<n> and a JSON array of containers.
func TestPlainSSEClientReadsTheEventStream(t *testing.T) {
	sim := startBridge(t)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(sim.CACertPEM())
	client := sse.NewClient(sim.TLSURL() + "/eventstream/clip/v2")
	client.Connection = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: sim.CertificateName()}}}
	client.Headers["hue-application-key"] = user
	events := make(chan *sse.Event, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	connected := make(chan struct{})
	client.OnConnect(func(*sse.Client) { close(connected) })
	go func() { _ = client.SubscribeChanRawWithContext(ctx, events) }()
	select {
	case <-connected:
	case <-time.After(5 * time.Second):
		t.Fatal("r3labs/sse did not connect")
	}
	id := v1ID(t, sim, "LCT015")
	// Changed through the v1 API, as a v1 client would.
	req, _ := http.NewRequest(http.MethodPut, sim.URL()+"/api/"+user+"/lights/"+id+"/state", strings.NewReader(`{"on":true,"bri":254}`))
	if res, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case <-deadline:
			t.Fatal("no event for the light within 5 s")
		case ev := <-events:
			if len(ev.Data) == 0 {
				continue
			}
			var containers []struct {
				Type string           `json:"type"`
				Data []map[string]any `json:"data"`
			}
			if err := json.Unmarshal(ev.Data, &containers); err != nil {
				t.Fatalf("event data is not a JSON array of containers: %s", ev.Data)
			}
			if !strings.Contains(string(ev.ID), ":") {
				t.Errorf("event id %q", ev.ID)
			}
			for _, c := range containers {
				for _, d := range c.Data {
					if d["id"] == sim.LightIDV2(id) && c.Type == "update" {
						if on := d["on"].(map[string]any)["on"]; on != true {
							t.Errorf("update %v", d)
						}
						return
					}
				}
			}
		}
	}
}

// TestOpenhueGoPlaysAnEffect: openhue-go's generated types decode the
// simulator's effects object where a light has one (LCA001: effect_values
// with candle, status no_effect) and find none on a light without effects
// (LCT015); its LightPut.Effects starts candle on the LCA001, which the
// simulator shows and openhue-go reads back as the status; and its
// generated client gets 400 for an effect sent to the LCT015. This proves
// the field names Tether reads and writes (effects.effect_values,
// effects.status, effects.effect) are those of Signify's API description
// as openhue transcribes it, not the simulator's own invention; it does
// not prove which real bulbs list which effects.
func TestOpenhueGoPlaysAnEffect(t *testing.T) {
	sim := startBridge(t)
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	withEffects, without := v1ID(t, sim, "LCA001"), v1ID(t, sim, "LCT015")
	lights, err := home.GetLights()
	if err != nil {
		t.Fatal(err)
	}
	e := lights[sim.LightIDV2(withEffects)].Effects
	if e == nil || e.EffectValues == nil || !slices.Contains(*e.EffectValues, openhue.SupportedEffectsCandle) ||
		e.Status == nil || *e.Status != openhue.SupportedEffectsNoEffect {
		t.Fatalf("LCA001's effects as openhue-go decodes them: %+v", e)
	}
	if e := lights[sim.LightIDV2(without)].Effects; e != nil {
		t.Fatalf("LCT015 has an effects object: %+v", e)
	}

	on, candle := true, openhue.SupportedEffectsCandle
	if err := home.UpdateLight(sim.LightIDV2(withEffects), openhue.LightPut{On: &openhue.On{On: &on},
		Effects: &openhue.Effects{Effect: &candle}}); err != nil {
		t.Fatal(err)
	}
	if l, _ := sim.Light(withEffects); l.State.V2Effect != "candle" {
		t.Fatalf("LCA001 plays %q after openhue-go's command, want candle", l.State.V2Effect)
	}
	lights, _ = home.GetLights()
	if e := lights[sim.LightIDV2(withEffects)].Effects; e == nil || e.Status == nil || *e.Status != candle {
		t.Fatalf("openhue-go reads back %+v, want status candle", e)
	}

	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.UpdateLightWithResponse(context.Background(), sim.LightIDV2(without),
		openhue.LightPut{On: &openhue.On{On: &on}, Effects: &openhue.Effects{Effect: &candle}})
	if err != nil || res.StatusCode() != http.StatusBadRequest || !strings.Contains(string(res.Body), "effect") {
		t.Fatalf("candle on a bulb without effects: %v %d %s", err, res.StatusCode(), res.Body)
	}
	if l, _ := sim.Light(without); l.State.On {
		t.Error("the LCT015 was switched on by a command the bridge refused as a whole")
	}
}
