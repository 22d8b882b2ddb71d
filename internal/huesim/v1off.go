package huesim

import (
	"net/http"
	"strings"
)

// A bridge without the v1 API (Options.V1Off): the firmware Signify has
// announced. Its developer pages say that v1 "will eventually be removed"
// and that new features come to CLIP v2 only, and list what v2 still
// lacks: app registration, so pairing stays POST /api
// (https://developers.meethue.com/new-hue-api/). No such firmware has
// shipped, so what it answers is the simulator's assumption: 404 on every
// v1 path except pairing and the public GET /api/config, which anyone may
// read without a key (Tether learns there which bridge answers before it
// sends one; CLIP v2 has no keyless read of it).

// v1Excepted reports whether a v1 request is one a bridge without v1 still
// answers: pairing and the public config.
func v1Excepted(r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	return (r.Method == http.MethodPost && p == "/api") || (r.Method == http.MethodGet && p == "/api/config")
}

// v1Gate, with the v1 API off, records every v1 request and answers 404
// to those a bridge without v1 would not serve, as a web server answers an
// unknown path (no Hue error array). A bridge with v1 records nothing (a
// long run polls v1 for hours).
func (b *Bridge) v1Gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !b.opts.V1Off || (r.URL.Path != "/api" && !strings.HasPrefix(r.URL.Path, "/api/")) {
			next.ServeHTTP(w, r)
			return
		}
		refused := !v1Excepted(r)
		b.mu.Lock()
		b.v1Requests = append(b.v1Requests, V1Request{Method: r.Method, Path: withoutUser(r.URL.Path), Refused: refused})
		b.mu.Unlock()
		if refused {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// V1Requests lists the requests received on v1 paths, in order, by a
// bridge with the v1 API off.
func (b *Bridge) V1Requests() []V1Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]V1Request(nil), b.v1Requests...)
}

// withoutUser is a v1 path with its username as {user}: /api, /api/config
// and /api/{user}/... stay told apart.
func withoutUser(path string) string {
	rest, ok := strings.CutPrefix(path, "/api/")
	if !ok || rest == "" || rest == "config" || rest == "config/" {
		return path
	}
	_, after, found := strings.Cut(rest, "/")
	if !found {
		return "/api/{user}"
	}
	return "/api/{user}/" + after
}
