package controllers

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/argohealth"
	"github.com/tether-dev/tether/internal/gitopshealth"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
	"github.com/tether-dev/tether/providers/hue"
)

// What GitOps tools make of every kind (internal/gitopshealth), computed
// over objects as the real reconciler and providers wrote them to the API
// server. The generic reconciler's outcomes are checked in package
// reconciler (TestGitOpsHealthOfEveryOutcome).

// stoppedReasons are the reasons with which Tether stops trying until the
// spec, an annotation or the external side changes: what the providers
// report as terminal errors, and the stall breaker's. An object with one of
// them is Failed for kstatus and Degraded for Argo CD; with any other it is
// InProgress / Progressing until Ready.
var stoppedReasons = map[string]bool{
	providers.ReasonStalled:                  true,
	access.ReasonInvalidSpec:                 true,
	dynamodb.ReasonNotOwned:                  true,
	dynamodb.ReasonImmutableMismatch:         true,
	dynamodb.ReasonIndexReplacement:          true,
	dynamodb.ReasonRestoreFailed:             true,
	dynamodb.ReasonImportLeftNoTable:         true,
	dynamodb.ReasonUnsupportedByEndpoint:     true,
	dynamodb.ReasonVectorIndexRefused:        true,
	plan.ReasonVectorIndexMismatch:           true,
	plan.ReasonStrongRefused:                 true,
	hue.ReasonInvalidValue:                   true,
	hue.ReasonCredentialsNamespaceNotAllowed: true,
}

// expectHealth checks that kstatus and Argo CD read obj as docs/gitops.md
// promises. The integration tests' helpers call it on every object they
// wait for, so every condition reason those tests reach is checked.
func expectHealth(g Gomega, obj gitopshealth.Object) {
	got := healthOf(g, obj)
	if !obj.GetDeletionTimestamp().IsZero() {
		// Argo CD shows a deletion itself, whatever the script says.
		got.Argo = argohealth.Progressing
	}
	g.Expect(got).To(Equal(gitopshealth.Want(obj, func(r string) bool { return stoppedReasons[r] })), "kstatus and Argo CD of %s %s/%s with %v",
		obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), obj.Managed().Conditions)
}

// healthOf computes obj's health as kstatus and Argo CD would.
func healthOf(g Gomega, obj client.Object) gitopshealth.Health {
	h, err := gitopshealth.Of(obj, env.Scheme)
	g.Expect(err).NotTo(HaveOccurred())
	return h
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

	current, inProgress, failed, suspended := gitopshealth.Current, gitopshealth.InProgress, gitopshealth.Failed, gitopshealth.Suspended
	cases := []struct {
		obj    gitopshealth.Object
		ready  string
		health gitopshealth.Health
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
				obj := c.obj.DeepCopyObject().(gitopshealth.Object)
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
		health  gitopshealth.Health
	}{
		{account, "True/Available", gitopshealth.Current},
		{refused, "False/" + access.ReasonAccessDenied, gitopshealth.InProgress},
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
