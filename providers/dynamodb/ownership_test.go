package dynamodb

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

func TestCreatedSinceTetherStarted(t *testing.T) {
	started := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := started.Add(d); return &v }
	tests := []struct {
		name       string
		annotation string
		tableID    string
		created    *time.Time
		want       bool
	}{
		{name: "made right after the note", annotation: started.Format(time.RFC3339), created: at(2 * time.Second), want: true},
		{name: "AWS's clock a little behind", annotation: started.Format(time.RFC3339), created: at(-30 * time.Second), want: true},
		{name: "made long before the note: someone else's", annotation: started.Format(time.RFC3339), created: at(-time.Hour)},
		{name: "no note", created: at(time.Second)},
		{name: "garbage note", annotation: "yesterday", created: at(time.Second)},
		{name: "the status already names another table", annotation: started.Format(time.RFC3339), tableID: "other", created: at(time.Second)},
		{name: "no creation time", annotation: started.Format(time.RFC3339)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{}}}
			if tt.annotation != "" {
				obj.Annotations[commonv1alpha1.AnnotationCreateStarted] = tt.annotation
			}
			obj.Status.TableID = tt.tableID
			if got := createdSinceTetherStarted(obj, &types.TableDescription{CreationDateTime: tt.created}); got != tt.want {
				t.Errorf("createdSinceTetherStarted = %v, want %v", got, tt.want)
			}
		})
	}
}
