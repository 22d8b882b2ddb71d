package huesim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// The CLIP v2 REST API (openhue-api's OpenAPI specification and aiohue;
// docs/hue-behaviour.md, "Resources"): /clip/v2/resource[/{type}[/{id}]] with the
// hue-application-key header; every answer is
// {"errors":[{"description"}],"data":[...]}; a PUT answers the resources it
// touched as {"rid","rtype"}.

// HandlerTLS serves what a bridge serves on port 443: the v1 API and CLIP
// v2 with its event stream.
func (b *Bridge) HandlerTLS() http.Handler {
	mux := http.NewServeMux()
	b.v1Routes(mux)
	mux.HandleFunc("GET /clip/v2/resource", b.v2Authed(b.v2GetAll))
	mux.HandleFunc("GET /clip/v2/resource/{type}", b.v2Authed(b.v2GetType))
	mux.HandleFunc("GET /clip/v2/resource/{type}/{id}", b.v2Authed(b.v2GetOne))
	mux.HandleFunc("PUT /clip/v2/resource/light/{id}", b.v2Authed(b.logged(b.v2PutLight)))
	mux.HandleFunc("PUT /clip/v2/resource/grouped_light/{id}", b.v2Authed(b.logged(b.v2PutGroupedLight)))
	for _, typ := range []string{"room", "zone"} {
		mux.HandleFunc("POST /clip/v2/resource/"+typ, b.v2Authed(b.logged(withType(typ, b.v2CreateGroup))))
		mux.HandleFunc("PUT /clip/v2/resource/"+typ+"/{id}", b.v2Authed(b.logged(withType(typ, b.v2UpdateGroup))))
		mux.HandleFunc("DELETE /clip/v2/resource/"+typ+"/{id}", b.v2Authed(b.logged(withType(typ, b.v2DeleteGroup))))
	}
	mux.HandleFunc("POST /clip/v2/resource/scene", b.v2Authed(b.logged(b.v2CreateScene)))
	mux.HandleFunc("PUT /clip/v2/resource/scene/{id}", b.v2Authed(b.logged(b.v2UpdateScene)))
	mux.HandleFunc("DELETE /clip/v2/resource/scene/{id}", b.v2Authed(b.logged(b.v2DeleteScene)))
	mux.HandleFunc("/clip/v2/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		v2Error(w, http.StatusMethodNotAllowed, "method not allowed")
	})
	mux.HandleFunc("GET /eventstream/clip/v2", b.v2Authed(b.eventStream))
	return b.gate(b.v1Gate(mux))
}

func (b *Bridge) v2GetAll(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v2Answer(w, http.StatusOK, b.listed(b.v2Resources()))
}

func (b *Bridge) v2GetType(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []resource{}
	for _, res := range b.v2Resources() {
		if res["type"] == r.PathValue("type") {
			out = append(out, res)
		}
	}
	v2Answer(w, http.StatusOK, out)
}

func (b *Bridge) v2GetOne(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, res := range b.v2Resources() {
		if res["type"] == r.PathValue("type") && res["id"] == r.PathValue("id") {
			v2Answer(w, http.StatusOK, []resource{res})
			return
		}
	}
	v2Error(w, http.StatusNotFound, "Not Found")
}

