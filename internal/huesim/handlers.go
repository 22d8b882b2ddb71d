package huesim

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Handler serves the v1 API (/api/...) of the bridge. Like a real bridge it
// answers API errors with HTTP 200 and an error array, except for overload,
// which is HTTP 503 with error 901.
func (b *Bridge) Handler() http.Handler {
	mux := http.NewServeMux()
	b.v1Routes(mux)
	return b.gate(b.v1Gate(mux))
}

// v1Routes adds the v1 API to mux.
func (b *Bridge) v1Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api", b.createUser)
	mux.HandleFunc("POST /api/{$}", b.createUser)
	mux.HandleFunc("GET /api/config", b.getPublicConfig)
	mux.HandleFunc("GET /api/{user}", b.authed(b.getFullState))
	mux.HandleFunc("GET /api/{user}/config", b.getConfig)
	mux.HandleFunc("GET /api/{user}/lights", b.authed(b.getLights))
	mux.HandleFunc("GET /api/{user}/lights/{id}", b.authed(b.getLight))
	mux.HandleFunc("PUT /api/{user}/lights/{id}", b.authed(b.renameLight))
	mux.HandleFunc("PUT /api/{user}/lights/{id}/state", b.authed(b.command(b.putLightState)))
	mux.HandleFunc("GET /api/{user}/groups", b.authed(b.getGroups))
	mux.HandleFunc("POST /api/{user}/groups", b.authed(b.command(b.createGroup)))
	mux.HandleFunc("GET /api/{user}/groups/{id}", b.authed(b.getGroup))
	mux.HandleFunc("DELETE /api/{user}/groups/{id}", b.authed(b.command(b.deleteGroup)))
	mux.HandleFunc("PUT /api/{user}/groups/{id}/action", b.authed(b.command(b.putGroupAction)))
	b.sceneRoutes(mux)
	mux.HandleFunc("/api/{user}/{rest...}", b.authed(b.unknownResource))
}

// resourcePath is the address the bridge uses in answers: the URL path
// without /api/<username>.
func resourcePath(r *http.Request) string {
	rest := strings.TrimPrefix(r.URL.Path, "/api")
	rest = strings.TrimPrefix(rest, "/")
	if rest == "config" {
		return "/config"
	}
	if i := strings.Index(rest, "/"); i >= 0 {
		return strings.TrimSuffix(rest[i:], "/")
	}
	return "/"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// authed answers error 1 unless the path's username is on the whitelist.
func (b *Bridge) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		_, ok := b.users[r.PathValue("user")]
		b.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusOK, []result{unauthorized(resourcePath(r))})
			return
		}
		h(w, r)
	}
}

func (b *Bridge) createUser(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DeviceType        string `json:"devicetype"`
		GenerateClientKey bool   `json:"generateclientkey"`
	}
	raw, _ := io.ReadAll(r.Body)
	var res result
	switch {
	case json.Unmarshal(raw, &body) != nil:
		res = failure(ErrInvalidJSON, "", "body contains invalid json")
	case body.DeviceType == "":
		res = failure(ErrMissingParameters, "", "invalid/missing parameters in body")
	default:
		res = b.pair(body.DeviceType, body.GenerateClientKey)
	}
	b.record(r, "/", raw, []result{res})
	writeJSON(w, http.StatusOK, []result{res})
}

// pair issues a username if the link button was pressed recently.
func (b *Bridge) pair(deviceType string, clientKey bool) result {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Now().After(b.linkUntil) {
		return failure(ErrLinkButton, "", "link button not pressed")
	}
	user := randomHex(20)
	now := timestamp(time.Now())
	b.users[user] = whitelistEntry{Name: deviceType, Created: now, LastUsed: now}
	ok := map[string]any{"username": user}
	if clientKey {
		ok["clientkey"] = strings.ToUpper(randomHex(16))
	}
	return result{"success": ok}
}

func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
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

func (b *Bridge) getFullState(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	empty := map[string]any{}
	writeJSON(w, http.StatusOK, map[string]any{
		"lights": b.lightsJSON(), "groups": b.groupsJSON(), "config": b.fullConfig(),
		"schedules": empty, "scenes": b.scenesJSON(), "rules": empty, "sensors": empty, "resourcelinks": empty,
	})
}

// lightsJSON is the id -> light map. Callers hold b.mu.
func (b *Bridge) lightsJSON() map[string]any {
	out := make(map[string]any, len(b.lights))
	for id, l := range b.lights {
		out[id] = lightJSON(l)
	}
	return out
}

func (b *Bridge) getLights(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	writeJSON(w, http.StatusOK, b.lightsJSON())
}

func (b *Bridge) getLight(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.lights[r.PathValue("id")]
	if !ok {
		writeJSON(w, http.StatusOK, []result{notAvailable(resourcePath(r))})
		return
	}
	writeJSON(w, http.StatusOK, lightJSON(l))
}

func (b *Bridge) renameLight(w http.ResponseWriter, r *http.Request) {
	addr := resourcePath(r)
	raw, _ := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	res := []result{}
	b.mu.Lock()
	l, ok := b.lights[r.PathValue("id")]
	var name string
	switch {
	case !ok:
		res = append(res, notAvailable(addr))
	case json.Unmarshal(raw, &body) != nil:
		res = append(res, failure(ErrInvalidJSON, "", "body contains invalid json"))
	case json.Unmarshal(body["name"], &name) != nil || name == "" || len(name) > 32:
		res = append(res, invalidValue(addr+"/name", "name", string(body["name"])))
	default:
		l.Name = name
		res = append(res, success(addr+"/name", name))
	}
	b.mu.Unlock()
	b.notify()
	b.record(r, addr, raw, res)
	writeJSON(w, http.StatusOK, res)
}

func (b *Bridge) getGroups(w http.ResponseWriter, _ *http.Request) {
	// Group 0 is implicit and not listed, as on a real bridge.
	b.mu.Lock()
	defer b.mu.Unlock()
	writeJSON(w, http.StatusOK, b.groupsJSON())
}

func (b *Bridge) getGroup(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := r.PathValue("id")
	if id == "0" {
		writeJSON(w, http.StatusOK, b.groupZero())
		return
	}
	g, ok := b.groups[id]
	if !ok {
		writeJSON(w, http.StatusOK, []result{notAvailable(resourcePath(r))})
		return
	}
	writeJSON(w, http.StatusOK, b.groupJSON(g))
}

func (b *Bridge) unknownResource(w http.ResponseWriter, r *http.Request) {
	addr := resourcePath(r)
	if r.Method != http.MethodGet {
		writeJSON(w, http.StatusOK, []result{failure(ErrMethodNotAvailable, addr,
			fmt.Sprintf("method, %s, not available for resource, %s", r.Method, addr))})
		return
	}
	writeJSON(w, http.StatusOK, []result{notAvailable(addr)})
}
