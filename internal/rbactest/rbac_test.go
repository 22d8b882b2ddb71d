package rbactest

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/tether-dev/tether/api"
	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/cmd/manager/serving"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/reconciler"
)

const (
	// namespace and serviceAccountName are what the install manifest
	// creates (config/default's namePrefix and namespace).
	namespace          = "tether-system"
	serviceAccountName = "tether-controller-manager"
	managerUser        = "system:serviceaccount:" + namespace + ":" + serviceAccountName

	timeout = 90 * time.Second
	poll    = 200 * time.Millisecond
)

// auditPolicy logs every request once it completed (watches also when they
// start), with who, what and the answer, never a body.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// unexercised are permissions the manager holds but the scenario cannot
// show it using, each with the reason it is still needed. Keep it short:
// everything else granted must appear in the audit log.
var unexercised = map[permission]string{
	{"aws.tether.dev", "dynamodbtables", "list"}: listFallback,
	{"aws.tether.dev", "awsaccounts", "list"}:    listFallback,
	{"", "namespaces", "list"}:                   listFallback,
	{"hue.tether.dev", "huebridges", "list"}:     listFallback,
	{"hue.tether.dev", "huelights", "list"}:      listFallback,
	{"hue.tether.dev", "huegroups", "list"}:      listFallback,
	{"hue.tether.dev", "huescenes", "list"}:      listFallback,
	{"events.k8s.io", "events", "patch"}:         eventSeries,
	{"", "events", "patch"}:                      eventSeries,
}

const (
	// listFallback: client-go's informers fill their cache with a
	// streaming watch (sendInitialEvents) where the API server offers it,
	// as this one does, and fall back to a plain list where it does not
	// (older servers, the feature turned off).
	listFallback = "informers list when the API server cannot stream the initial state"
	// eventSeries: the event recorders patch an event that repeats for the
	// same version of the same object into a series; Tether writes its
	// status between two events about one object, so the scenario cannot
	// make one, but without the verb a series would be lost.
	eventSeries = "recorders patch repeated events into a series"
)

