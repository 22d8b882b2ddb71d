package huesim

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ControlHandler serves the test controls over HTTP:
//
//	POST   /link                         press the link button
//	POST   /offline?mode=refuse|hang     take the bridge off the network
//	POST   /online                       put it back
//	POST   /slow?delay=2s                delay every answer (0s: no delay)
//	POST   /rate?perSecond=10&burst=10   change the light-command budget
//	GET    /lights                       all bulbs with their state
//	POST   /lights                       {"name": "...", "model": "LTW001"}: add a bulb (model optional)
//	DELETE /lights/{id}                  remove a bulb
//	PUT    /lights/{id}/state            merge state JSON, as the Hue app would
//	POST   /lights/{id}/reachable?value=false
//	PUT    /lights/{id}/effect   {"effect": "no_effect"}: the CLIP v2
//	                             effect, as the Hue app sets it (handeffect.go)
//	POST   /lights/{id}/omit?keys=ct,bri  leave state fields out of GET /lights
//	GET    /log, DELETE /log             received commands, with timestamps
//	GET    /gets, DELETE /gets           GET count per resource path
func (s *Server) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /link", func(w http.ResponseWriter, _ *http.Request) {
		s.PressLinkButton()
		ok(w, "link button pressed")
	})
	mux.HandleFunc("POST /offline", s.controlOffline)
	mux.HandleFunc("POST /online", func(w http.ResponseWriter, _ *http.Request) {
		if err := s.Online(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ok(w, "online")
	})
	mux.HandleFunc("POST /slow", s.controlSlow)
	mux.HandleFunc("POST /rate", s.controlRate)
	mux.HandleFunc("GET /lights", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Lights()) })
	mux.HandleFunc("POST /lights", s.controlAddLight)
	mux.HandleFunc("DELETE /lights/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.RemoveLight(r.PathValue("id"))
		ok(w, "removed")
	})
	mux.HandleFunc("PUT /lights/{id}/state", s.controlPatchLight)
	mux.HandleFunc("POST /lights/{id}/reachable", s.controlReachable)
	mux.HandleFunc("PUT /lights/{id}/effect", s.controlEffect)
	mux.HandleFunc("POST /lights/{id}/omit", s.controlOmit)
	mux.HandleFunc("GET /ca.pem", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-pem-file")
		_, _ = w.Write(s.CACertPEM())
	})
	mux.HandleFunc("GET /log", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Commands()) })
	mux.HandleFunc("DELETE /log", func(w http.ResponseWriter, _ *http.Request) { s.ResetCommands(); ok(w, "log reset") })
	mux.HandleFunc("GET /gets", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.GetCounts()) })
	mux.HandleFunc("DELETE /gets", func(w http.ResponseWriter, _ *http.Request) { s.ResetGetCounts(); ok(w, "counts reset") })
	return mux
}

func ok(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusOK, map[string]string{"result": msg})
}

func (s *Server) controlOffline(w http.ResponseWriter, r *http.Request) {
	mode := OfflineMode(r.URL.Query().Get("mode"))
	if mode == "" {
		mode = Refuse
	}
	if mode != Refuse && mode != Hang {
		http.Error(w, "mode must be refuse or hang", http.StatusBadRequest)
		return
	}
	s.Offline(mode)
	ok(w, "offline ("+string(mode)+")")
}

func (s *Server) controlSlow(w http.ResponseWriter, r *http.Request) {
	d, err := time.ParseDuration(r.URL.Query().Get("delay"))
	if err != nil || d < 0 {
		http.Error(w, "delay must be a duration such as 2s", http.StatusBadRequest)
		return
	}
	s.SetDelay(d)
	ok(w, "delay "+d.String())
}

func (s *Server) controlRate(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rate, err1 := strconv.ParseFloat(q.Get("perSecond"), 64)
	burst, err2 := strconv.Atoi(q.Get("burst"))
	if err1 != nil || err2 != nil || rate <= 0 || burst < 1 {
		http.Error(w, "perSecond > 0 and burst >= 1 are required", http.StatusBadRequest)
		return
	}
	s.SetRate(rate, burst)
	ok(w, "rate changed")
}

func (s *Server) controlAddLight(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name  string `json:"name"`
		Model string `json:"model"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil || body.Name == "" {
		http.Error(w, `body must be {"name": "...", "model": "..."}`, http.StatusBadRequest)
		return
	}
	if body.Model == "" {
		body.Model = DefaultModel
	}
	if _, ok := Models[body.Model]; !ok {
		http.Error(w, fmt.Sprintf("unknown model %q; known: %s", body.Model, strings.Join(ModelIDs(), ", ")), http.StatusBadRequest)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": s.AddLightModel(body.Name, body.Model)})
}

func (s *Server) controlPatchLight(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if err := s.patchLight(r.PathValue("id"), raw); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ok(w, "changed")
}

func (s *Server) controlOmit(w http.ResponseWriter, r *http.Request) {
	var keys []string
	if k := r.URL.Query().Get("keys"); k != "" {
		keys = strings.Split(k, ",")
	}
	if err := s.OmitState(r.PathValue("id"), keys...); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ok(w, "omitting "+strings.Join(keys, ","))
}

func (s *Server) controlReachable(w http.ResponseWriter, r *http.Request) {
	v, err := strconv.ParseBool(r.URL.Query().Get("value"))
	if err == nil {
		err = s.SetReachable(r.PathValue("id"), v)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ok(w, fmt.Sprintf("reachable=%t", v))
}

// ServeControl serves ControlHandler on addr, which must be a loopback
// address: the controls can turn the "bridge" off and must not be exposed.
// It returns the address it listens on and a function that stops it.
func (s *Server) ServeControl(addr string) (string, func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", nil, fmt.Errorf("control address %q is not loopback", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: s.ControlHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}
