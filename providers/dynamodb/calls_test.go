package dynamodb

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// What a pass is expected to make prices its turn: a create is two calls
// (DescribeTable, CreateTable), a look at a table on record one; a delete
// two (DescribeTable, DeleteTable), then one while the table goes.
func TestExpectedCallsOfAPass(t *testing.T) {
	deleting := []metav1.Condition{{Type: commonv1alpha1.Synced, Status: metav1.ConditionFalse, Reason: reasonDeleting}}
	for _, tc := range []struct {
		name                    string
		status                  awsv1alpha1.DynamoDBTableStatus
		wantObserve, wantDelete int
	}{
		{name: "no table on record", wantObserve: 2, wantDelete: 2},
		{name: "a table on record", status: awsv1alpha1.DynamoDBTableStatus{TableID: "id"}, wantObserve: 1, wantDelete: 2},
		{name: "a table being deleted", status: awsv1alpha1.DynamoDBTableStatus{TableID: "id",
			ManagedStatus: commonv1alpha1.ManagedStatus{Conditions: deleting}}, wantObserve: 1, wantDelete: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &awsv1alpha1.DynamoDBTable{Status: tc.status}
			if got := observeCalls(obj); got != tc.wantObserve {
				t.Errorf("observeCalls = %d, want %d", got, tc.wantObserve)
			}
			if got := deleteCalls(obj); got != tc.wantDelete {
				t.Errorf("deleteCalls = %d, want %d", got, tc.wantDelete)
			}
		})
	}
}
