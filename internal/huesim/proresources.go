package huesim

import "slices"

// The Bridge Pro's CLIP v2 resources: the newer and unknown types it
// serves and the keys it leaves out (the sources are listed in pro.go).

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
