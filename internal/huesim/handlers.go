package huesim

import (
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
	mux.HandleFunc("PUT /api/{user}/lights/{id}", b.authed(b.logged(b.renameLight)))
	mux.HandleFunc("PUT /api/{user}/lights/{id}/state", b.authed(b.command(b.putLightState)))
	mux.HandleFunc("GET /api/{user}/groups", b.authed(b.getGroups))
	mux.HandleFunc("POST /api/{user}/groups", b.authed(b.command(b.createGroup)))
	mux.HandleFunc("GET /api/{user}/groups/{id}", b.authed(b.getGroup))
	mux.HandleFunc("DELETE /api/{user}/groups/{id}", b.authed(b.command(b.deleteGroup)))
	mux.HandleFunc("PUT /api/{user}/groups/{id}", b.authed(b.command(b.setGroupAttributes)))
	mux.HandleFunc("PUT /api/{user}/groups/{id}/action", b.authed(b.command(b.putGroupAction)))
	b.sceneRoutes(mux)
	mux.HandleFunc("/api/{user}/{rest...}", b.authed(b.unknownResource))
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

func (b *Bridge) getFullState(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	empty := map[string]any{}
	writeJSON(w, http.StatusOK, map[string]any{
		"lights": b.lightsJSON(), "groups": b.groupsJSON(), "config": b.fullConfig(),
		"schedules": empty, "scenes": b.scenesJSON(), "rules": empty, "sensors": empty, "resourcelinks": empty,
	})
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