func TestManagerRBACIsExactlyWhatItUses(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	g := NewWithT(t)
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())

	// The API server, with an audit log. OwnerReferencesPermissionEnforcement
	// is on (as on OpenShift) so that a missing finalizers permission would
	// show as a refusal rather than pass unnoticed.
	dir := t.TempDir()
	policyPath, auditPath := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	g.Expect(os.WriteFile(policyPath, []byte(auditPolicy), 0o600)).To(Succeed())
	s, err := api.NewScheme()
	g.Expect(err).NotTo(HaveOccurred())
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: s}
	env.ControlPlane.GetAPIServer().Configure().
		Set("audit-policy-file", policyPath).
		Set("audit-log-path", auditPath).
		Set("enable-admission-plugins", "OwnerReferencesPermissionEnforcement")
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	// A missing permission usually shows first as a step that never
	// finishes: name the refused requests when the test fails.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		refused := map[string]int{}
		for _, r := range managerRequests(t, auditPath) {
			if r.code == 403 {
				refused[r.String()]++
			}
		}
		for r, n := range refused {
			t.Logf("refused %d times: %s", n, r)
		}
	})

	// Exactly what `make build-installer` writes: CRDs, ServiceAccount, RBAC.
	testenv.ApplyInstallManifest(t, env, root, assets)
	k8s, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())

	// The outside world: two simulated bridges (one pairs into a new Secret,
	// one into the Secret Tether made for it before, emptied since) and
	// DynamoDB Local.
	home, err := huesim.Start(huesim.Options{Lights: []string{"hallway"}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(home.Close)
	upstairs, err := huesim.Start(huesim.Options{Lights: []string{"landing"}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(upstairs.Close)
	ddb := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	ddbtest.UseEndpoint(t, ddb.URL)
	// An account reached through STS (a model: internal/ststest).
	const roleARN = "arn:aws:iam::111111111111:role/tether"
	sts, err := ststest.Start(ststest.Options{Roles: []ststest.Role{{ARN: roleARN, Trusts: []string{"tethertest"}, AccessKeyID: "rbactestkey"}}})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sts.Close)
	t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL)

	// The manager, authenticated by a token of its ServiceAccount, as in a pod.
	metricsAddr := testenv.FreeAddr(t)
	stopManager := startManager(t, managerConfig(t, admin), s, metricsAddr)

	// Life of two HueBridges: pairing creates one credentials Secret and
	// updates the other.
	g.Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "hue-upstairs",
		Labels: map[string]string{hue.OwnerLabel: "upstairs"}}})).To(Succeed())
	home.Bridge.PressLinkButton()
	upstairs.Bridge.PressLinkButton()
	bridges := map[string]*huesim.Server{"home": home, "upstairs": upstairs}
	for name, sim := range bridges {
		g.Expect(k8s.Create(ctx, &huev1alpha1.HueBridge{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: huev1alpha1.HueBridgeSpec{Address: sim.URL(), PollInterval: &metav1.Duration{Duration: time.Second},
				CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: namespace, Name: "hue-" + name}},
		})).To(Succeed())
	}
	for name := range bridges {
		eventuallyReady(t, k8s, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	// A third names a Secret outside the manager's namespace: it is refused
	// without a request for that Secret (c below).
	g.Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hue-elsewhere"},
		StringData: map[string]string{huev1alpha1.CredentialsKey: "someone-elses-user"}})).To(Succeed())
	elsewhere := &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"},
		// An address nothing answers at: it is never contacted.
		Spec: huev1alpha1.HueBridgeSpec{Address: "http://127.0.0.1:1",
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "default", Name: "hue-elsewhere"}},
	}
	g.Expect(k8s.Create(ctx, elsewhere)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(elsewhere), elsewhere)).To(Succeed())
		ready := findCondition(elsewhere.Status.Conditions, commonv1alpha1.Ready)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(hue.ReasonCredentialsNamespaceNotAllowed))
	}, timeout, poll).Should(Succeed(), "a HueBridge naming a Secret in another namespace was not refused")
	bridges["elsewhere"] = nil

	// Life of a HueLight: create, spec change, two identical drifts (the
	// second event about the same thing is a patch of the first), delete.
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "entrance"}})).To(Succeed())
	light := &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "hallway-light"},
		Spec: huev1alpha1.HueLightSpec{Name: "hallway", Brightness: ptr.To[int32](200),
			BridgeRef: &huev1alpha1.BridgeReference{Name: "home"}},
	}
	g.Expect(k8s.Create(ctx, light)).To(Succeed())
	eventuallyBulb(t, home, "hallway", true, 200)
	eventuallyReady(t, k8s, light)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(light), light)).To(Succeed())
	light.Spec.Brightness = ptr.To[int32](100)
	g.Expect(k8s.Update(ctx, light)).To(Succeed())
	eventuallyBulb(t, home, "hallway", true, 100)
	eventuallyReady(t, k8s, light)
	for range 2 {
		l, _ := home.Bridge.LightByName("hallway")
		g.Expect(home.Bridge.ChangeLight(l.ID, func(st *huesim.LightState) { st.Bri = 10 })).To(Succeed())
		eventuallyBulb(t, home, "hallway", true, 100)
	}
	g.Expect(k8s.Delete(ctx, light)).To(Succeed())
	eventuallyBulb(t, home, "hallway", false, 100)
	eventuallyGone(t, k8s, light)

	// Life of a HueGroup and a HueScene: a zone created with a state, a
	// scene stored and shown on it, both deleted (the scene from the
	// bridge, the zone with its lights switched off).
	zone := &huev1alpha1.HueGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "front"},
		Spec: huev1alpha1.HueGroupSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: "home"}, Name: "Front",
			Type: huev1alpha1.GroupZone, Lights: []string{"hallway"}, Brightness: ptr.To[int32](150)},
	}
	g.Expect(k8s.Create(ctx, zone)).To(Succeed())
	eventuallyBulb(t, home, "hallway", true, 150)
	eventuallyReady(t, k8s, zone)
	scene := &huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "evening"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "front"},
			Lights: []huev1alpha1.SceneLight{{Name: "hallway", Brightness: ptr.To[int32](40)}}},
	}
	g.Expect(k8s.Create(ctx, scene)).To(Succeed())
	eventuallyReady(t, k8s, scene)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(zone), zone)).To(Succeed())
	zone.Spec.Brightness, zone.Spec.Scene = nil, "evening"
	g.Expect(k8s.Update(ctx, zone)).To(Succeed())
	eventuallyBulb(t, home, "hallway", true, 40)
	g.Expect(k8s.Delete(ctx, scene)).To(Succeed())
	eventuallyGone(t, k8s, scene)
	g.Expect(k8s.Delete(ctx, zone)).To(Succeed())
	eventuallyBulb(t, home, "hallway", false, 40)
	eventuallyGone(t, k8s, zone)
	g.Expect(home.Bridge.Groups()).To(BeEmpty(), "the zone Tether created is removed")
	g.Expect(home.Bridge.Scenes()).To(BeEmpty(), "the scene is removed")

	// Life of a DynamoDBTable in a team's account (its namespace's default
	// AWSAccount) with an outputs ConfigMap: create, an update (billing
	// mode and a stream, which changes the outputs), delete.
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a",
		Annotations: map[string]string{awsv1alpha1.AnnotationNamespaceAccount: "team-a"}}})).To(Succeed())
	g.Expect(k8s.Create(ctx, &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: "team-a"},
		Spec: awsv1alpha1.AWSAccountSpec{AssumeRole: awsv1alpha1.AssumeRole{RoleARN: roleARN},
			NamespaceSelector: awsv1alpha1.NamespaceSelector{Names: []string{"team-a"}}}})).To(Succeed())
	table := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "rbactest"},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "id", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "id", KeyType: "HASH"}},
			BillingMode:          "PAY_PER_REQUEST",
			WriteOutputsTo:       &awsv1alpha1.OutputsReference{Name: "rbactest-table"},
		},
	}
	g.Expect(k8s.Create(ctx, table)).To(Succeed())
	eventuallyReady(t, k8s, table)
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(table), table)).To(Succeed())
	g.Expect(table.Status.AccountID).To(Equal("111111111111"))
	table.Spec.BillingMode = "PROVISIONED"
	table.Spec.ProvisionedThroughput = &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5}
	table.Spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "KEYS_ONLY"}
	g.Expect(k8s.Update(ctx, table)).To(Succeed())
	eventuallyReady(t, k8s, table)
	g.Eventually(func(g Gomega) map[string]string {
		cm := &corev1.ConfigMap{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "rbactest-table"}, cm)).To(Succeed())
		return cm.Data
	}, timeout, poll).Should(HaveKey("TABLE_STREAM_ARN"), "the outputs were patched with the stream")
	g.Expect(k8s.Delete(ctx, table)).To(Succeed())
	eventuallyGone(t, k8s, table)

	// The bridges go too, then the manager stops (handing its lease back).
	for name := range bridges {
		b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}}
		g.Expect(k8s.Delete(ctx, b)).To(Succeed())
		eventuallyGone(t, k8s, b)
	}
	// A scrape of the metrics, as Prometheus bound to metrics-reader does:
	// the manager reviews the token and asks whether it may GET /metrics.
	scrapeMetrics(t, admin, k8s, metricsAddr)
	stopManager()

	// What the manager asked for, and what it was granted.
	requests := managerRequests(t, auditPath)
	g.Expect(requests).NotTo(BeEmpty(), "the audit log has no request by %s", managerUser)
	granted := grantedPermissions(t, k8s)
	t.Logf("granted: %v", sortedKeys(granted))

	// (a) Nothing was refused.
	for _, r := range requests {
		g.Expect(r.code).NotTo(Equal(403), "refused: %s", r)
	}
	// (b) Every granted permission was used, or is listed with its reason.
	used := map[permission]bool{}
	for _, r := range requests {
		used[r.permission] = true
	}
	t.Logf("used: %v", sortedKeys(used))
	var unused []string
	for p := range granted {
		if !used[p] && unexercised[p] == "" {
			unused = append(unused, p.String())
		}
	}
	sort.Strings(unused)
	g.Expect(unused).To(BeEmpty(), "granted but never used: remove them from the RBAC markers (or explain them in unexercised)")
	for p := range unexercised {
		g.Expect(granted).To(HaveKey(p), "unexercised lists %s, which is not granted any more", p)
	}
	// (c) Secrets: only the ones HueBridges name, only by name.
	referenced := []string{namespace + "/hue-home", namespace + "/hue-upstairs"}
	sawSecret := false
	for _, r := range requests {
		if r.permission.group != "" || r.permission.resource != "secrets" {
			continue
		}
		sawSecret = true
		g.Expect(r.permission.verb).To(BeElementOf("get", "create", "update"), "secrets by anything but name: %s", r)
		g.Expect(r.namespace+"/"+r.name).To(BeElementOf(referenced), "a Secret no HueBridge names: %s", r)
	}
	g.Expect(sawSecret).To(BeTrue(), "the manager never read a credentials Secret: is the audit log complete?")
	// (d) Secret access is granted in the manager's namespace only.
	g.Expect(secretGrants(t, k8s)).To(ConsistOf("Role " + namespace + "/tether-manager-role"))
	// (e) ConfigMaps: only the outputs ConfigMap, created then patched,
	// never read.
	sawConfigMap := false
	for _, r := range requests {
		if r.permission.group != "" || r.permission.resource != "configmaps" {
			continue
		}
		sawConfigMap = true
		g.Expect(r.permission.verb).To(BeElementOf("create", "patch"), "configmaps by anything but create and patch: %s", r)
		g.Expect(r.namespace+"/"+r.name).To(Equal("team-a/rbactest-table"), "a ConfigMap Tether did not create: %s", r)
	}
	g.Expect(sawConfigMap).To(BeTrue(), "the manager never wrote the outputs ConfigMap")
}

