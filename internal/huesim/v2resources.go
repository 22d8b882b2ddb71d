package huesim

import (
	"strings"
)

// The CLIP v2 view of the bridge: the same bulbs as the v1 API, each as the
// resources a real bridge has for it (aiohue's models and its real-bridge
// fixture; docs/hue-behaviour.md, "Resources"): a light service, the device that
// owns it (model, name) and the device's zigbee_connectivity (reachability);
// plus the bridge, bridge_home and its grouped_light (the v1 group 0), and
// the rooms and zones with theirs (v2rooms.go) and their scenes
// (v2scenes.go). Every
// view is computed from the one state the v1 API serves, so the two views of
// one bridge cannot disagree.

// v2Resources lists every v2 resource of the bridge. Callers hold b.mu.
func (b *Bridge) v2Resources() []resource {
	ids := b.sortedLightIDs()
	out := make([]resource, 0, 3*len(ids)+5)
	devices := make([]map[string]string, 0, len(ids)+1)
	for _, id := range ids {
		l := b.lights[id]
		out = append(out, b.v2Light(l), b.v2Device(l), b.v2Connectivity(l))
		devices = append(devices, ref(b.v2ID("device", id), "device"))
	}
	bridgeDevice := b.v2ID("device", "bridge")
	home, homeLights := b.v2ID("bridge_home", "0"), b.v2ID("grouped_light", "0")
	bp := b.opts.bridgeProduct()
	out = append(out,
		resource{"id": b.v2ID("bridge", "0"), "type": "bridge", "owner": ref(bridgeDevice, "device"),
			"bridge_id": strings.ToLower(b.opts.BridgeID), "time_zone": map[string]string{"time_zone": "Etc/UTC"}},
		resource{"id": bridgeDevice, "type": "device", "id_v1": "",
			"product_data": map[string]any{"model_id": bp.ModelID, "manufacturer_name": "Signify Netherlands B.V.",
				"product_name": "Hue Bridge", "product_archetype": bp.Archetype, "certified": true, "software_version": bp.Software},
			"metadata": map[string]string{"name": b.opts.Name, "archetype": bp.Archetype},
			"services": []map[string]string{ref(b.v2ID("bridge", "0"), "bridge")}},
		resource{"id": home, "type": "bridge_home", "id_v1": "/groups/0",
			"children": append(devices, ref(bridgeDevice, "device")), "services": []map[string]string{ref(homeLights, "grouped_light")}},
		b.v2GroupedLight(homeLights, home, ids),
	)
	out = append(out, b.v2Groups()...)
	out = append(out, b.v2Scenes()...)
	if b.opts.Pro {
		out = b.proResources(out)
	}
	return out
}

// v2Light is a light service: only the features its model has, as aiohue's
// feature models describe them (plugs have only on).
func (b *Bridge) v2Light(l *Light) resource {
	m, st := l.model(), l.State
	r := resource{
		"id": b.v2ID("light", l.ID), "id_v1": "/lights/" + l.ID, "type": "light",
		"owner":    ref(b.v2ID("device", l.ID), "device"),
		"metadata": map[string]string{"name": l.Name, "archetype": m.Archetype},
		"on":       map[string]bool{"on": st.On},
		"mode":     "normal",
		"alert":    map[string]any{"action_values": []string{"breathe"}},
		"dynamics": dynamicsJSON(st),
	}
	if m.dimmable() {
		r["dimming"] = map[string]float64{"brightness": brightnessOf(st.Bri), "min_dim_level": float64(m.MinDimLevel) / 1000}
	}
	if m.colourTemperature() {
		// In xy (or hue/sat) mode a colour bulb reports mirek null and
		// mirek_valid false (aiohue fixture; openhab-addons #16482).
		valid := !m.colour() || st.ColorMode == "ct"
		var mirek any
		if valid {
			mirek = st.CT
		}
		shown := m.shownCT()
		r["color_temperature"] = map[string]any{"mirek": mirek, "mirek_valid": valid,
			"mirek_schema": map[string]int{"mirek_minimum": shown[0], "mirek_maximum": shown[1]}}
	}
	if m.colour() {
		point := func(p [2]float64) map[string]float64 { return map[string]float64{"x": p[0], "y": p[1]} }
		r["color"] = map[string]any{"xy": point(st.XY), "gamut_type": m.GamutType,
			"gamut": map[string]any{"red": point(m.Gamut[0]), "green": point(m.Gamut[1]), "blue": point(m.Gamut[2])}}
	}
	if m.hasEffects() {
		r["effects"] = effectsJSON(m, st)
	}
	if m.Powerup {
		r["powerup"] = powerupOf(st)
	}
	if m.Gradient != nil {
		r["gradient"] = gradientJSON(*m.Gradient, st)
	}
	return r
}

// v2Device is the device that owns a light: its product and its name (a v2
// client names a light by its device; the light's own metadata is
// deprecated).
func (b *Bridge) v2Device(l *Light) resource {
	m := l.model()
	return resource{
		"id": b.v2ID("device", l.ID), "id_v1": "/lights/" + l.ID, "type": "device",
		"product_data": map[string]any{"model_id": m.ID, "manufacturer_name": m.Manufacturer, "product_name": m.ProductName,
			"product_archetype": m.Archetype, "certified": m.Manufacturer != "GLEDOPTO", "software_version": "1.88.1"},
		"metadata": map[string]string{"name": l.Name, "archetype": m.Archetype},
		"services": []map[string]string{ref(b.v2ID("light", l.ID), "light"), ref(b.v2ID("zigbee_connectivity", l.ID), "zigbee_connectivity")},
	}
}

// v2Connectivity is a device's Zigbee link: "connected" while the v1 API
// says reachable; Home Assistant derives availability from it.
func (b *Bridge) v2Connectivity(l *Light) resource {
	status := "connected"
	if !l.State.Reachable {
		status = "connectivity_issue"
	}
	return resource{
		"id": b.v2ID("zigbee_connectivity", l.ID), "id_v1": "/lights/" + l.ID, "type": "zigbee_connectivity",
		"owner": ref(b.v2ID("device", l.ID), "device"), "status": status,
		"mac_address": strings.TrimSuffix(l.UniqueID, "-0b"),
	}
}
