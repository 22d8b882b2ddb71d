package faults

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

// TestSpecEditsRacingStatusWrites: a person edits a HueLight's spec 40
// times in a row while the controller reconciles and writes its status
// after every change. No edit is lost to a conflict on either side: the
// bulb ends at the last brightness written, and Ready is True for the last
// generation with status.observed showing it.
//
// The bridge is read every readEvery, longer than the edits usually take:
// the last edit then matches first by what the bridge accepted, before a
// read shows it, and the read that does wakes nobody (no drift). The status
// must still end with what was read. It once kept the read from before the
// first command (brightness 127) until the 5-minute resync; with the 1 s
// poll of the other tests that took a rare timing, with this one it is the
// usual course.
func TestSpecEditsRacingStatusWrites(t *testing.T) {
	const readEvery = 3 * bridgePoll
	g := NewWithT(t)
	ctx := context.Background()
	const user = "faults-conflicts-user-0123456789"
	sim, err := huesim.Start(huesim.Options{Lights: []string{"stairs"}, Usernames: []string{user}, CommandsPerSecond: 50, Burst: 50}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sim.Close)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: "conflicts"},
		Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte(user), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())}}
	g.Expect(k8s.Create(ctx, secret)).To(Succeed())
	hb := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "conflicts"},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.Addr(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: "conflicts"},
			PollInterval:         &metav1.Duration{Duration: readEvery}, CommandsPerSecond: ptr.To[int32](25)}}
	g.Expect(k8s.Create(ctx, hb)).To(Succeed())
	light := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "stairs"},
		Spec: huev1alpha1.HueLightSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: "conflicts"}, Name: "stairs", Brightness: ptr.To[int32](1)}}
	g.Expect(k8s.Create(ctx, light)).To(Succeed())
	t.Cleanup(func() {
		deleteAndWait(t, light, &huev1alpha1.HueLight{})
		deleteAndWait(t, hb, &huev1alpha1.HueBridge{})
		_ = k8s.Delete(ctx, secret)
	})
	bri := func() int { l, _ := sim.LightByName("stairs"); return l.State.Bri }
	g.Eventually(bri, timeout, poll).Should(Equal(1))

	conflicts := 0
	for i := int32(2); i <= 41; i++ {
		// A plain read-modify-write, as kubectl edit does: it conflicts
		// when the controller wrote in between, and is then retried.
		g.Eventually(func() error {
			var cur huev1alpha1.HueLight
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(light), &cur); err != nil {
				return err
			}
			cur.Spec.Brightness = ptr.To(i)
			err := k8s.Update(ctx, &cur)
			if err != nil {
				conflicts++
			}
			return err
		}, timeout, poll/10).Should(Succeed())
	}
	t.Logf("%d spec updates retried after a conflict", conflicts)

	g.Eventually(bri, timeout, poll).Should(Equal(41), "the last edit reached the bulb")
	g.Eventually(func(g Gomega) {
		var cur huev1alpha1.HueLight
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(light), &cur)).To(Succeed())
		g.Expect(*cur.Spec.Brightness).To(BeEquivalentTo(41), "no spec edit was overwritten by a status write")
		ready := meta.FindStatusCondition(cur.Status.Conditions, "Ready")
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.ObservedGeneration).To(Equal(cur.Generation))
		g.Expect(cur.Status.Observed.Brightness).To(BeEquivalentTo(41))
	}, timeout, poll).Should(Succeed())
}
