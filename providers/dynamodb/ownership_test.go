package dynamodb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// interruptedCreate only words the NotOwned message; ownership itself never
// depends on it (TestCreateRaceLeavesTheTableNotOwned).
func TestInterruptedCreate(t *testing.T) {
	started := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := started.Add(d); return &v }
	tests := []struct {
		name       string
		annotation string
		created    *time.Time
		want       bool
	}{
		{name: "made right after the note", annotation: started.Format(time.RFC3339), created: at(2 * time.Second), want: true},
		{name: "AWS's clock a little behind", annotation: started.Format(time.RFC3339), created: at(-30 * time.Second), want: true},
		{name: "made long before the note: someone else's", annotation: started.Format(time.RFC3339), created: at(-time.Hour)},
		{name: "no note", created: at(time.Second)},
		{name: "garbage note", annotation: "yesterday", created: at(time.Second)},
		{name: "no creation time", annotation: started.Format(time.RFC3339)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{}}}
			if tt.annotation != "" {
				obj.Annotations[commonv1alpha1.AnnotationCreateStarted] = tt.annotation
			}
			if got := interruptedCreate(obj, &types.TableDescription{CreationDateTime: tt.created}); got != tt.want {
				t.Errorf("interruptedCreate = %v, want %v", got, tt.want)
			}
		})
	}
}

// The race of issue 17: Observe finds no table, someone else creates it,
// and Tether's CreateTable answers ResourceInUse. The table is not this
// object's: the next pass says NotOwned (terminal), deleting the object
// leaves the table, and only the adopt annotation lets Tether manage it.
// The create-started note is set as the generic reconciler sets it before
// each create: the foreign table is younger than it, which is exactly the
// case timing cannot tell apart. On dynalite (which has tagging) the
// ownership check reads the tags and finds no owner tag; on DynamoDB Local
// there are none to read.
func TestCreateRaceLeavesTheTableNotOwned(t *testing.T) {
	for name, url := range map[string]func(t *testing.T) string{
		"DynamoDBLocal": func(t *testing.T) string { return dynamoDBLocal(t).URL },
		"dynalite":      func(t *testing.T) string { return ddbtest.Dynalite(t, ddbtest.DynaliteOptions{}).URL },
	} {
		t.Run(name, func(t *testing.T) {
			endpoint := url(t)
			f := newFixture(t, endpoint, Options{})
			obj := newTable()
			obj.Annotations = map[string]string{commonv1alpha1.AnnotationCreateStarted: time.Now().UTC().Format(time.RFC3339)}
			foreign := plan.CreateTableInput(obj.Name, &obj.Spec, map[string]string{"made-by": "someone-else"})
			f.proxy.BeforeForwarding("CreateTable", obj.Name, func() {
				if _, err := f.raw.CreateTable(context.Background(), foreign); err != nil {
					t.Errorf("the other party's CreateTable: %v", err)
				}
			})

			obs, err := f.pass(obj)
			if p, ok := providers.AsPending(err); obs.Outcome != providers.OutcomeCreate || !ok || p.Reason != reasonTableExists {
				t.Fatalf("first pass: exists=%v err=%v, want a create that lost the race (%s)", obs.Outcome != providers.OutcomeCreate, err, reasonTableExists)
			}
			_, err = f.pass(obj)
			if !isTerminalReason(err, ReasonNotOwned) || !strings.Contains(err.Error(), "created by someone else") {
				t.Fatalf("second pass: %v, want terminal %s naming the lost race", err, ReasonNotOwned)
			}
			if obj.Status.TableID != "" {
				t.Errorf("the foreign table's id was recorded: %q", obj.Status.TableID)
			}
			if n := f.proxy.Calls()["CreateTable"]; n != 1 {
				t.Errorf("CreateTable calls = %d, want 1", n)
			}

			// A restarted operator (no memory) does not take it either.
			restarted := newFixture(t, endpoint, Options{})
			if _, err := restarted.pass(obj); !isTerminalReason(err, ReasonNotOwned) {
				t.Fatalf("after a restart: %v, want %s", err, ReasonNotOwned)
			}
			f.deleteFully(obj)
			if !f.exists(obj.Name) {
				t.Fatal("deleting the object deleted a table someone else created")
			}

			obj.Annotations[awsv1alpha1.AnnotationAdopt] = "true"
			f.converge(obj)
			if obj.Status.TableID != TableIdentity(f.describe(obj.Name)) {
				t.Errorf("adopted table's id not recorded")
			}
		})
	}
}

// The identity recorded from Tether's own CreateTable answer proves
// ownership even when the status write after the create is lost, and only
// for that very table: one deleted and re-created by someone else under the
// same name is not taken for it.
func TestOwnCreateAnswerProvesOwnershipOfThatTableOnly(t *testing.T) {
	f := localFixture(t)
	obj := newTable()
	if _, err := f.pass(obj); err != nil { // Observe: absent; Create
		t.Fatal(err)
	}
	obj.Status.TableID = "" // the status write after the create was lost
	f.converge(obj)
	if obj.Status.TableID == "" {
		t.Fatal("the table Tether created was not recognised from its CreateTable answer")
	}

	ctx := context.Background()
	if _, err := f.raw.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(obj.Name)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.raw.CreateTable(ctx, plan.CreateTableInput(obj.Name, &obj.Spec, nil)); err != nil {
		t.Fatal(err)
	}
	obj.Status.TableID = "" // and again no status on record
	if _, err := f.pass(obj); !isTerminalReason(err, ReasonNotOwned) {
		t.Fatalf("a same-named table made by someone else: %v, want %s", err, ReasonNotOwned)
	}
}
