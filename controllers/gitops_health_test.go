package controllers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/argohealth"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// What GitOps tools make of Tether's objects: kstatus (Flux, kubectl-based
// tooling) and the Argo CD health check the chart ships
// (charts/tether/files/argocd/health.lua), each computed over objects as
// the real reconciler wrote them to the API server.

// stoppedReasons are the reasons with which Tether stops trying until the
// spec, an annotation or the external side changes: what the providers
// report as terminal errors, and the stall breaker's. An object with one of
// them is Failed for kstatus and Degraded for Argo CD; with any other it is
// InProgress / Progressing until Ready.
var stoppedReasons = map[string]bool{
	providers.ReasonStalled:                  true,
	dynamodb.ReasonInvalidSpec:               true,
	dynamodb.ReasonNotOwned:                  true,
	dynamodb.ReasonImmutableMismatch:         true,
	dynamodb.ReasonIndexReplacement:          true,
	dynamodb.ReasonRestoreFailed:             true,
	wire.ReasonInvalidValue:                  true,
	hue.ReasonCredentialsNamespaceNotAllowed: true,
}

// gitOpsHealth is what kstatus and Argo CD's health check say of obj.
type gitOpsHealth struct {
	Kstatus status.Status
	Argo    string
}

var (
	healthScriptOnce sync.Once
	healthScript     string
	healthScriptErr  error
)

// argoHealthScript is the chart's Argo CD health check.
func argoHealthScript(g Gomega) string {
	healthScriptOnce.Do(func() {
		root, err := testenv.RepoRoot()
		if err != nil {
			healthScriptErr = err
			return
		}
		raw, err := os.ReadFile(filepath.Join(root, "charts", "tether", "files", "argocd", "health.lua"))
		healthScript, healthScriptErr = string(raw), err
	})
	g.Expect(healthScriptErr).NotTo(HaveOccurred())
	return healthScript
}

// healthOf computes obj's health as kstatus and Argo CD would.
func healthOf(g Gomega, obj client.Object) gitOpsHealth {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	g.Expect(err).NotTo(HaveOccurred())
	u := &unstructured.Unstructured{Object: content}
	gvk, err := apiutil.GVKForObject(obj, env.Scheme)
	g.Expect(err).NotTo(HaveOccurred())
	u.SetGroupVersionKind(gvk)
	res, err := status.Compute(u)
	g.Expect(err).NotTo(HaveOccurred())
	argo, _, err := argohealth.Evaluate(argoHealthScript(g), u.Object)
	g.Expect(err).NotTo(HaveOccurred())
	return gitOpsHealth{Kstatus: res.Status, Argo: argo}
}

// wantHealth is what docs/gitops.md promises for obj, from its conditions:
// Suspended (Argo CD) while paused; InProgress until Tether has acted on
// the object's generation; Failed for a stopped reason; Current when Ready.
func wantHealth(obj Managed) gitOpsHealth {
	if !obj.GetDeletionTimestamp().IsZero() {
		return gitOpsHealth{Kstatus: status.TerminatingStatus, Argo: argohealth.Progressing}
	}
	var want gitOpsHealth
	ready := meta.FindStatusCondition(obj.Managed().Conditions, commonv1alpha1.Ready)
	switch {
	case obj.Managed().ObservedGeneration != obj.GetGeneration():
		want = gitOpsHealth{Kstatus: status.InProgressStatus, Argo: argohealth.Progressing}
	case ready != nil && stoppedReasons[ready.Reason]:
		want = gitOpsHealth{Kstatus: status.FailedStatus, Argo: argohealth.Degraded}
	case ready != nil && ready.Status == metav1.ConditionTrue:
		want = gitOpsHealth{Kstatus: status.CurrentStatus, Argo: argohealth.Healthy}
	default:
		want = gitOpsHealth{Kstatus: status.InProgressStatus, Argo: argohealth.Progressing}
	}
	if isPaused(obj) {
		want.Argo = argohealth.Suspended
	}
	return want
}

