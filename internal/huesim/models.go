package huesim

import "time"

// The JSON bodies below follow what a BSB002 bridge returns for an
// "Extended color light" (LCT015), trimmed of fields no client here reads
// but keeping every field huego and node-hue-api decode.

func lightJSON(l *Light) map[string]any {
	return map[string]any{
		"state": l.State,
		"swupdate": map[string]any{
			"state": "noupdates", "lastinstall": "2021-01-01T00:00:00",
		},
		"type":             "Extended color light",
		"name":             l.Name,
		"modelid":          "LCT015",
		"manufacturername": "Signify Netherlands B.V.",
		"productname":      "Hue color lamp",
		"capabilities": map[string]any{
			"certified": true,
			"control": map[string]any{
				"mindimlevel":    1000,
				"maxlumen":       806,
				"colorgamuttype": "C",
				"colorgamut":     [][2]float64{{0.6915, 0.3083}, {0.17, 0.7}, {0.1532, 0.0475}},
				"ct":             map[string]int{"min": 153, "max": 500},
			},
			"streaming": map[string]bool{"renderer": true, "proxy": true},
		},
		"config": map[string]any{
			"archetype": "sultanbulb", "function": "mixed", "direction": "omnidirectional",
			"startup": map[string]any{"mode": "safety", "configured": true},
		},
		"uniqueid":   l.UniqueID,
		"swversion":  "1.88.1",
		"swconfigid": "F0D2E6D7",
		"productid":  "Philips-LCT015-1-A19ECLv5",
	}
}

// publicConfig is what the bridge tells anyone, paired or not.
func (b *Bridge) publicConfig() map[string]any {
	return map[string]any{
		"name":             b.opts.Name,
		"datastoreversion": "126",
		"swversion":        "1965111030",
		"apiversion":       APIVersion,
		"mac":              "00:17:88:7e:57:e1",
		"bridgeid":         b.opts.BridgeID,
		"factorynew":       false,
		"replacesbridgeid": nil,
		"modelid":          "BSB002",
		"starterkitid":     "",
	}
}

// fullConfig adds what only paired users see. Callers hold b.mu.
func (b *Bridge) fullConfig() map[string]any {
	c := b.publicConfig()
	now := time.Now()
	c["zigbeechannel"] = 25
	c["ipaddress"] = "127.0.0.1"
	c["netmask"] = "255.255.255.0"
	c["gateway"] = "127.0.0.1"
	c["dhcp"] = true
	c["proxyaddress"] = "none"
	c["proxyport"] = 0
	c["UTC"] = timestamp(now)
	c["localtime"] = timestamp(now)
	c["timezone"] = "Etc/UTC"
	c["whitelist"] = b.users
	c["portalservices"] = false
	c["linkbutton"] = now.Before(b.linkUntil)
	c["swupdate2"] = map[string]any{"state": "noupdates", "autoinstall": map[string]any{"on": false}}
	c["portalstate"] = map[string]any{"signedon": false, "incoming": false, "outgoing": false, "communication": "disconnected"}
	return c
}

// groupZero is the implicit "all lights" group.
func (b *Bridge) groupZero() map[string]any {
	ids := b.sortedLightIDs()
	allOn, anyOn := len(ids) > 0, false
	for _, id := range ids {
		on := b.lights[id].State.On
		allOn = allOn && on
		anyOn = anyOn || on
	}
	action := LightState{Effect: "none", Alert: "none", ColorMode: "ct", Bri: 254, CT: 366, XY: [2]float64{0.4573, 0.41}}
	if len(ids) > 0 {
		action = b.lights[ids[0]].State
	}
	return map[string]any{
		"name":    "Group 0",
		"lights":  ids,
		"sensors": []string{},
		"type":    "LightGroup",
		"state":   map[string]bool{"all_on": allOn, "any_on": anyOn},
		"recycle": false,
		"action": map[string]any{
			"on": action.On, "bri": action.Bri, "hue": action.Hue, "sat": action.Sat,
			"effect": action.Effect, "xy": action.XY, "ct": action.CT,
			"alert": action.Alert, "colormode": action.ColorMode,
		},
	}
}