// v2PutLight applies a LightPut to a bulb. An unreachable bulb gets the
// command and the answer is 207 with a per-resource error ("device (light)
// has communication issues, command (.on.on) may not have effect",
// openhab-addons #15511, #15512): applied, but not confirmed.
func (b *Bridge) v2PutLight(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rid := r.PathValue("id")
	b.mu.Lock()
	var light *Light
	for _, l := range b.lights {
		if b.v2ID("light", l.ID) == rid {
			light = l
		}
	}
	b.mu.Unlock()
	if light == nil {
		b.recordV2(r, raw, "", http.StatusNotFound)
		v2Error(w, http.StatusNotFound, "Not Found")
		return
	}
	if !b.limits.allow("/lights/" + light.ID + "/state") {
		b.v2Refused.Add(1)
		b.recordV2(r, raw, light.ID, http.StatusTooManyRequests)
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	var put lightPut
	if err := json.Unmarshal(raw, &put); err != nil {
		b.recordV2(r, raw, light.ID, http.StatusBadRequest)
		v2Error(w, http.StatusBadRequest, "Parsing body failed: "+err.Error())
		return
	}
	b.mu.Lock()
	body, refusal := put.v1Body(light.model())
	effect := put.effect()
	if refusal == "" && effect != "" {
		refusal = effectRefusal(light.model(), effect)
	}
	var powerup *powerupPut
	if refusal == "" && put.Powerup != nil {
		p, err := decodePowerup(put.Powerup)
		if refusal = powerupRefusal(light.model(), p); err != nil {
			refusal = "invalid value for powerup: " + err.Error()
		}
		powerup = &p
	}
	var speed *float64
	if refusal == "" && put.Dynamics != nil && put.Dynamics.Speed != nil {
		speed, refusal = put.Dynamics.Speed, speedRefusal(*put.Dynamics.Speed)
	}
	var gradient *Gradient
	if refusal == "" && put.Gradient != nil {
		g, why := decodeGradient(light.model(), put.Gradient)
		refusal, gradient = why, &g
	}
	reachable := light.State.Reachable
	if refusal == "" {
		// Attributes sent to a light that is off and stays off do not
		// apply, without an error (as for a group action).
		applyState(&light.State, light.model(), false, "/lights/"+light.ID+"/state", body, groupAction)
		if effect != "" && light.State.On {
			light.State.V2Effect = effect
		}
		// A setting, not the state: it applies whether the light is on.
		if powerup != nil {
			applyPowerup(&light.State, *powerup)
		}
		if gradient != nil && light.State.On {
			light.State.V2Gradient = gradient
		}
		if speed != nil && light.State.On {
			light.State.V2Speed = *speed
		}
	}
	b.mu.Unlock()
	status, errs := http.StatusOK, []string{}
	switch {
	case refusal != "":
		status, errs = http.StatusBadRequest, []string{refusal}
	case !reachable:
		status = http.StatusMultiStatus
		for _, k := range sortedKeys(body) {
			errs = append(errs, fmt.Sprintf("device (light) has communication issues, command (%s) may not have effect", v2Path(k)))
		}
	}
	b.recordV2(r, raw, light.ID, status)
	if status != http.StatusBadRequest {
		b.notify()
		v2Answer(w, status, []map[string]string{ref(rid, "light")}, errs...)
		return
	}
	v2Answer(w, status, nil, errs...)
}

// v2Path names a v1 attribute as the v2 property in an error message.
func v2Path(v1 string) string {
	switch v1 {
	case "on":
		return ".on.on"
	case "bri":
		return ".dimming.brightness"
	case "xy":
		return ".color.xy"
	case "ct":
		return ".color_temperature.mirek"
	}
	return ".dynamics.duration"
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for _, k := range stateParams {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// v2PutGroupedLight applies a body to every light of a grouped_light
// (bridge_home's, the v1 group 0, or a room's or zone's: v2rooms.go), each
// as far as it can, on the group budget (one command for the group, as a
// v1 group action is).
func (b *Bridge) v2PutGroupedLight(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rid := r.PathValue("id")
	b.mu.Lock()
	groupID, members, found := b.groupedLightLights(rid)
	b.mu.Unlock()
	if !found {
		b.recordV2(r, raw, "", http.StatusNotFound)
		v2Error(w, http.StatusNotFound, "Not Found")
		return
	}
	if !b.limits.allow("/groups/" + groupID + "/action") {
		b.v2Refused.Add(1)
		b.recordV2(r, raw, "", http.StatusTooManyRequests)
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	var put lightPut
	if err := json.Unmarshal(raw, &put); err != nil {
		b.recordV2(r, raw, "", http.StatusBadRequest)
		v2Error(w, http.StatusBadRequest, "Parsing body failed: "+err.Error())
		return
	}
	body, refusal := put.v1Body(Models[DefaultModel])
	if refusal != "" {
		b.recordV2(r, raw, "", http.StatusBadRequest)
		v2Error(w, http.StatusBadRequest, refusal)
		return
	}
	b.mu.Lock()
	for _, id := range members {
		// Each light takes what it can of the group's command.
		if l, ok := b.lights[id]; ok {
			applyState(&l.State, l.model(), false, "/groups/"+groupID+"/action", body, groupAction)
		}
	}
	b.mu.Unlock()
	b.recordV2(r, raw, "", http.StatusOK)
	b.notify()
	v2Answer(w, http.StatusOK, []map[string]string{ref(rid, "grouped_light")})
}

// LightIDV2 is the v2 id of the light service of the bulb with v1 id id.
func (b *Bridge) LightIDV2(id string) string { return b.v2ID("light", id) }

// DeviceIDV2 is the v2 id of the device of the bulb with v1 id id.
func (b *Bridge) DeviceIDV2(id string) string { return b.v2ID("device", id) }