// expectHealth checks that kstatus and Argo CD read obj as docs/gitops.md
// promises. The integration tests' helpers call it on every object they
// wait for, so every condition reason those tests reach is checked.
func expectHealth(g Gomega, obj Managed) {
	got := healthOf(g, obj)
	if !obj.GetDeletionTimestamp().IsZero() {
		// Argo CD shows a deletion itself, whatever the script says.
		got.Argo = argohealth.Progressing
	}
	g.Expect(got).To(Equal(wantHealth(obj)), "kstatus and Argo CD of %s %s/%s with %v",
		obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), obj.Managed().Conditions)
}

// TestGitOpsHealthOfEveryOutcome walks the generic reconciler through every
// outcome a pass can have and checks what kstatus and Argo CD make of the
// object it writes.
func TestGitOpsHealthOfEveryOutcome(t *testing.T) {
	g := NewWithT(t)
	type row struct {
		name   string
		setup  func(name string)
		after  func(t *testing.T, name string) // once the object exists
		ready  string                          // Ready's "Status/Reason" to wait for
		health gitOpsHealth
	}
	current := gitOpsHealth{status.CurrentStatus, argohealth.Healthy}
	inProgress := gitOpsHealth{status.InProgressStatus, argohealth.Progressing}
	failed := gitOpsHealth{status.FailedStatus, argohealth.Degraded}
	rows := []row{
		{name: "ready", ready: "True/Available", health: current},
		{name: "ready-with-a-note", setup: func(n string) { widgets.mode(n, false, "", [2]string{"Limited", "the bulb shows less"}) },
			ready: "True/Limited", health: current},
		{name: "waiting", setup: func(n string) { widgets.mode(n, false, "Conflict", [2]string{}) },
			ready: "False/Conflict", health: inProgress},
		{name: "pending", setup: func(n string) { widgets.fail(n, "Observe", providers.Waitf(time.Hour, "TableBusy", "busy")) },
			ready: "False/TableBusy", health: inProgress},
		{name: "retrying-a-fault", setup: func(n string) {
			widgets.fail(n, "Observe", providers.RetryAfter(time.Hour, "BridgeUnreachable", errors.New("no answer")))
		}, ready: "False/BridgeUnreachable", health: inProgress},
		{name: "plain-error", setup: func(n string) { widgets.fail(n, "Create", errors.New("something broke")) },
			ready: "False/CreateFailed", health: inProgress},
		{name: "terminal", setup: func(n string) { widgets.fail(n, "Create", providers.Terminalf("InvalidSpec", "size 7 is not allowed")) },
			ready: "False/InvalidSpec", health: failed},
		{name: "stall-breaker", after: func(t *testing.T, n string) {
			waitReady(t, n)
			widgets.mode(n, true, "", [2]string{})
			update(t, n, func(w *testv1alpha1.Widget) { w.Spec.Size = 9 })
		}, ready: "False/" + providers.ReasonStalled, health: failed},
		{name: "paused-before-the-first-pass", setup: func(string) {}, ready: "", health: gitOpsHealth{status.InProgressStatus, argohealth.Suspended}},
		{name: "paused-after-an-edit", after: func(t *testing.T, n string) {
			waitReady(t, n)
			update(t, n, func(w *testv1alpha1.Widget) {
				w.Annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
				w.Spec.Size = 8
			})
		}, ready: "True/Available", health: gitOpsHealth{status.InProgressStatus, argohealth.Suspended}},
	}
	for _, r := range rows {
		name := "health-" + r.name
		if r.setup != nil {
			r.setup(name)
		}
		var annotations map[string]string
		if r.name == "paused-before-the-first-pass" {
			annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
		}
		create(t, newWidget(name, 7, annotations))
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			name := "health-" + r.name
			if r.after != nil {
				r.after(t, name)
			}
			NewWithT(t).Eventually(func(g Gomega) {
				w := fetch(g, name)
				g.Expect(readyReason(w.Status.Conditions, commonv1alpha1.Ready)).To(Equal(r.ready))
				g.Expect(healthOf(g, w)).To(Equal(r.health))
				expectHealth(g, w)
			}, timeout, poll).Should(Succeed())
		})
	}

	// Stalled is there only while Tether has stopped: a spec that works
	// again clears it.
	widgets.fail("health-terminal", "Create", nil)
	update(t, "health-terminal", func(w *testv1alpha1.Widget) { w.Spec.Size = 6 })
	w := waitReady(t, "health-terminal")
	g.Expect(meta.FindStatusCondition(w.Status.Conditions, commonv1alpha1.Stalled)).To(BeNil())
	g.Expect(healthOf(g, w)).To(Equal(current))

	// A deletion the backend refuses is Terminating for kstatus.
	widgets.fail("health-ready", "Delete", errors.New("backend says no"))
	g.Expect(env.Client.Delete(context.Background(), fetch(g, "health-ready"))).To(Succeed())
	g.Eventually(func(g Gomega) status.Status {
		w := fetch(g, "health-ready")
		g.Expect(readyReason(w.Status.Conditions, commonv1alpha1.Ready)).To(Equal("False/DeleteFailed"))
		return healthOf(g, w).Kstatus
	}, timeout, poll).Should(Equal(status.TerminatingStatus))
	widgets.fail("health-ready", "Delete", nil)
}

