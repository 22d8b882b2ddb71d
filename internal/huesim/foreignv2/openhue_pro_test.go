package foreignv2

import (
	"testing"

	openhue "github.com/openhue/openhue-go"

	"github.com/tether-dev/tether/internal/huesim"
)

// TestOpenhueGoReadsTheBridgePro: openhue-go v0.4.0 (generated from
// openhue-api's description of CLIP v2, by other people) reads a simulated
// Bridge Pro: the full listing, with the Pro's newer types and one no
// client knows, decodes; so do its devices (the bridge's as BSB003 /
// bridge_v3), lights and scenes. This proves that the Pro mode's extra
// resources and fields keep the known ones in the specification's shapes
// and that a client written from it is not thrown by them; it does not
// prove the newer types' own shapes (openhue-go v0.4.0 has no types for
// them, and decodes every listed resource only as id, id_v1, owner and
// type).
func TestOpenhueGoReadsTheBridgePro(t *testing.T) {
	sim, err := huesim.Start(huesim.Options{Usernames: []string{user}, Lights: []string{"hall", "desk"}, Pro: true}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := home.GetResources()
	if err != nil {
		t.Fatalf("the Pro's full listing: %v", err)
	}
	types := map[string]bool{}
	for _, r := range resources {
		types[string(*r.Type)] = true
	}
	for _, typ := range []string{"light", "device", "speaker", "device_software_update", "tether_future_thing"} {
		if !types[typ] {
			t.Errorf("openhue-go's listing has no %s (types: %v)", typ, types)
		}
	}
	devices, err := home.GetDevices()
	if err != nil {
		t.Fatal(err)
	}
	pro := false
	for _, d := range devices {
		pd := d.ProductData
		if pd != nil && pd.ModelId != nil && *pd.ModelId == "BSB003" && pd.ProductArchetype != nil && string(*pd.ProductArchetype) == "bridge_v3" {
			pro = true
		}
	}
	if !pro {
		t.Errorf("no device BSB003 / bridge_v3 among %d devices", len(devices))
	}
	lights, err := home.GetLights()
	if err != nil || len(lights) != 2 {
		t.Fatalf("lights: %d, %v", len(lights), err)
	}
	if _, err := home.GetScenes(); err != nil {
		t.Fatalf("scenes: %v", err)
	}
}
