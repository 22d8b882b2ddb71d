// Package installtest checks the rendered install manifest against a real API
// server: it is accepted, and the manager, running as the ServiceAccount it
// creates (so with exactly its RBAC), can do its work.
package installtest

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tether-dev/tether/api"
	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/reconciler"
)

const (
	namespace      = "tether-system"
	serviceAccount = "system:serviceaccount:tether-system:tether-controller-manager"
)

func TestInstallManifestIsAcceptedAndItsRBACIsEnough(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())

	s, err := api.NewScheme()
	g.Expect(err).NotTo(HaveOccurred())
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: s}
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })

	// Render and apply exactly what `make build-installer` writes.
	testenv.ApplyInstallManifest(t, env, root, assets)
	adminClient, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())
	for _, name := range []string{"tether-controller-manager", "tether-manager-role", "tether-manager-rolebinding"} {
		g.Expect(exists(adminClient, name)).To(BeTrue(), "%s was not installed", name)
	}

	// The outside world: a simulated bridge and DynamoDB Local.
	bridge, err := huesim.Start(huesim.Options{Lights: []string{"hallway"}, Usernames: []string{"installtest-user"}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(bridge.Close)
	ddb := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	ddbtest.UseEndpoint(t, ddb.URL)

	// The manager, as its ServiceAccount, with leader election as deployed.
	startManagerAs(t, admin, s)

	ctx := context.Background()
	g.Expect(adminClient.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "hue-home"},
		StringData: map[string]string{"username": "installtest-user", "bridgeid": bridge.BridgeID()},
	})).To(Succeed())
	g.Expect(adminClient.Create(ctx, &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "home"},
		Spec: huev1alpha1.HueBridgeSpec{Address: bridge.URL(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: namespace, Name: "hue-home"}},
	})).To(Succeed())
	g.Expect(adminClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "entrance"}})).To(Succeed())
	light := &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "hallway-light"},
		Spec:       huev1alpha1.HueLightSpec{Name: "hallway", Brightness: ptr.To[int32](200)},
	}
	g.Expect(adminClient.Create(ctx, light)).To(Succeed())
	table := &awsv1alpha1.DynamoDBTable{
		// In the operator's namespace: the only one whose tables may use
		// the operator's own identity by default (--aws-require-account).
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "installtest"},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "id", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "id", KeyType: "HASH"}},
		},
	}
	g.Expect(adminClient.Create(ctx, table)).To(Succeed())

	g.Eventually(func(g Gomega) {
		l, ok := bridge.LightByName("hallway")
		g.Expect(ok).To(BeTrue())
		g.Expect(l.State.On).To(BeTrue())
		g.Expect(l.State.Bri).To(Equal(200))
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	for _, obj := range []reconciler.Managed{light, table} {
		g.Eventually(func(g Gomega) []metav1.Condition {
			g.Expect(adminClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			return obj.Managed().Conditions
		}, time.Minute, 200*time.Millisecond).Should(ContainElement(
			And(HaveField("Type", commonv1alpha1.Ready), HaveField("Status", metav1.ConditionTrue))),
			"%s %s/%s never became Ready", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName())
	}

	// Only the manager writes status: even a cluster admin's write to a
	// table's status (one that would name a foreign table as its own) is
	// refused by the install's admission policy, while the manager's
	// writes above went through.
	g.Eventually(func() error {
		forged := table.DeepCopy()
		forged.Status.TableID = "a-table-someone-else-owns"
		return adminClient.Status().Update(ctx, forged)
	}, time.Minute, 200*time.Millisecond).Should(MatchError(ContainSubstring("only Tether's manager writes the status of dynamodbtables")))
	g.Expect(adminClient.Get(ctx, client.ObjectKeyFromObject(table), table)).To(Succeed())
	g.Expect(table.Status.TableID).NotTo(Equal("a-table-someone-else-owns"))
}

// exists finds a namespaced or cluster-wide RBAC object or ServiceAccount by name.
func exists(c client.Client, name string) bool {
	ctx := context.Background()
	var sa corev1.ServiceAccount
	if c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &sa) == nil {
		return true
	}
	for _, obj := range []client.Object{&rbacv1.ClusterRole{}, &rbacv1.ClusterRoleBinding{}} {
		if c.Get(ctx, client.ObjectKey{Name: name}, obj) == nil {
			return true
		}
	}
	return false
}

// startManagerAs runs the manager impersonating its ServiceAccount: every
// request is authorised by the installed RBAC and nothing else.
func startManagerAs(t *testing.T, admin *rest.Config, s *runtime.Scheme) {
	t.Helper()
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceAccount,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  s,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "manager.tether.dev",
		LeaderElectionNamespace: namespace,
		Controller:              config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := controllers.SetupAll(mgr, controllers.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}
