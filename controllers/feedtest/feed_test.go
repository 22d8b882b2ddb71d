package feedtest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
)

// A GSI deleted behind Tether's back is put back within seconds of its
// event, though the table is not polled while its feed is healthy; the
// message is deleted once handled, and the same event delivered again is
// dropped as a duplicate. (The event is the model's: see suite_test.go.)
func TestAGSIDeletedBehindTethersBackIsRestoredOnItsEvent(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	a, ns, url := s.account(t, "")
	obj := s.ready(t, s.table(t, ns, withIndex("byCustomer")))
	s.covered(t, a, obj)

	_, err := s.raw.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(obj.Status.TableName),
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byCustomer")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) []string { return s.indexes(g, obj) }, timeout, tick).Should(BeEmpty())
	updates := s.ddb.CallsFor(obj.Status.TableName)["UpdateTable"]
	event := call("UpdateTable", obj, time.Now()).Event()
	s.send(t, url, event)

	g.Eventually(func(g Gomega) []string { return s.indexes(g, obj) }, 20*time.Second, tick).Should(ConsistOf("byCustomer"),
		"the index deleted behind Tether's back is not back within seconds of its event")
	g.Expect(s.ddb.CallsFor(obj.Status.TableName)["UpdateTable"]).To(BeNumerically(">", updates), "Tether did not put it back")
	s.emptied(t, url)
	g.Expect(outcomes(t, a.Name)).To(HaveKeyWithValue(changefeed.OutcomeWoken, 1.0))

	s.send(t, url, event)
	s.emptied(t, url)
	g.Expect(outcomes(t, a.Name)).To(HaveKeyWithValue(changefeed.OutcomeDuplicate, 1.0))
}

func (s *suite) indexes(g Gomega, obj *awsv1alpha1.DynamoDBTable) []string {
	return s.indexesAs(g, s.raw, obj)
}

// indexesAs are the table's indexes as an account sees them.
func (s *suite) indexesAs(g Gomega, raw *awsdynamodb.Client, obj *awsv1alpha1.DynamoDBTable) []string {
	out, err := raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(obj.Status.TableName)})
	g.Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, ix := range out.Table.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(ix.IndexName))
	}
	return names
}

