package dynamodb

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// TestDeleteIsDescribedAsItHappened: the Deleted event says whether the
// table went or stayed.
func TestDeleteIsDescribedAsItHappened(t *testing.T) {
	table := func(policy, readyReason string) *awsv1alpha1.DynamoDBTable {
		o := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Name: "orders"}}
		o.Spec.DeletionPolicy = policy
		if readyReason != "" {
			o.Status.Conditions = []metav1.Condition{{Type: commonv1alpha1.Ready, Status: metav1.ConditionFalse, Reason: readyReason}}
		}
		return o
	}
	p := &Provider{}
	for _, c := range []struct {
		obj  *awsv1alpha1.DynamoDBTable
		want string
	}{
		{table(awsv1alpha1.DeletionPolicyDelete, ""), "deleted table orders"},
		{table(awsv1alpha1.DeletionPolicyRetain, ""), "let go of table orders; it stays in DynamoDB (deletionPolicy: Retain)"},
		{table(awsv1alpha1.DeletionPolicyDelete, providers.ReasonConflict), "let go of table orders; another DynamoDBTable manages it"},
	} {
		if got := p.DescribeDelete(c.obj); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
