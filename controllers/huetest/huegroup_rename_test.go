package huetest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestHueGroupRenamedInTheHueAppIsPutBack: a room Tether created for a
// HueGroup, renamed in the Hue app, is the HueGroup's still (its id is the
// one Tether recorded when it created it): the name is drift, put back on
// the same room, with no new room made. A room Tether found by its name
// and did not create is the user's: renamed, it is no longer the one the
// HueGroup names, and Tether leaves the new name alone (GroupNotFound).
// On all three APIs: the Hue app renames over v1 on a v1 bridge and over
// CLIP v2 otherwise. On the code before, the renamed room was not found:
// Tether went to make a second room with the same lights and stopped at
// LightInAnotherRoom (they were in the renamed room), the name never put
// back.
func TestHueGroupRenamedInTheHueAppIsPutBack(t *testing.T) {
	forEachGroupAPI(t, func(t *testing.T, api string) {
		h := newHueEnvOn(t, api, "rename", true, roomLights)
		g := NewWithT(t)
		rename := hueAppRenamer(t, h, api)

		den := h.newGroup("entrance", "den", "Den")
		den.Spec.Type, den.Spec.Lights = huev1alpha1.GroupRoom, []string{"lamp", "white"}
		h.create(den)
		gr := h.eventuallyGroupReady("entrance", "den", "True/Available")
		g.Expect(gr.Status.Created).To(BeTrue())
		id := gr.Status.GroupID
		groups := len(h.sim.Groups())

		rename(id, "Lounge")
		g.Eventually(func() string { return h.sim.Groups()[id].Name }, driftSeen, huePoll).
			Should(Equal("Den"), "the room Tether created is not named back")
		g.Expect(h.sim.Groups()).To(HaveLen(groups), "a room was made or removed")
		gr = h.eventuallyGroupReady("entrance", "den", "True/Available")
		g.Expect(gr.Status.GroupID).To(Equal(id))

		// The user's own room, adopted by its name, renamed by the user.
		own := h.sim.AddZone("Reading", "3")
		reading := h.newGroup("entrance", "reading", "Reading")
		h.create(reading)
		h.eventuallyGroupReady("entrance", "reading", "True/Available")
		rename(own, "Study")
		h.eventuallyGroupReady("entrance", "reading", "False/"+hue.ReasonGroupNotFound)
		g.Expect(h.sim.Groups()[own].Name).To(Equal("Study"), "the user's renamed zone is named back")
	})
}

// hueAppRenamer renames a room or zone as the Hue app does: over v1 on a
// v1 bridge (PUT /groups/<id>), over CLIP v2 otherwise (the metadata of
// the room or zone). The bridge's group budget may answer 429 first.
func hueAppRenamer(t *testing.T, h *hueEnv, api string) func(id, name string) {
	g := NewWithT(t)
	if api == wire.APIV1 {
		return func(id, name string) {
			g.Eventually(func() int {
				req, _ := http.NewRequest(http.MethodPut, h.sim.URL()+"/api/"+hueUser+"/groups/"+id, strings.NewReader(fmt.Sprintf(`{"name":%q}`, name)))
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					return 0
				}
				res.Body.Close()
				return res.StatusCode
			}, hueTimeout, huePoll).Should(Equal(http.StatusOK))
			g.Eventually(func() string { return h.sim.Groups()[id].Name }, hueTimeout, huePoll).Should(Equal(name))
		}
	}
	hueApp := v2AppClient(t, h.sim)
	return func(id, name string) {
		rtype := "room"
		if h.sim.Groups()[id].Type == huesim.TypeZone {
			rtype = "zone"
		}
		rid := h.sim.RoomIDV2(id)
		g.Eventually(func() int {
			return hueApp("PUT", "/clip/v2/resource/"+rtype+"/"+rid, fmt.Sprintf(`{"metadata":{"name":%q}}`, name))
		}, hueTimeout, huePoll).Should(Equal(http.StatusOK))
	}
}