// A feed that stops (its queue deleted, or SQS refusing the role) puts its
// tables back on polling at once, and the AWSAccount says so: mode
// Polling, the reason, a ChangeEvents condition False and a Warning event.
// Once SQS lets it read again, the feed is back.
func TestAFeedThatFailsFallsBackToPollingAndSaysSo(t *testing.T) {
	t.Parallel()
	// SQS's answer to a role its policies do not allow (SQS API Reference,
	// "Common Errors": AccessDeniedException, HTTP 400).
	denied := faultproxy.Fault{Status: http.StatusBadRequest, Type: "AccessDeniedException",
		Message: "User: arn:aws:sts::111111111111:assumed-role/tether/tether is not authorized to perform: sqs:receivemessage"}
	for _, tc := range []struct {
		name   string
		reason string
		fail   func(t *testing.T, url string, proxy *faultproxy.Proxy)
		heal   func(t *testing.T, url string, proxy *faultproxy.Proxy)
		// then is the reason after heal, when it is another failure: the
		// status follows the latest answer's cause, not the first one.
		then string
	}{
		{name: "queue deleted", reason: changefeed.ReasonQueueNotFound,
			fail: func(t *testing.T, url string, _ *faultproxy.Proxy) {
				_, err := s.queue.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
				NewWithT(t).Expect(err).NotTo(HaveOccurred())
			}},
		{name: "access denied", reason: changefeed.ReasonAccessDenied,
			fail: func(t *testing.T, url string, proxy *faultproxy.Proxy) {
				proxy.SetRules(faultproxy.Rule{Share: 1, Fault: denied})
				// A message ends the long poll in flight, so the next call
				// meets the refusal now rather than in 20 s.
				s.send(t, url, "wake up")
			},
			heal: func(t *testing.T, _ string, proxy *faultproxy.Proxy) { proxy.SetRules() }},
		{name: "access denied, then the queue deleted", reason: changefeed.ReasonAccessDenied,
			fail: func(t *testing.T, url string, proxy *faultproxy.Proxy) {
				proxy.SetRules(faultproxy.Rule{Share: 1, Fault: denied})
				s.send(t, url, "wake up")
			},
			heal: func(t *testing.T, url string, proxy *faultproxy.Proxy) {
				_, err := s.queue.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
				NewWithT(t).Expect(err).NotTo(HaveOccurred())
				proxy.SetRules()
			},
			then: changefeed.ReasonQueueNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := NewWithT(t)
			proxy, err := faultproxy.New(s.sqs.URL, 1)
			g.Expect(err).NotTo(HaveOccurred())
			endpoint, err := proxy.Listen("127.0.0.1:0")
			g.Expect(err).NotTo(HaveOccurred())
			t.Cleanup(func() { _ = proxy.Close() })
			a, ns, url := s.account(t, endpoint)
			obj := s.ready(t, s.table(t, ns))
			s.covered(t, a, obj)

			looks := s.describes(obj)
			tc.fail(t, url, proxy)
			failed := s.mode(t, a, awsv1alpha1.ChangeEventsModePolling, tc.reason)
			g.Expect(meta.FindStatusCondition(failed.Status.Conditions, awsv1alpha1.ConditionChangeEvents)).To(And(
				HaveField("Status", metav1.ConditionFalse), HaveField("Reason", tc.reason)))
			g.Expect(failed.Status.ChangeEvents.Message).NotTo(BeEmpty())
			g.Eventually(func(g Gomega) []string { return s.eventReasons(g, a) }, timeout, tick).Should(ContainElement(controllers.ReasonChangeEventsFailed))
			// Woken at once, then polled every 2 s again.
			g.Eventually(s.describesOf(obj), 10*time.Second, tick).Should(BeNumerically(">=", looks+3),
				"the table of a failed feed is not polled again")

			if tc.heal == nil {
				return
			}
			tc.heal(t, url, proxy)
			if tc.then != "" {
				// At the feed's next attempts, though the mode stays
				// Polling: before, the status kept the first cause.
				failedAgain := s.mode(t, a, awsv1alpha1.ChangeEventsModePolling, tc.then)
				g.Expect(meta.FindStatusCondition(failedAgain.Status.Conditions, awsv1alpha1.ConditionChangeEvents)).To(
					HaveField("Reason", tc.then))
				g.Expect(failedAgain.Status.ChangeEvents.Message).To(ContainSubstring("does not exist"))
				return
			}
			s.mode(t, a, awsv1alpha1.ChangeEventsModeEvents, changefeed.ReasonReceiving)
			g.Eventually(func(g Gomega) []string { return s.eventReasons(g, a) }, timeout, tick).Should(ContainElement(controllers.ReasonChangeEventsReceiving))
		})
	}
}

func (s *suite) describesOf(obj *awsv1alpha1.DynamoDBTable) func() int {
	return func() int { return s.describes(obj) }
}

