package huesim

import (
	"net/http"
	"time"
)

// The bridge's config as the v1 API shows it: the public part anyone may
// read, and the full one a paired user sees.

// publicConfig is what the bridge tells anyone, paired or not.
func (b *Bridge) publicConfig() map[string]any {
	bp := b.opts.bridgeProduct()
	return map[string]any{
		"name":             b.opts.Name,
		"datastoreversion": "126",
		"swversion":        bp.SWVersion,
		"apiversion":       bp.APIVersion,
		"mac":              "00:17:88:7e:57:e1",
		"bridgeid":         b.opts.BridgeID,
		"factorynew":       false,
		"replacesbridgeid": nil,
		"modelid":          bp.ModelID,
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

func (b *Bridge) getPublicConfig(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, b.publicConfig())
}

// getConfig answers the full config to paired users and, like a real
// bridge, the public part (no whitelist) to anyone else instead of error 1.
func (b *Bridge) getConfig(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.users[r.PathValue("user")]; !ok {
		writeJSON(w, http.StatusOK, b.publicConfig())
		return
	}
	writeJSON(w, http.StatusOK, b.fullConfig())
}
