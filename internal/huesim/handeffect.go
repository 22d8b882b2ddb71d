package huesim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// SetEffect changes the CLIP v2 effect a bulb plays as the Hue app would
// (a hand change: OnHandChange hears it, the event stream pushes it), so
// a demo can show an effect put back. The bulb must list the effect
// (effects.go); no_effect stops the one it plays.
func (b *Bridge) SetEffect(id, effect string) error {
	b.mu.Lock()
	l, ok := b.lights[id]
	var refusal string
	if ok {
		refusal = effectRefusal(l.model(), effect)
	}
	b.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("no light %q", id)
	case refusal != "":
		return errors.New(refusal)
	}
	return b.ChangeLight(id, func(st *LightState) { st.V2Effect = effect })
}

// controlEffect is PUT /lights/{id}/effect {"effect": "no_effect"}.
func (s *Server) controlEffect(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Effect string `json:"effect"`
	}
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<10)).Decode(&body)
	if err == nil {
		err = s.SetEffect(r.PathValue("id"), body.Effect)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ok(w, "effect "+body.Effect)
}
