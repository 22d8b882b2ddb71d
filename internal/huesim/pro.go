package huesim

import (
	"net"
	"net/http"
	"slices"
)

// The Hue Bridge Pro (BSB003, September 2025), as Options.Pro makes the
// simulator. Each behaviour is from a public source:
//
//   - Identity: the bridge device's product_data is model_id BSB003,
//     product_archetype bridge_v3, product_name "Hue Bridge", software
//     1.78.2071401010 (aiohue tests/fixtures/v2_resources.json, a dump of
//     a live Bridge Pro); its id starts c42996fffe (ebaauw/homebridge-hue
//     #1219).
//   - HTTPS only: plain HTTP is answered 301 to https (zim514/
//     script.service.hue #332). A client that follows the redirect turns
//     the pairing POST /api into a GET, and pairing fails quietly
//     (LedFx/LedFx PR #1856). The v1 API is still served over HTTPS
//     (Q42/Q42.HueApi #333; soffes/hue PR #56).
//   - Its certificate: EC P-256, subject C=NL, O=Philips Hue, OU=BSB003,
//     CN = the bridge id in upper case, issued by CN=root-bridge (the
//     Pro certificate openhab-addons ships as huebridge3_cacert.pem,
//     issue #19337). The simulator's stand-in root is its own
//     "root-bridge" CA (v2tls.go), which tests pass as caBundle; an
//     intermediate, sent or not, is an option (ProChain).
//   - Newer resource types (aiohue aiohue/v2/models/resource.py, "verified
//     against a live Bridge Pro"), each served with a plausible minimal
//     body; a type no client knows yet (proFutureType) and fields no client
//     knows on the bridge and its device, to check that readers ignore them.
//   - GET /clip/v2/resource leaves motion_area_candidate and
//     wifi_connectivity out; they are served by type (ebaauw/homebridge-hue2
//     lib/Hue2Accessory/Bridge.js, missingRtypes).
//   - Omitted keys: scene palettes without effects, motion area
//     participants without health (aiohue PR #659, which fixed the
//     resources aiohue discarded for them).
//   - 429 past three requests at once: every v2 bridge in the simulator
//     does that (v2handlers.go, v2MaxConcurrent); the Pro holds up to
//     ProMaxLights lights.

// ProChain is how a Pro's certificate reaches the root. The Pro
// certificate openhab-addons ships is issued by root-bridge directly
// (ProDirect). Clients have reported "unable to verify the first
// certificate" with a Pro (michael5r/MMM-hue-lights #31; Q42/Q42.HueApi
// #333), and openhab-addons PR #20400 validates "via an intermediate on v3
// bridges": whether some units send an intermediate, or leave it out, is
// not on record. ProIntermediate and ProIncompleteChain are the
// simulator's two readings of that, for testing what a client does.
type ProChain string

const (
	// ProDirect: the leaf is issued by the root (the default).
	ProDirect ProChain = ""
	// ProIntermediate: the leaf is issued by an intermediate, which the
	// bridge sends after it.
	ProIntermediate ProChain = "intermediate"
	// ProIncompleteChain: the leaf is issued by an intermediate the bridge
	// does not send.
	ProIncompleteChain ProChain = "incomplete"
)

// ProMaxLights is how many lights a Bridge Pro holds (Signify's launch
// figures, quoted by hueblog.com: 150, against 50 on the square bridge).
const ProMaxLights = 150

// proIDPrefix starts every Bridge Pro's id (its MAC prefix C42996 and
// FFFE; ebaauw/homebridge-hue #1219).
const proIDPrefix = "C42996FFFE"

// proFutureType is a resource type no client knows: a bridge's next
// firmware may add one at any time.
const proFutureType = "tether_future_thing"

// proUnlisted are the types the Pro leaves out of GET /clip/v2/resource
// (homebridge-hue2 Bridge.js missingRtypes).
var proUnlisted = []string{"motion_area_candidate", "wifi_connectivity"}

// product is the bridge device's product_data and the public config's
// modelid and version.
type product struct {
	ModelID, Archetype, Software, SWVersion, APIVersion string
}

// bridgeProduct is the bridge the simulator is: a square bridge (BSB002,
// as the aiohue fixtures of it show) or a Pro (BSB003, its fixture).
func (o Options) bridgeProduct() product {
	if o.Pro {
		return product{ModelID: "BSB003", Archetype: "bridge_v3", Software: "1.78.2071401010", SWVersion: "2071401010", APIVersion: "1.78.0"}
	}
	return product{ModelID: "BSB002", Archetype: "bridge_v2", Software: "1.65.1965111030", SWVersion: "1965111030", APIVersion: APIVersion}
}

