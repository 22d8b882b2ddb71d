package huetest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/reconciler"
)

// TestHueLongEventReachesTheAPIServer: the Updated event of a 20-light
// HueGroup names every member's change, well over the 1,024 bytes the API
// server takes in an Event's note; it reaches the API server cut, as a
// condition's message is cut, instead of being refused and lost.
func TestHueLongEventReachesTheAPIServer(t *testing.T) {
	var names, ids []string
	for i := 1; i <= 20; i++ {
		names = append(names, fmt.Sprintf("living-room-ceiling-spot-%02d", i))
		ids = append(ids, strconv.Itoa(i))
	}
	h := newHueEnvWith(t, "long-events", true, huesim.Options{Lights: names})
	g := NewWithT(t)
	h.sim.AddGroup("Living room", ids...)
	lr := h.newGroup("entrance", "twenty", "Living room")
	lr.Spec.Brightness, lr.Spec.Color = ptr.To[int32](77), xyColor(0.6, 0.35)
	h.create(lr)
	h.eventuallyGroupReady("entrance", "twenty", "True/Available")

	g.Eventually(func(g Gomega) {
		var events eventsv1.EventList
		g.Expect(h.c.List(context.Background(), &events)).To(Succeed())
		var note string
		for _, e := range events.Items {
			if e.Regarding.Kind == "HueGroup" && e.Regarding.Name == "twenty" && e.Reason == reconciler.ReasonUpdated {
				note = e.Note
			}
		}
		g.Expect(note).NotTo(BeEmpty(), "the Updated event reached the API server")
		g.Expect(len(note)).To(BeNumerically("<=", providers.MaxEventNoteBytes))
		g.Expect(utf8.ValidString(note)).To(BeTrue())
		g.Expect(note).To(HavePrefix("updated: living-room-ceiling-spot-01 ("))
		g.Expect(strings.HasSuffix(note, "...")).To(BeTrue(), "the cut is marked: %q", note)
	}, hueTimeout, huePoll).Should(Succeed())
}
