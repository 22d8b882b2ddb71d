package huesim

import (
	"mime"
	"net"
	"net/http"
	"strings"
)

// The demo's pages (WebHandler here, and internal/demo's page with its Hue
// app control) are served to a browser on the presenter's machine, which
// also visits other sites. Two things such a site can do, and what stops
// each:
//   - send a request to the page from its own origin: a form or a fetch
//     with a "simple" content type (text/plain, form data) goes without a
//     CORS preflight, so its write lands. Writes are taken only as
//     application/json (which a cross-site request can send only after a
//     preflight this server never answers) with an Origin that is the
//     page's own;
//   - rebind its DNS name to the page's address and then read the page as
//     same-origin: the browser still sends its own name as Host. So Host
//     must be an IP address, localhost, or a name the page was told.

// GuardPage serves next only to requests the page's own browser tab would
// make (see above); hosts are names besides IP addresses and localhost
// that the page is reached by.
func GuardPage(next http.Handler, hosts ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !pageHost(r.Host, hosts) {
			http.Error(w, "this page answers only to its own address (Host "+quoteBounded(r.Host)+" refused)", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
				http.Error(w, "writes are taken only as application/json", http.StatusUnsupportedMediaType)
				return
			}
			if !sameOrigin(r) {
				http.Error(w, "writes are taken only from this page's own origin", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// pageHost reports whether a request's Host is one the page is reached
// by: an IP address, localhost, or one of hosts (any port).
func pageHost(hostport string, hosts []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if net.ParseIP(host) != nil || strings.EqualFold(host, "localhost") {
		return true
	}
	for _, h := range hosts {
		if strings.EqualFold(host, h) {
			return true
		}
	}
	return false
}

// sameOrigin reports whether the request's Origin is the page's own: the
// scheme it is served over and the Host it was asked by. A request with no
// Origin is refused: browsers send one with every write.
func sameOrigin(r *http.Request) bool {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	origin := r.Header.Get("Origin")
	return origin != "" && strings.EqualFold(origin, scheme+"://"+r.Host)
}

// quoteBounded quotes a header value for an error, bounded.
func quoteBounded(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