// PlainRequest is one request a Bridge Pro received over plain HTTP (and
// answered 301).
type PlainRequest struct{ Method, Path string }

// PlainRequests lists the requests a Bridge Pro received over plain HTTP,
// in order: a client that pairs and binds at https directly sends none.
func (b *Bridge) PlainRequests() []PlainRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]PlainRequest(nil), b.plain...)
}

// plainHandler serves the plain-HTTP port: the v1 API, or on a Pro a 301
// to the same path at the HTTPS port (the simulator's HTTPS port stands
// for 443).
func (s *Server) plainHandler() http.Handler {
	if !s.opts.Pro {
		return s.Handler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Bridge.mu.Lock()
		s.plain = append(s.plain, PlainRequest{Method: r.Method, Path: withoutUser(r.URL.Path)})
		s.Bridge.mu.Unlock()
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		_, port, _ := net.SplitHostPort(s.TLSAddr())
		http.Redirect(w, r, "https://"+net.JoinHostPort(host, port)+r.URL.RequestURI(), http.StatusMovedPermanently)
	})
}

// proResources adds the Pro's newer and unknown resources to the v2
// listing, and leaves out the keys the Pro omits. Callers hold b.mu.
func (b *Bridge) proResources(out []resource) []resource {
	for _, r := range out {
		switch r["type"] {
		case "bridge":
			// After a migration (aiohue fixture); and a field nobody knows.
			r["import"] = map[string]any{"origin": "ecb5fafffe000000", "time": "2025-12-16T10:00:00Z"}
			r["tether_future_field"] = map[string]any{"nested": []any{1, "two"}}
		case "device":
			r["tether_future_field"] = true
		case "scene":
			if p, ok := r["palette"].(map[string]any); ok {
				delete(p, "effects") // aiohue PR #659
			}
		}
	}
	bridgeDevice := ref(b.v2ID("device", "bridge"), "device")
	id := func(typ string) string { return b.v2ID(typ, "pro") }
	candidate := id("motion_area_candidate")
	extra := []resource{
		{"id": id("clip"), "type": "clip", "resources": []string{"light", "device", "scene", "room", "zone", "grouped_light", proFutureType}},
		{"id": id("device_software_update"), "type": "device_software_update", "owner": bridgeDevice,
			"state": b.proUpdateState, "problems": []any{}},
		{"id": id("zigbee_device_discovery"), "type": "zigbee_device_discovery", "owner": bridgeDevice,
			"status": "ready", "action": map[string]any{"action_type_values": []string{"search"}}},
		{"id": id("geolocation"), "type": "geolocation", "is_configured": false},
		{"id": id("speaker"), "type": "speaker", "owner": bridgeDevice,
			"sound_values": map[string]any{"alarm": []string{"alarm_01"}, "chime": []string{"chime_01"}, "alert": []string{"alert_01"}},
			"mute":         map[string]bool{"mute": false}},
		{"id": id("motion_area_configuration"), "type": "motion_area_configuration", "name": "Hall",
			"group": ref(b.v2ID("bridge_home", "0"), "bridge_home"),
			// A participant without health: aiohue PR #659.
			"participants": []any{map[string]any{"resource": ref(candidate, "motion_area_candidate")}},
			"services":     []any{}, "health": "healthy", "enabled": true},
		{"id": id("grouped_light_level"), "type": "grouped_light_level", "owner": ref(b.v2ID("bridge_home", "0"), "bridge_home"),
			"enabled": true},
		{"id": id("bell_button"), "type": "bell_button", "owner": bridgeDevice},
		{"id": candidate, "type": "motion_area_candidate", "device": bridgeDevice},
		{"id": id("wifi_connectivity"), "type": "wifi_connectivity", "owner": bridgeDevice, "status": "connected", "ssid": "home"},
		{"id": id(proFutureType), "type": proFutureType, "owner": bridgeDevice, "version": b.proFutureVersion,
			"shape": map[string]any{"unknown": []any{map[string]any{"deep": true}}}},
	}
	return append(out, extra...)
}

// listed is the full listing of GET /clip/v2/resource: on a Pro without
// the types it leaves out.
func (b *Bridge) listed(all []resource) []resource {
	if !b.opts.Pro {
		return all
	}
	return slices.DeleteFunc(all, func(r resource) bool {
		t, _ := r["type"].(string)
		return slices.Contains(proUnlisted, t)
	})
}

// ChangeProResources changes the Pro's newer and unknown resources (its
// software update state and the future type), which the event stream
// pushes: a reader must take those messages in its stride.
func (b *Bridge) ChangeProResources() {
	defer b.notify()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.proFutureVersion++
	if b.proUpdateState == "no_update" {
		b.proUpdateState = "update_pending"
	} else {
		b.proUpdateState = "no_update"
	}
}
