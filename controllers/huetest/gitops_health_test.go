package huetest

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
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/gitopshealth"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/hue"
)

// What GitOps tools make of every kind (internal/gitopshealth), computed
// over objects as the real reconciler and providers wrote them to the API
// server. The generic reconciler's outcomes are checked in package
// reconciler (TestGitOpsHealthOfEveryOutcome).

// TestGitOpsHealthOfEveryKind checks kstatus and Argo CD over objects of
// every kind in the states a platform team meets, as the real providers
// (a simulated Hue bridge, DynamoDB Local) and the real reconciler put
// them.
func TestGitOpsHealthOfEveryKind(t *testing.T) {
	ctx := context.Background()
	s := ctrltest.StartDynamoDB(t)
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
	s.EnsureNamespace(t, "team-health")
	foreignTable := ctrltest.TableName("health-foreign")
	_, err := s.Raw.CreateTable(ctx, &awsdynamodb.CreateTableInput{TableName: aws.String(foreignTable),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	shared := ctrltest.TableName("health-shared")
	table := ctrltest.NewTable("default", ctrltest.TableName("health-own"))
	notOwned := ctrltest.NewTable("default", foreignTable)
	winner := ctrltest.NewTable("default", "health-winner", func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = shared })
	loser := ctrltest.NewTable("team-health", "health-loser", func(o *awsv1alpha1.DynamoDBTable) { o.Spec.TableName = shared })
	noAccount := ctrltest.NewTable("default", ctrltest.TableName("health-no-account"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AccountRef = &awsv1alpha1.AccountReference{Name: "no-such-account"}
	})
	pausedTable := ctrltest.NewTable("default", ctrltest.TableName("health-paused"), func(o *awsv1alpha1.DynamoDBTable) { o.Annotations = paused })
	unwatched := ctrltest.NewTable("default", ctrltest.TableName("health-unwatched"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Labels = map[string]string{ctrltest.LabelOwnManager: "none"}
	})
	for _, obj := range []*awsv1alpha1.DynamoDBTable{table, notOwned, winner, noAccount, pausedTable, unwatched} {
		s.Create(t, obj)
	}
	s.EventuallyReady(t, winner)
	s.Create(t, loser)

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
				g.Expect(ctrltest.HealthOf(g, obj)).To(Equal(c.health))
				ctrltest.ExpectHealth(g, obj)
			}, hueTimeout, huePoll).Should(Succeed())
		})
	}

	// An AWSAccount is Ready once its role is assumed (and its feed, when it
	// has one, received): Current and Healthy; one whose role STS refuses is
	// Ready=False AccessDenied, InProgress and Progressing (Tether retries:
	// a person fixes the trust policy).
	account := s.CreateAccount(t, ctrltest.TableName("health-account"), ctrltest.RoleA, func(*awsv1alpha1.AWSAccount) {})
	refused := s.CreateAccount(t, ctrltest.TableName("health-account-refused"), "arn:aws:iam::333333333333:role/nobody-trusts-tether",
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
				g.Expect(ctrltest.HealthOf(g, &a)).To(Equal(c.health))
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