// TestGitOpsHealthOfEveryKind checks kstatus and Argo CD over objects of
// every kind in the states a platform team meets, as the real providers
// (a simulated Hue bridge, DynamoDB Local) and the real reconciler put
// them.
func TestGitOpsHealthOfEveryKind(t *testing.T) {
	ctx := context.Background()
	s := startDynamoDB(t)
	h := newHueEnvWith(t, "health", true, huesim.Options{Lights: []string{"lamp", "desk", "strip", "shelf"}, Models: map[string]string{"strip": "GL-C-006P"}})
	unpaired := newHueEnv(t, "health-unpaired", false, "lamp")
	foreign := newHueEnvWithBridge(t, "health-foreign", true, huesim.Options{Lights: []string{"lamp"}},
		func(spec *huev1alpha1.HueBridgeSpec) { spec.CredentialsSecretRef.Namespace = "entrance" })
	paused := map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}

	lamp := h.newLight("entrance", "health-lamp", "lamp")
	missing := h.newLight("entrance", "health-missing", "attic")
	first := h.newLight("entrance", "health-desk", "desk")
	second := h.newLight("entrance", "health-desk-again", "desk")
	stalled := h.newLight("entrance", "health-strip", "strip")
	ct(500)(&stalled.Spec)
	pausedLight := h.newLight("entrance", "health-paused", "lamp")
	pausedLight.Annotations = paused
	room := h.newGroup("entrance", "health-room", "Health room")
	room.Spec.Type, room.Spec.Lights = huev1alpha1.GroupRoom, []string{"shelf"}
	strayGroup := h.newGroup("entrance", "health-stray-room", "Stray room")
	strayGroup.Spec.Type, strayGroup.Spec.Lights = huev1alpha1.GroupRoom, []string{"cellar"}
	scene := &huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "health-scene"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "health-room"}, Name: "Health",
			Lights: []huev1alpha1.SceneLight{{Name: "shelf", Brightness: ptr.To[int32](100)}}},
	}
	orphanScene := &huev1alpha1.HueScene{
		ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "health-orphan-scene"},
		Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "no-such-group"}, Name: "Orphan",
			Lights: []huev1alpha1.SceneLight{{Name: "shelf", On: ptr.To(false)}}},
	}
	for _, obj := range []client.Object{lamp, missing, first, stalled, pausedLight, room, strayGroup, scene, orphanScene} {
		h.create(obj)
	}
	h.eventuallyLightReady("entrance", "health-desk", "True/Available")
	h.create(second)

	// Tables: one of its own, one someone else made, two objects on one
	// table, one in an account that does not exist, one paused, and one
	// no manager watches (its first pass never comes).
	s.ensureNamespace(t, "team-health")
	foreignTable := ddbName("health-foreign")
	_, err := s.raw.CreateTable(ctx, &awsdynamodb.CreateTableInput{TableName: aws.String(foreignTable),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	shared := ddbName("health-shared")
	table := newDDBTable("default", ddbName("health-own"))
	notOwned := newDDBTable("default", foreignTable)
	winner := newDDBTable("default", "health-winner", func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = shared })
	loser := newDDBTable("team-health", "health-loser", func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = shared })
	noAccount := newDDBTable("default", ddbName("health-no-account"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "no-such-account"}
	})
	pausedTable := newDDBTable("default", ddbName("health-paused"), func(o *awsv1alpha1.DynamoDBTable) { o.Annotations = paused })
	unwatched := newDDBTable("default", ddbName("health-unwatched"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Labels = map[string]string{labelOwnManager: "none"}
	})
	for _, obj := range []*awsv1alpha1.DynamoDBTable{table, notOwned, winner, noAccount, pausedTable, unwatched} {
		s.create(t, obj)
	}
	s.eventuallyReady(t, winner)
	s.create(t, loser)

	current := gitOpsHealth{status.CurrentStatus, argohealth.Healthy}
	inProgress := gitOpsHealth{status.InProgressStatus, argohealth.Progressing}
	failed := gitOpsHealth{status.FailedStatus, argohealth.Degraded}
	suspended := gitOpsHealth{status.InProgressStatus, argohealth.Suspended}
	cases := []struct {
		obj    Managed
		ready  string
		health gitOpsHealth
	}{
		{&huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: h.bridge}}, "True/Available", current},
		{&huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: unpaired.bridge}}, "False/" + hue.ReasonLinkButton, inProgress},
		{&huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: foreign.bridge}}, "False/" + hue.ReasonCredentialsNamespaceNotAllowed, failed},
		{lamp, "True/Available", current},
		{missing, "False/" + hue.ReasonLightNotFound, inProgress},
		{second, "False/" + providers.ReasonConflict, inProgress},
		{stalled, "False/" + providers.ReasonStalled, failed},
		{pausedLight, "", suspended},
		{room, "True/Available", current},
		{strayGroup, "False/" + hue.ReasonLightNotFound, inProgress},
		{scene, "True/Available", current},
		{orphanScene, "False/" + hue.ReasonGroupNotFound, inProgress},
		{table, "True/Available", current},
		{notOwned, "False/" + dynamodb.ReasonNotOwned, failed},
		{loser, "False/" + providers.ReasonConflict, inProgress},
		{noAccount, "False/" + dynamodb.ReasonAccountNotFound, inProgress},
		{pausedTable, "", suspended},
		{unwatched, "", inProgress},
	}
	for _, c := range cases {
		kind := reflectKind(c.obj)
		t.Run(kind+"/"+c.obj.GetName(), func(t *testing.T) {
			NewWithT(t).Eventually(func(g Gomega) {
				obj := c.obj.DeepCopyObject().(Managed)
				g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c.obj), obj)).To(Succeed())
				g.Expect(readyReason(obj.Managed().Conditions, commonv1alpha1.Ready)).To(Equal(c.ready))
				g.Expect(healthOf(g, obj)).To(Equal(c.health))
				expectHealth(g, obj)
			}, hueTimeout, huePoll).Should(Succeed())
		})
	}

	// An AWSAccount is Ready once its role is assumed (and its feed, when it
	// has one, received): Current and Healthy; one whose role STS refuses is
	// Ready=False AccessDenied, InProgress and Progressing (Tether retries:
	// a person fixes the trust policy).
	account := s.createAccount(t, ddbName("health-account"), suiteRoleA, func(*awsv1alpha1.AWSAccount) {})
	refused := s.createAccount(t, ddbName("health-account-refused"), "arn:aws:iam::333333333333:role/nobody-trusts-tether",
		func(*awsv1alpha1.AWSAccount) {})
	for _, c := range []struct {
		account *awsv1alpha1.AWSAccount
		ready   string
		health  gitOpsHealth
	}{
		{account, "True/Available", current},
		{refused, "False/" + dynamodb.ReasonAccessDenied, inProgress},
	} {
		t.Run("AWSAccount/"+c.account.Name, func(t *testing.T) {
			NewWithT(t).Eventually(func(g Gomega) {
				var a awsv1alpha1.AWSAccount
				g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c.account), &a)).To(Succeed())
				g.Expect(a.Status.ObservedGeneration).To(Equal(a.Generation), "the AWSAccount controller has not reported yet")
				g.Expect(readyReason(a.Status.Conditions, commonv1alpha1.Ready)).To(Equal(c.ready))
				g.Expect(healthOf(g, &a)).To(Equal(c.health))
			}, hueTimeout, huePoll).Should(Succeed())
		})
	}
}

// reflectKind names obj's kind from the scheme.
func reflectKind(obj client.Object) string {
	gvk, err := apiutil.GVKForObject(obj, env.Scheme)
	if err != nil {
		return "unknown"
	}
	return gvk.Kind
}