// secretGrants names every role bound to the manager that grants anything
// on Secrets.
func secretGrants(t *testing.T, c client.Client) []string {
	t.Helper()
	ctx := context.Background()
	grantsSecrets := func(rules []rbacv1.PolicyRule) bool {
		return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
			return slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "secrets")
		})
	}
	var out []string
	var crbs rbacv1.ClusterRoleBindingList
	if err := c.List(ctx, &crbs); err != nil {
		t.Fatal(err)
	}
	for _, b := range crbs.Items {
		if isManager(b.Subjects) && grantsSecrets(roleRules(t, c, "", b.RoleRef)) {
			out = append(out, "ClusterRole "+b.RoleRef.Name)
		}
	}
	var rbs rbacv1.RoleBindingList
	if err := c.List(ctx, &rbs); err != nil {
		t.Fatal(err)
	}
	for _, b := range rbs.Items {
		if isManager(b.Subjects) && grantsSecrets(roleRules(t, c, b.Namespace, b.RoleRef)) {
			out = append(out, b.RoleRef.Kind+" "+b.Namespace+"/"+b.RoleRef.Name)
		}
	}
	return out
}

// isManager is true when subjects name the manager's ServiceAccount.
func isManager(subjects []rbacv1.Subject) bool {
	return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && s.Namespace == namespace && s.Name == serviceAccountName
	})
}

