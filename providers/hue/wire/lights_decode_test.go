package wire

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue/model"
)

// TestDecodeLightsKeepsWhatTheBridgeReported: what GET /lights says is kept
// field by field. A field left out, or of another shape than the v1 API
// documents ("Lights API", Get light attributes and state), is not
// reported; a light that cannot be read, or whose id Tether could not
// address, is passed over and the others kept.
func TestDecodeLightsKeepsWhatTheBridgeReported(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want map[string]model.LightState // by id; the lights read
	}{
		{
			name: "every field",
			body: `{"1":{"type":"Extended color light","state":{"on":true,"bri":200,"hue":1000,"sat":254,"ct":300,"xy":[0.3,0.4],"colormode":"xy","reachable":true}}}`,
			want: map[string]model.LightState{"1": {
				On: true, Reachable: true, ColorMode: "xy",
				Bri: ptr.To(200), Hue: ptr.To(1000), Sat: ptr.To(254), CT: ptr.To(300), XY: &[2]float64{0.3, 0.4},
			}},
		},
		{
			name: "fields left out",
			body: `{"1":{"state":{"on":true}},"2":{}}`,
			want: map[string]model.LightState{"1": {On: true}, "2": {}},
		},
		{
			name: "fields of another shape or null",
			body: `{"1":{"state":{"on":1,"reachable":"yes","colormode":5,"bri":"200","hue":null,"sat":[1],"ct":{},"xy":[0.1]}},` +
				`"2":{"state":{"xy":[0.1,"a"],"bri":1e12,"ct":-1e12}},"3":{"state":{"xy":[0.1,0.2,0.3]}}}`,
			want: map[string]model.LightState{"1": {}, "2": {}, "3": {}},
		},
		{
			name: "a fraction is cut to a whole number",
			body: `{"1":{"state":{"bri":99.9,"ct":-2.5}}}`,
			want: map[string]model.LightState{"1": {Bri: ptr.To(99), CT: ptr.To(-2)}},
		},
		{
			name: "a light that cannot be read is passed over",
			body: `{"1":{"name":5},"2":{"state":[]},"3":{"capabilities":{"control":{"ct":{"min":"x"}}}},"4":{"state":{"on":true}},"5":"light","x":{}}`,
			want: map[string]model.LightState{"4": {On: true}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lights, err := decodeLights(http.StatusOK, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]model.LightState{}
			for _, l := range lights {
				got[l.ID] = l.State
			}
			NewWithT(t).Expect(got).To(Equal(tc.want))
		})
	}
}

// TestDecodeLightsRefusesWhatIsNotAList: an error array is the bridge's
// error, anything else not a map of lights a protocol error.
func TestDecodeLightsRefusesWhatIsNotAList(t *testing.T) {
	if _, err := decodeLights(http.StatusOK, []byte(`[{"error":{"type":1,"address":"/lights","description":"unauthorized user"}}]`)); ErrorType(err) != TypeUnauthorized {
		t.Fatalf("error array: %v", err)
	}
	for _, body := range []string{`<html></html>`, `{"1":`, `"lights"`} {
		if _, err := decodeLights(http.StatusOK, []byte(body)); err == nil {
			t.Fatalf("%s: read as lights", body)
		}
	}
	if _, err := decodeLights(http.StatusBadGateway, []byte(`{}`)); err == nil {
		t.Fatal("a 502 read as lights")
	}
}

// BenchmarkDecodeLights reads a full square bridge's GET /lights (50
// lights) as the simulator answers it; the manager reads it on every poll
// of every bridge.
func BenchmarkDecodeLights(b *testing.B) {
	names := make([]string, 50)
	for i := range names {
		names[i] = fmt.Sprintf("bulb-%d", i+1)
	}
	sim, err := huesim.Start(huesim.Options{Lights: names, Usernames: []string{"bench"}}, "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	res, err := http.Get(sim.URL() + "/api/bench/lights")
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if lights, err := decodeLights(http.StatusOK, body); err != nil || len(lights) != len(names) {
			b.Fatalf("%d lights, %v", len(lights), err)
		}
	}
}
