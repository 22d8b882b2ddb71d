package feedtest

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/sqstest"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
)

// echoWindow is the test's spec.changeEvents.echoWindow: the smallest the
// API accepts, the registry's check period.
const echoWindow = 5 * time.Second

// A feed is healthy only while Tether's own calls come back through it.
// The path from Tether's call to the queue (CloudTrail and an EventBridge
// rule) is a MODEL, sqstest.Rule: it puts the event of each call DynamoDB
// Local answered for the account into its queue, shaped as AWS documents
// it, with Tether's session as the caller. While it delivers, the feed
// stays healthy past its echo window; "deleted", it delivers nothing, and
// Tether's next call does not come back: within the window the
// AWSAccount says Polling, NoEcho, naming the call and the table, and the
// table is polled again. Delivery resumed, the next call's event brings
// the feed back.
func TestAFeedWhoseOwnCallsDoNotComeBackFallsBackToPolling(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	e := s.echoingAccount(t)
	a, obj, calls, rule, resized := e.account, e.table, e.calls, e.rule, e.resized
	describes := func() int { return calls.CallsFor(obj.Status.TableName)["DescribeTable"] }

	// Delivered: the call comes back as Tether's own, and the feed stays
	// healthy past the window and the check after it.
	own := outcomes(t, a.Name)[changefeed.OutcomeOwn]
	resized(6)
	g.Eventually(func() float64 { return outcomes(t, a.Name)[changefeed.OutcomeOwn] }, timeout, tick).Should(BeNumerically(">", own),
		"Tether's call did not come back through the feed")
	g.Consistently(func(g Gomega) {
		cur := &awsv1alpha1.AWSAccount{}
		g.Expect(s.c.Get(ctx, client.ObjectKeyFromObject(a), cur)).To(Succeed())
		g.Expect(cur.Status.ChangeEvents.Reason).To(Equal(changefeed.ReasonReceiving), "%s", cur.Status.ChangeEvents.Message)
	}, echoWindow+5*time.Second+time.Second, tick).Should(Succeed(), "a feed whose calls come back was failed")
	g.Expect(rule.Failures()).To(BeZero())

	// The rule "deleted": the next call does not come back.
	rule.SetEnabled(false)
	looks := describes()
	resized(7)
	failed := s.mode(t, a, awsv1alpha1.ChangeEventsModePolling, changefeed.ReasonNoEcho)
	g.Expect(failed.Status.ChangeEvents.Message).To(And(ContainSubstring("UpdateTable of table "+obj.Status.TableName),
		ContainSubstring("EventBridge rule exists and is enabled")))
	g.Expect(meta.FindStatusCondition(failed.Status.Conditions, awsv1alpha1.ConditionChangeEvents)).To(And(
		HaveField("Status", metav1.ConditionFalse), HaveField("Reason", changefeed.ReasonNoEcho)))
	g.Eventually(func(g Gomega) []string { return s.eventReasons(g, a) }, timeout, tick).Should(ContainElement(controllers.ReasonChangeEventsFailed))
	g.Eventually(describes, 10*time.Second, tick).Should(BeNumerically(">=", looks+3),
		"the table of a feed whose calls do not come back is not polled again")

	// Delivery resumed: the next call's event brings the feed back.
	rule.SetEnabled(true)
	resized(8)
	s.mode(t, a, awsv1alpha1.ChangeEventsModeEvents, changefeed.ReasonReceiving)
}

// echoing is an AWSAccount whose DynamoDB calls go through a proxy of
// their own, which tells a model of CloudTrail and the EventBridge rule
// (sqstest.Rule) of each call DynamoDB Local answered, and a covered,
// PROVISIONED table of it.
type echoing struct {
	account *awsv1alpha1.AWSAccount
	url     string
	table   *awsv1alpha1.DynamoDBTable
	calls   *faultproxy.Proxy
	rule    *sqstest.Rule
	// resized has Tether change the table's read capacity (UpdateTable).
	resized func(reads int64)
}

func (s *suite) echoingAccount(t *testing.T) *echoing {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	calls, err := faultproxy.New(s.local, 3)
	g.Expect(err).NotTo(HaveOccurred())
	endpoint, err := calls.Listen("127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = calls.Close() })
	a, ns, url := s.account(t, "", func(a *awsv1alpha1.AWSAccount) {
		a.Spec.Endpoint = endpoint
		a.Spec.ChangeEvents.EchoWindow = &metav1.Duration{Duration: echoWindow}
	})
	rule := sqstest.NewRule(s.queue, url, sqstest.Call{Account: accountID, Region: region, Role: "tether", Session: access.SessionName(a)})
	calls.OnAnswered(func(c faultproxy.Answered) {
		if c.Status == 200 && c.Table != "" {
			rule.Deliver(context.Background(), c.Operation, c.Table)
		}
	})
	obj := s.ready(t, s.table(t, ns, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5}
	}))
	s.coveredThrough(t, calls, a, obj)
	resized := func(reads int64) {
		t.Helper()
		cur := &awsv1alpha1.DynamoDBTable{}
		g.Expect(s.c.Get(ctx, client.ObjectKeyFromObject(obj), cur)).To(Succeed())
		before := cur.DeepCopy()
		cur.Spec.ProvisionedThroughput.ReadCapacityUnits = reads
		updates := calls.CallsFor(obj.Status.TableName)["UpdateTable"]
		g.Expect(s.c.Patch(ctx, cur, client.MergeFrom(before))).To(Succeed())
		g.Eventually(func() int { return calls.CallsFor(obj.Status.TableName)["UpdateTable"] }, timeout, tick).Should(BeNumerically(">", updates),
			"Tether did not update the table")
	}
	return &echoing{account: a, url: url, table: obj, calls: calls, rule: rule, resized: resized}
}