// A burst of 1,000 events about 100 tables (ten changes to each, made
// before their events reached the queue: the model delivers them ten
// seconds after the calls) costs at most one DescribeTable per table: a
// look already queued when an event comes sees its change too.
func TestABurstOfEventsCostsAtMostOneDescribePerTable(t *testing.T) {
	t.Parallel()
	const tables, perTable = 100, 10
	g := NewWithT(t)
	a, ns, url := s.account(t, "")
	var objs []*awsv1alpha1.DynamoDBTable
	for range tables {
		objs = append(objs, s.table(t, ns))
	}
	for i, obj := range objs {
		objs[i] = s.ready(t, obj)
	}
	s.covered(t, a, objs...)

	before := map[string]int{}
	for _, obj := range objs {
		before[obj.Name] = s.describes(obj)
	}
	made := time.Now().Add(-10 * time.Second)
	var burst []string
	for i := range perTable {
		for _, obj := range objs {
			c := call("UpdateTable", obj, made.Add(time.Duration(i)*time.Millisecond))
			burst = append(burst, c.Event())
		}
	}
	s.send(t, url, burst...)
	s.emptied(t, url)
	got := outcomes(t, a.Name)
	g.Expect(got[changefeed.OutcomeWoken] + got[changefeed.OutcomeCovered]).To(Equal(float64(tables * perTable)))
	g.Expect(got[changefeed.OutcomeWoken]).To(BeNumerically("<=", tables))
	looked := func() map[string]int {
		out := map[string]int{}
		for _, obj := range objs {
			out[obj.Name] = s.describes(obj) - before[obj.Name]
		}
		return out
	}
	g.Eventually(looked, timeout, tick).Should(HaveEach(BeNumerically(">=", 1)), "every table is looked at")
	g.Consistently(looked, 3*pollInterval, tick).Should(HaveEach(Equal(1)), "a table was described more than once for the burst")
}

// Events Tether has no business with change nothing and cost no call: about
// a table no object holds, another account's or region's table of the same
// name, a table held through an AWSAccount whose feed reads another queue,
// a call that failed, Tether's own call; none stays in the queue.
func TestEventsForTablesTetherDoesNotHoldChangeNothing(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	a, ns, url := s.account(t, "")
	obj := s.ready(t, s.table(t, ns))
	b, otherNS, _ := s.account(t, "")
	other := s.ready(t, s.table(t, otherNS))
	s.covered(t, a, obj)
	s.covered(t, b, other)

	now := time.Now()
	nobody := call("UpdateTable", obj, now)
	nobody.Table = name("nobodys")
	otherAccount := call("DeleteTable", obj, now)
	otherAccount.Account = "999999999999"
	otherRegion := call("DeleteTable", obj, now)
	otherRegion.Region = "eu-west-1"
	otherQueue := call("DeleteTable", other, now)
	failed := call("DeleteTable", obj, now)
	failed.ErrorCode = "ResourceInUseException"
	own := call("UpdateTable", obj, now)
	own.Role, own.Session = "tether", access.SessionName(a)
	describes := map[string]int{obj.Name: s.describes(obj), other.Name: s.describes(other)}

	s.send(t, url, nobody.Event(), otherAccount.Event(), otherRegion.Event(), otherQueue.Event(), failed.Event(), own.Event())
	s.emptied(t, url)
	g.Expect(outcomes(t, a.Name)).To(And(
		HaveKeyWithValue(changefeed.OutcomeForeign, 4.0),
		HaveKeyWithValue(changefeed.OutcomeIgnored, 1.0),
		HaveKeyWithValue(changefeed.OutcomeOwn, 1.0),
		Not(HaveKey(changefeed.OutcomeWoken))))
	g.Consistently(func() map[string]int {
		return map[string]int{obj.Name: s.describes(obj), other.Name: s.describes(other)}
	}, 3*pollInterval, tick).Should(Equal(describes), "an event Tether has no business with cost a look")
	g.Expect(s.tableExists(obj)).To(BeTrue())
}

func (s *suite) tableExists(obj *awsv1alpha1.DynamoDBTable) bool {
	_, err := s.raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(obj.Status.TableName)})
	return err == nil
}