// permission is one thing RBAC grants: a verb on a resource (with its
// subresource after a slash) of an API group.
type permission struct{ group, resource, verb string }

func (p permission) String() string {
	group := p.group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("%s %s.%s", p.verb, p.resource, group)
}

// request is one request the manager made, from the audit log.
type request struct {
	permission
	namespace, name, uri string
	code                 int
}

func (r request) String() string {
	return fmt.Sprintf("%s %s/%s (%d, %s)", r.permission, r.namespace, r.name, r.code, r.uri)
}

// auditEvent is the part of an audit.k8s.io/v1 Event this test reads.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// managerRequests reads the audit log for the completed resource requests of
// the manager's ServiceAccount (discovery and other non-resource URLs are
// open to every authenticated user and not part of its RBAC).
func managerRequests(t *testing.T, path string) []request {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading the audit log: %v", err)
	}
	defer f.Close()
	var out []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		if e.User.Username != managerUser || e.ObjectRef == nil {
			continue
		}
		// A watch is logged when it starts and when it ends; a refused
		// request only when it completes.
		if e.Stage != "ResponseComplete" && !(e.Stage == "ResponseStarted" && e.Verb == "watch") {
			continue
		}
		resource := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			resource += "/" + e.ObjectRef.Subresource
		}
		r := request{permission: permission{group: e.ObjectRef.APIGroup, resource: resource, verb: e.Verb},
			namespace: e.ObjectRef.Namespace, name: e.ObjectRef.Name, uri: e.RequestURI}
		if e.ResponseStatus != nil {
			r.code = e.ResponseStatus.Code
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// grantedPermissions expands every rule of every Role and ClusterRole bound
// to the manager's ServiceAccount.
func grantedPermissions(t *testing.T, c client.Client) map[permission]bool {
	t.Helper()
	ctx := context.Background()
	var rules []rbacv1.PolicyRule
	var crbs rbacv1.ClusterRoleBindingList
	if err := c.List(ctx, &crbs); err != nil {
		t.Fatal(err)
	}
	for _, b := range crbs.Items {
		if isManager(b.Subjects) {
			rules = append(rules, roleRules(t, c, "", b.RoleRef)...)
		}
	}
	var rbs rbacv1.RoleBindingList
	if err := c.List(ctx, &rbs); err != nil {
		t.Fatal(err)
	}
	for _, b := range rbs.Items {
		if isManager(b.Subjects) {
			rules = append(rules, roleRules(t, c, b.Namespace, b.RoleRef)...)
		}
	}
	if len(rules) == 0 {
		t.Fatalf("no role is bound to %s", managerUser)
	}
	out := map[permission]bool{}
	for _, r := range rules {
		if len(r.NonResourceURLs) > 0 || len(r.ResourceNames) > 0 {
			t.Fatalf("rule %v: this test does not expand non-resource URLs or resource names; extend it", r)
		}
		for _, group := range r.APIGroups {
			for _, resource := range r.Resources {
				for _, verb := range r.Verbs {
					if group == "*" || resource == "*" || verb == "*" {
						t.Fatalf("rule %v grants a wildcard: the manager needs named permissions only", r)
					}
					out[permission{group, resource, verb}] = true
				}
			}
		}
	}
	return out
}

func roleRules(t *testing.T, c client.Client, ns string, ref rbacv1.RoleRef) []rbacv1.PolicyRule {
	t.Helper()
	if ref.Kind == "ClusterRole" {
		var r rbacv1.ClusterRole
		if err := c.Get(context.Background(), client.ObjectKey{Name: ref.Name}, &r); err != nil {
			t.Fatalf("ClusterRole %s: %v", ref.Name, err)
		}
		return r.Rules
	}
	var r rbacv1.Role
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ref.Name}, &r); err != nil {
		t.Fatalf("Role %s/%s: %v", ns, ref.Name, err)
	}
	return r.Rules
}

