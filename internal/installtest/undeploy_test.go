package installtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/tether-dev/tether/api"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/reconciler"
)

// TestMakeUndeployLeavesNothingOnAFinalizer installs Tether, runs its
// manager with the install's RBAC and gives it a HueBridge and a HueLight
// (which carries a finalizer), then runs `make undeploy` as a user would.
// Plain, it removes the operator and keeps the CRDs and the objects, none of
// them deleting; with DELETE_OBJECTS=true the objects go first, their
// finalizers done by the operator (the bulb switched off, as the HueLight's
// deletionPolicy says), and the CRDs stay.
func TestMakeUndeployLeavesNothingOnAFinalizer(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	s, err := api.NewScheme()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(apiextensionsv1.AddToScheme(s)).To(Succeed())
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: s}
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	testenv.ApplyInstallManifest(t, env, root, assets)
	c, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())

	bridge, err := huesim.Start(huesim.Options{Lights: []string{"hallway"}, Usernames: []string{"undeploy-user"}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(bridge.Close)
	startManagerAs(t, admin, s)
	g.Expect(c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "hue-home"},
		StringData: map[string]string{"username": "undeploy-user", "bridgeid": bridge.BridgeID()}})).To(Succeed())
	g.Expect(c.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home"},
		Spec: huev1alpha1.HueBridgeSpec{Address: bridge.URL(), CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: namespace, Name: "hue-home"}}})).To(Succeed())
	g.Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "entrance"}})).To(Succeed())
	light := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "hallway-light"},
		Spec: huev1alpha1.HueLightSpec{Name: "hallway", Brightness: ptr.To[int32](200)}}
	g.Expect(c.Create(ctx, light)).To(Succeed())
	g.Eventually(func(g Gomega) {
		l, ok := bridge.LightByName("hallway")
		g.Expect(ok).To(BeTrue())
		g.Expect(l.State.On).To(BeTrue())
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(light), light)).To(Succeed())
		g.Expect(light.Finalizers).NotTo(BeEmpty())
	}, time.Minute, 100*time.Millisecond).Should(Succeed())

	undeploy := func(vars ...string) {
		t.Helper()
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-o", "manifests", "undeploy",
			"KUBECTL=" + filepath.Join(assets, "kubectl")}, vars...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "KUBECONFIG="+testenv.AdminKubeconfig(t, env))
		out, err := cmd.CombinedOutput()
		g.Expect(err).NotTo(HaveOccurred(), "make undeploy %v:\n%s", vars, out)
	}
	deployment := client.ObjectKey{Namespace: namespace, Name: "tether-controller-manager"}

	// Objects first, while the operator still runs.
	undeploy("DELETE_OBJECTS=true")
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(light), &huev1alpha1.HueLight{}))).To(BeTrue(),
		"the HueLight is still there after make undeploy DELETE_OBJECTS=true")
	l, _ := bridge.LightByName("hallway")
	g.Expect(l.State.On).To(BeFalse(), "the HueLight's finalizer did not switch the bulb off")
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "home"}, &huev1alpha1.HueBridge{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(c.Get(ctx, deployment, &appsv1.Deployment{}))).To(BeTrue(), "the operator is still deployed")
	var crds apiextensionsv1.CustomResourceDefinitionList
	g.Expect(c.List(ctx, &crds)).To(Succeed())
	g.Expect(crds.Items).To(HaveLen(6), "make undeploy removed CRDs it was not asked to")
	g.Expect(c.Get(ctx, client.ObjectKey{Name: namespace}, &corev1.Namespace{})).To(Succeed(), "the namespace with the credentials went")

	// Plain: the operator goes, objects and CRDs stay, none deleting.
	testenv.ApplyInstallManifest(t, env, root, assets)
	kept := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "kept"},
		Spec: huev1alpha1.HueLightSpec{Name: "hallway"}}
	kept.Finalizers = []string{reconciler.Finalizer}
	g.Expect(c.Create(ctx, kept)).To(Succeed())
	undeploy()
	g.Expect(apierrors.IsNotFound(c.Get(ctx, deployment, &appsv1.Deployment{}))).To(BeTrue(), "the operator is still deployed")
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(kept), kept)).To(Succeed())
	g.Expect(kept.DeletionTimestamp).To(BeNil(), "make undeploy started deleting an object the operator can no longer finish")
	g.Expect(c.List(ctx, &crds)).To(Succeed())
	g.Expect(crds.Items).To(HaveLen(6))
}
