package dynamodb

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

func TestConflictGoesToTheObjectThatHasTheTableThenTheOlder(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := awsv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	at := func(sec int) metav1.Time { return metav1.NewTime(time.Unix(int64(1_800_000_000+sec), 0)) }
	named := func(ns string, created metav1.Time, tableID string) *awsv1alpha1.DynamoDBTable {
		return newTable(func(o *awsv1alpha1.DynamoDBTable) {
			o.Namespace, o.Name, o.CreationTimestamp = ns, "orders", created
			o.Spec.TableName = "orders"
			o.Status.TableID = tableID
		})
	}
	older, newer := named("a", at(0), ""), named("b", at(10), "")
	holder := named("c", at(20), "id-1")
	otherRegion := named("d", at(-10), "")
	otherRegion.Spec.Region = "eu-west-1"

	cases := []struct {
		name     string
		objects  []*awsv1alpha1.DynamoDBTable
		subject  *awsv1alpha1.DynamoDBTable
		conflict bool
	}{
		{"the older one proceeds", []*awsv1alpha1.DynamoDBTable{older, newer}, older, false},
		{"the newer one waits", []*awsv1alpha1.DynamoDBTable{older, newer}, newer, true},
		{"the one that has the table wins over older ones", []*awsv1alpha1.DynamoDBTable{older, holder}, older, true},
		{"another region is another table", []*awsv1alpha1.DynamoDBTable{otherRegion, newer}, newer, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := fake.NewClientBuilder().WithScheme(scheme)
			for _, o := range c.objects {
				b = b.WithObjects(o.DeepCopy())
			}
			p := New(Options{Reader: b.Build(), Clients: ClientOptions{DefaultRegion: "us-east-1"}})
			err := p.checkConflict(context.Background(), &endpoint{Region: "us-east-1"}, c.subject)
			ra, isConflict := providers.AsRetryAfter(err)
			if isConflict != c.conflict || (isConflict && ra.Reason != ReasonConflict) {
				t.Errorf("err = %v, want conflict %v", err, c.conflict)
			}
		})
	}
}