func sortedKeys(m map[permission]bool) []string {
	var out []string
	for p := range m {
		out = append(out, p.String())
	}
	sort.Strings(out)
	return out
}

// managerConfig is what a pod of the manager gets: the API server's address,
// its CA and a token of the ServiceAccount. No client certificate.
func managerConfig(t *testing.T, admin *rest.Config) *rest.Config {
	t.Helper()
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), serviceAccountName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token for the manager's ServiceAccount: %v", err)
	}
	return &rest.Config{
		Host:            admin.Host,
		TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData},
		BearerToken:     tok.Status.Token,
	}
}

// startManager runs the manager with the options cmd/manager uses when
// deployed (secure metrics, leader election on, the lease handed back on
// stop). The returned
// function stops it and waits.
func startManager(t *testing.T, cfg *rest.Config, s *runtime.Scheme, metricsAddr string) func() {
	t.Helper()
	metrics := serving.DefaultMetrics()
	metrics.BindAddress = metricsAddr
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        s,
		Metrics:                       metrics.ServerOptions(),
		HealthProbeBindAddress:        "0",
		LeaderElection:                true,
		LeaderElectionID:              "manager.tether.dev",
		LeaderElectionNamespace:       namespace,
		LeaderElectionReleaseOnCancel: true,
		Controller:                    config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgs := controllers.DefaultConfig()
	cfgs.HueBridgePollInterval = time.Second
	if err := controllers.SetupAll(mgr, cfgs); err != nil {
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
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

func eventuallyReady(t *testing.T, c client.Client, obj reconciler.Managed) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		ready := findCondition(obj.Managed().Conditions, commonv1alpha1.Ready)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(ready.ObservedGeneration).To(Equal(obj.GetGeneration()))
	}, timeout, poll).Should(Succeed(), "%s/%s never became Ready", obj.GetNamespace(), obj.GetName())
}

func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

func eventuallyGone(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	NewWithT(t).Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	}, timeout, poll).Should(BeTrue(), "%s/%s was never let go", obj.GetNamespace(), obj.GetName())
}

func eventuallyBulb(t *testing.T, sim *huesim.Server, name string, on bool, bri int) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		l, ok := sim.Bridge.LightByName(name)
		g.Expect(ok).To(BeTrue())
		g.Expect(l.State.On).To(Equal(on))
		if on {
			g.Expect(l.State.Bri).To(Equal(bri))
		}
	}, timeout, poll).Should(Succeed(), "bulb %s never reached on=%v bri=%d", name, on, bri)
}

// scrapeMetrics reads the manager's metrics once with the token of a
// ServiceAccount bound to the install's metrics-reader ClusterRole.
func scrapeMetrics(t *testing.T, admin *rest.Config, c client.Client, addr string) {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "prometheus"}}
	if err := c.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-reads-tether-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "tether-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: sa.Namespace, Name: sa.Name}},
	}); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cs.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed; who may read is the point
	}}
	NewWithT(t).Eventually(func() int {
		req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+tok.Status.Token)
		resp, err := hc.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}, timeout, poll).Should(Equal(http.StatusOK), "the metrics-reader's scrape was not answered")
}
