package reconciler

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// TestDynamoDBStallIsTheGenericBreakers: a DynamoDB step the endpoint
// accepts and never shows (dynalite answers 200 to an index create and
// does nothing) is stopped by the generic stall breaker, as a Hue write is:
// sent StallAfter times, then Synced=False and Stalled=True with reason
// Stalled, and the table is still observed (not a terminal error, which
// would stop every call until the spec changes). It drives the reconciler's
// pass directly, against dynalite, without an API server.
func TestDynamoDBStallIsTheGenericBreakers(t *testing.T) {
	server := ddbtest.Dynalite(t, ddbtest.DynaliteOptions{})
	proxy := ddbtest.FaultProxy(t, server.URL, 1)
	ddbtest.UseEndpoint(t, proxy.URL())
	r := New[*awsv1alpha1.DynamoDBTable](nil, nil, "DynamoDBTable",
		func() *awsv1alpha1.DynamoDBTable { return &awsv1alpha1.DynamoDBTable{} },
		// No settle window: each pass's read decides, as it does a minute
		// after a call AWS accepted (before that, a step no read shows is
		// in flight, not sent again).
		dynamodb.New(dynamodb.Options{SecondaryReadInterval: -1, SettleWindow: -1}),
		Options{PollInterval: time.Minute})
	obj := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("stall-%d", time.Now().UnixNano()), Namespace: "default", UID: types.UID(fmt.Sprint("uid-", time.Now().UnixNano())), Generation: 1},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
			// dynalite wants index throughput even on demand; PROVISIONED has it.
			BillingMode:           awsv1alpha1.BillingModeProvisioned,
			ProvisionedThroughput: &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1},
			DeletionPolicy:        awsv1alpha1.DeletionPolicyDelete,
		},
	}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
	pass := func() {
		t.Helper()
		if _, err := r.sync(context.Background(), req, obj); err != nil {
			t.Fatalf("pass: %v", err)
		}
	}
	condition := func(conditionType string) *metav1.Condition {
		return meta.FindStatusCondition(obj.Status.Conditions, conditionType)
	}
	g := NewWithT(t)
	g.Eventually(func() bool {
		pass()
		return meta.IsStatusConditionTrue(obj.Status.Conditions, commonv1alpha1.Ready)
	}, 30*time.Second, 50*time.Millisecond).Should(BeTrue(), "the table becomes Ready")

	obj.Spec.AttributeDefinitions = append(obj.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: "a", AttributeType: "S"})
	obj.Spec.GlobalSecondaryIndexes = []awsv1alpha1.GlobalSecondaryIndex{{IndexName: "g1x",
		KeySchema:             awsv1alpha1.IndexKeySchema{{AttributeName: "a", KeyType: "HASH"}},
		Projection:            awsv1alpha1.Projection{ProjectionType: "ALL"},
		ProvisionedThroughput: &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1}}}
	obj.Generation++
	proxy.ResetCounts()
	for range 6 {
		pass()
	}
	if got := proxy.Calls()["UpdateTable"]; got != providers.DefaultStallAfter {
		t.Errorf("UpdateTable sent %d times, want %d before the breaker stops it", got, providers.DefaultStallAfter)
	}
	synced, stalled := condition(commonv1alpha1.Synced), condition(commonv1alpha1.Stalled)
	if synced == nil || synced.Status != metav1.ConditionFalse || synced.Reason != providers.ReasonStalled ||
		stalled == nil || stalled.Status != metav1.ConditionTrue {
		t.Fatalf("conditions %+v: want Synced=False and Stalled=True with reason %s", obj.Status.Conditions, providers.ReasonStalled)
	}
	if _, blocked := r.terminal.failed[req]; blocked {
		t.Error("the stall closed the terminal gate: the table would no longer be observed")
	}
	describes := proxy.Calls()["DescribeTable"]
	pass()
	if proxy.Calls()["DescribeTable"] <= describes || proxy.Calls()["UpdateTable"] != providers.DefaultStallAfter {
		t.Errorf("after the stall: %v; want the table still observed and the step not sent again", proxy.Calls())
	}
}
