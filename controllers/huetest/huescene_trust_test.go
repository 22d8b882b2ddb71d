package huetest

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// patchSceneStatus sets a HueScene's status.bridge and status.sceneID as a
// tenant with patch on the status subresource can.
func patchSceneStatus(t *testing.T, c client.Client, name, bridgeName, sceneID string) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		var sc huev1alpha1.HueScene
		g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: "entrance", Name: name}, &sc)).To(Succeed())
		before := sc.DeepCopy()
		sc.Status.Bridge, sc.Status.SceneID = bridgeName, sceneID
		g.Expect(c.Status().Patch(context.Background(), &sc, client.MergeFrom(before))).To(Succeed())
		g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: "entrance", Name: name}, &sc)).To(Succeed())
		g.Expect(sc.Status.SceneID).To(Equal(sceneID))
	}, hueTimeout, huePoll).Should(Succeed())
}

// TestHueSceneChangesAndDeletesOnlyItsOwnScene: a HueScene's status.bridge
// and status.sceneID are where to look, not proof that a scene is its own.
// A tenant points its HueScene's status at a scene the Hue app stored
// (another's), then changes the HueScene: that scene is not rewritten, and
// the HueScene finds its own scene again by the mark Tether stored with it.
// A HueScene whose group does not exist, its status pointed at the same
// scene, is deleted: the scene stays. Deleting the first removes only its
// own scene.
func TestHueSceneChangesAndDeletesOnlyItsOwnScene(t *testing.T) {
	h := newHueEnvOn(t, wire.APIV1, "scene-trust", true, roomLights)
	g := NewWithT(t)
	ctx := context.Background()
	h.sim.AddGroup("Living room", "1", "2", "3")
	h.create(h.newGroup("entrance", "living-room", "Living room"))
	h.eventuallyGroupReady("entrance", "living-room", "True/Available")
	foreign := h.sim.AddScene("Their evening", "1", "2")
	g.Expect(foreign).NotTo(BeEmpty())
	theirs := h.sim.Scenes()[foreign]

	mine := &huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "mine"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "living-room"}, Name: "Mine",
			Lights: []huev1alpha1.SceneLight{{Name: "lamp", Brightness: ptr.To[int32](50)}}},
	}
	h.create(mine)
	eventuallySceneReady(h, "mine", "True/Available")
	var sc huev1alpha1.HueScene
	g.Expect(h.c.Get(ctx, clientKey(mine), &sc)).To(Succeed())
	own := sc.Status.SceneID
	g.Expect(own).NotTo(BeEmpty())
	g.Expect(own).NotTo(Equal(foreign))

	patchSceneStatus(t, h.c, "mine", h.bridge, foreign)
	g.Eventually(func() error {
		var cur huev1alpha1.HueScene
		if err := h.c.Get(ctx, clientKey(mine), &cur); err != nil {
			return err
		}
		cur.Spec.Lights[0].Brightness = ptr.To[int32](120)
		return h.c.Update(ctx, &cur)
	}, hueTimeout, huePoll).Should(Succeed())
	g.Eventually(func(g Gomega) {
		var cur huev1alpha1.HueScene
		g.Expect(h.c.Get(ctx, clientKey(mine), &cur)).To(Succeed())
		g.Expect(cur.Status.SceneID).To(Equal(own), "the HueScene found its own scene again")
		g.Expect(*h.sim.Scenes()[own].States["1"].Bri).To(Equal(120))
	}, hueTimeout, huePoll).Should(Succeed())
	g.Expect(h.sim.Scenes()[foreign]).To(Equal(theirs), "the scene the status pointed at was rewritten")

	orphan := &huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "orphan"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "no-such-group"}, Name: "Orphan",
			Lights: []huev1alpha1.SceneLight{{Name: "lamp", Brightness: ptr.To[int32](10)}}},
	}
	h.create(orphan)
	eventuallySceneReady(h, "orphan", "False/"+hue.ReasonGroupNotFound)
	patchSceneStatus(t, h.c, "orphan", h.bridge, foreign)
	for _, obj := range []*huev1alpha1.HueScene{orphan, mine} {
		g.Expect(h.c.Delete(ctx, obj)).To(Succeed())
		g.Eventually(func() bool {
			return apierrors.IsNotFound(h.c.Get(ctx, clientKey(obj), &huev1alpha1.HueScene{}))
		}, hueTimeout, huePoll).Should(BeTrue(), "HueScene %s not deleted", obj.Name)
	}
	scenes := h.sim.Scenes()
	g.Expect(scenes).To(HaveKey(foreign), "deleting a HueScene deleted a scene that was not its own")
	g.Expect(scenes[foreign]).To(Equal(theirs))
	g.Expect(scenes).NotTo(HaveKey(own), "the HueScene's own scene stays behind")
}
