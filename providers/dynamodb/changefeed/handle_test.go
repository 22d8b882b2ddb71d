package changefeed

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/sqstest"
)

// tablesReader answers List with its tables, or with err.
type tablesReader struct {
	client.Reader
	tables []awsv1alpha1.DynamoDBTable
	err    error
}

func (r tablesReader) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	if r.err != nil {
		return r.err
	}
	switch l := list.(type) {
	case *awsv1alpha1.DynamoDBTableList:
		l.Items = r.tables
	case *awsv1alpha1.AWSAccountList:
	}
	return nil
}

// queueWatch is a workqueue that, on Add, records how many messages the
// SQS queue still held.
type queueWatch struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	held []string
	read func() string
}

func (q *queueWatch) Add(req reconcile.Request) { q.held = append(q.held, q.read()) }

// A message is deleted only after the table it is about was queued (the
// queue still holds it when the table is added), and one whose tables
// cannot be looked up is left in the queue to come back. The queue is
// goaws, the event the model's.
func TestAMessageIsDeletedOnlyAfterItsTableWasQueued(t *testing.T) {
	queues := sqstest.SQS(t, sqstest.Options{})
	ctx := context.Background()
	c := queues.Client()
	url, _, err := queues.CreateQueue(ctx, "handled", map[string]string{"VisibilityTimeout": "1"})
	if err != nil {
		t.Fatal(err)
	}
	count := func() string {
		out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes["ApproximateNumberOfMessages"]
	}
	table := awsv1alpha1.DynamoDBTable{}
	table.Namespace, table.Name, table.UID = "team", "orders", "uid-1"
	table.Status.Account, table.Status.AccountID, table.Status.Region, table.Status.TableName = "team", "111122223333", "eu-west-1", "orders"
	event := sqstest.Call{Name: "UpdateTable", Account: "111122223333", Region: "eu-west-1", Table: "orders", At: time.Now()}.Event()

	for _, tc := range []struct {
		name    string
		err     error
		outcome string
		left    string
	}{
		{name: "routed", outcome: OutcomeWoken, left: "0"},
		{name: "cache unreadable", err: errors.New("cache not synced"), outcome: OutcomeRetried, left: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)}); err != nil {
				t.Fatal(err)
			}
			r := NewRegistry(Options{Reader: tablesReader{tables: []awsv1alpha1.DynamoDBTable{table}, err: tc.err},
				SessionName: func(*awsv1alpha1.AWSAccount) string { return "tether" }})
			q := &queueWatch{read: count}
			r.tables = q
			f := newFeed("team", "fp", nil, url, "eu-west-1", "", time.Hour, 0)
			f.cancel = func() {}
			r.feeds["team"] = f
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(event)}); err != nil {
				t.Fatal(err)
			}
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
			if err != nil || len(out.Messages) != 1 {
				t.Fatalf("received %v, %v", out, err)
			}
			before := testOutcome(f.identity, tc.outcome)
			r.handle(ctx, f, c, out.Messages)
			if got := testOutcome(f.identity, tc.outcome) - before; got != 1 {
				t.Errorf("outcome %s counted %v times", tc.outcome, got)
			}
			if tc.err == nil && (len(q.held) != 1 || q.held[0] != "1") {
				t.Errorf("when the table was queued the queue held %v messages, want the message still there", q.held)
			}
			if got := count(); got != tc.left {
				t.Errorf("%s messages left, want %s", got, tc.left)
			}
		})
	}
}

func testOutcome(identity, outcome string) float64 {
	return testutil.ToFloat64(eventsTotal.WithLabelValues(label(identity), outcome))
}