// Messages that are no event (garbage, another shape, over the size bound)
// are counted and deleted, and the event behind them is handled: nothing
// blocks the queue, nothing comes back to be read again.
func TestAPoisonMessageDoesNotBlockTheQueue(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	a, ns, _ := s.account(t, "")
	// A queue that takes messages over the feed's bound: SQS allows up to
	// 1 MiB, an EventBridge event is at most 256 KB.
	big, _, err := s.sqs.CreateQueue(ctx, name("big"), map[string]string{"MaximumMessageSize": "1048576"})
	g.Expect(err).NotTo(HaveOccurred())
	before := a.DeepCopy()
	a.Spec.ChangeEvents.Queue = big
	g.Expect(s.c.Patch(ctx, a, client.MergeFrom(before))).To(Succeed())
	obj := s.ready(t, s.table(t, ns, withIndex("byDay")))
	s.covered(t, a, obj)

	_, err = s.raw.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(obj.Status.TableName),
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byDay")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) []string { return s.indexes(g, obj) }, timeout, tick).Should(BeEmpty())
	valid := call("UpdateTable", obj, time.Now()).Event()
	oversize := strings.Replace(valid, `"userAgent":"aws-cli/2.15.0"`, `"userAgent":"`+strings.Repeat("x", changefeed.MaxEventBytes)+`"`, 1)
	s.send(t, big, "not json at all", `{"Records":[]}`, `{"detail":"x"}`, oversize, valid)

	g.Eventually(func(g Gomega) []string { return s.indexes(g, obj) }, 20*time.Second, tick).Should(ConsistOf("byDay"),
		"the event behind the poison messages was not handled")
	s.emptied(t, big)
	g.Expect(outcomes(t, a.Name)).To(And(HaveKeyWithValue(changefeed.OutcomeMalformed, 4.0), HaveKeyWithValue(changefeed.OutcomeWoken, 1.0)))
}

// An AWSAccount without a queue says its tables are polled.
func TestAnAccountWithoutAQueueSaysItPolls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: name("quiet")}, Spec: awsv1alpha1.AWSAccountSpec{
		AssumeRole: awsv1alpha1.AssumeRole{RoleARN: role}}}
	NewWithT(t).Expect(s.c.Create(ctx, a)).To(Succeed())
	t.Cleanup(func() { _ = s.c.Delete(context.Background(), a) })
	got := s.mode(t, a, awsv1alpha1.ChangeEventsModePolling, changefeed.ReasonNotConfigured)
	NewWithT(t).Expect(got.Status.ChangeEvents.Message).To(ContainSubstring("every poll interval (2s)"))
}

// The operator's own identity has a feed of its own (its
// --dynamodb-change-events-queue): its tables, in namespaces that name no
// AWSAccount, are covered by it and put back on its events.
func TestTheOperatorsOwnFeedCoversItsTables(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := context.Background()
	ns := name("own")
	g.Expect(s.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	obj := s.ready(t, s.table(t, ns, withIndex("byRegion")))
	g.Expect(obj.Status.Account).To(BeEmpty(), "the table is the operator's own")
	g.Eventually(func() float64 { return healthy(t, "operator") }, timeout, tick).Should(Equal(1.0))
	g.Eventually(func(g Gomega) {
		before := s.describes(obj)
		g.Consistently(s.describesOf(obj), 3*pollInterval, tick).Should(Equal(before))
	}, timeout, tick).Should(Succeed(), "a table of the operator's own healthy feed is still polled")

	_, err := s.rawOperator.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(obj.Status.TableName),
		GlobalSecondaryIndexUpdates: []ddbtypes.GlobalSecondaryIndexUpdate{{Delete: &ddbtypes.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byRegion")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) []string { return s.indexesAs(g, s.rawOperator, obj) }, timeout, tick).Should(BeEmpty())
	s.send(t, s.operatorQueue, call("UpdateTable", obj, time.Now()).Event())
	g.Eventually(func(g Gomega) []string { return s.indexesAs(g, s.rawOperator, obj) }, 20*time.Second, tick).Should(ConsistOf("byRegion"))
	// The feed counts the outcome after it queued the look, so the look
	// can come first.
	g.Eventually(func() map[string]float64 { return outcomes(t, "operator") }, timeout, tick).
		Should(HaveKeyWithValue(changefeed.OutcomeWoken, 1.0))
}
