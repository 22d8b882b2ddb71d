package feedtest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/sqstest"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
)

// The change feed's integration tests run the real manager's DynamoDB
// setup (the DynamoDBTable and AWSAccount controllers and the feeds) on a
// real API server, against DynamoDB Local behind a counting proxy, STS's
// model (internal/ststest) for the AWSAccounts' roles, and goaws as the
// SQS queue (internal/sqstest), checked with the SDK's own client. Nothing
// here runs CloudTrail or EventBridge: the tests put events into the queue
// themselves, from sqstest.Call, a MODEL of what an EventBridge rule
// delivers, shaped as AWS documents it.
//
// The tables' poll interval is 2 s and the feeds' safety interval an hour:
// a table looked at within seconds while its feed is healthy was woken by
// an event, and one looked at every 2 s is polled.

const (
	pollInterval   = 2 * time.Second
	safetyInterval = time.Hour
	timeout        = 60 * time.Second
	tick           = 100 * time.Millisecond
	// role is the AWSAccounts' role in the STS model; its sessions sign
	// with key, which DynamoDB Local keeps a database for: the account.
	role      = "arn:aws:iam::111111111111:role/tether"
	accountID = "111111111111"
	key       = "feedakey"
	region    = "us-east-1"
)

var s *suite

type suite struct {
	env         *testenv.Env
	c           client.Client
	ddb         *faultproxy.Proxy // in front of DynamoDB Local: counts Tether's calls
	local       string            // DynamoDB Local's URL
	raw         *awsdynamodb.Client
	rawOperator *awsdynamodb.Client
	sqs         *sqstest.Server
	queue       *sqs.Client
	// operatorQueue is the operator's own feed's queue.
	operatorQueue string
}

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var stops []func()
	defer func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}()
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 1 }
	env, err := testenv.Start(awsv1alpha1.AddToScheme)
	if err != nil {
		return fail(err)
	}
	stops = append(stops, func() { _ = env.Stop() })
	local, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return fail(err)
	}
	stops = append(stops, local.Stop)
	proxy, err := faultproxy.New(local.URL, 26)
	if err != nil {
		return fail(err)
	}
	proxyURL, err := proxy.Listen("127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	stops = append(stops, func() { _ = proxy.Close() })
	sts, err := ststest.Start(ststest.Options{Roles: []ststest.Role{{ARN: role, Trusts: []string{"tethertest"}, AccessKeyID: key}}})
	if err != nil {
		return fail(err)
	}
	stops = append(stops, sts.Close)
	queues, err := sqstest.Start(sqstest.Options{AccountID: accountID, Region: region})
	if err != nil {
		return fail(err)
	}
	stops = append(stops, queues.Stop)
	// The operator's own feed reads a queue of its own, at the endpoint the
	// SDK's AWS_ENDPOINT_URL_SQS names, as in production.
	operatorQueue, _, err := queues.CreateQueue(context.Background(), "operator-changes", nil)
	if err != nil {
		return fail(err)
	}
	vars := ddbtest.EnvFor(proxyURL)
	vars["AWS_ENDPOINT_URL_STS"] = sts.URL
	vars["AWS_ENDPOINT_URL_SQS"] = queues.URL
	for k, v := range vars {
		if err := os.Setenv(k, v); err != nil {
			return fail(err)
		}
	}
	mgr, err := env.NewManager()
	if err != nil {
		return fail(err)
	}
	// A feed that failed tries again within two seconds, so that a test
	// need not wait for the minute the backoff grows to.
	if _, err := controllers.SetupDynamoDB(mgr, pollInterval, changefeed.Options{MaxRetryDelay: 2 * time.Second,
		Operator: &changefeed.OperatorFeed{Queue: operatorQueue, Region: region, SafetyInterval: safetyInterval}},
		dynamodb.Options{SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond}); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stops = append(stops, cancel)
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "token")))
	if err != nil {
		return fail(err)
	}
	own, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		return fail(err)
	}
	s = &suite{env: env, c: env.Client, ddb: proxy, local: local.URL, sqs: queues, queue: queues.Client(), operatorQueue: operatorQueue,
		// Act in the account, and in the operator's own, behind Tether's
		// back, around the proxy.
		raw:         awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(local.URL) }),
		rawOperator: awsdynamodb.NewFromConfig(own, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(local.URL) })}
	return m.Run()
}

var seq atomic.Int64

// name is a fresh name per call: tests share one endpoint.
func name(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, seq.Add(1), time.Now().UnixNano()%1000000)
}

// account is an AWSAccount with a queue of its own, read through endpoint
// (goaws, or a fault proxy in front of it), admitting one new namespace
// whose default account it is, changed by mutate before it is created. It
// returns the account, the namespace and the queue's URL.
func (s *suite) account(t *testing.T, endpoint string, mutate ...func(*awsv1alpha1.AWSAccount)) (*awsv1alpha1.AWSAccount, string, string) {
	t.Helper()
	ctx := context.Background()
	acct, ns := name("account"), name("team")
	url, _, err := s.sqs.CreateQueue(ctx, name("changes"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if endpoint == "" {
		endpoint = s.sqs.URL
	}
	a := &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: acct}, Spec: awsv1alpha1.AWSAccountSpec{
		AssumeRole:        awsv1alpha1.AssumeRole{RoleARN: role},
		NamespaceSelector: awsv1alpha1.NamespaceSelector{Names: []string{ns}},
		ChangeEvents: &awsv1alpha1.ChangeEvents{Queue: url, Region: region, Endpoint: endpoint,
			SafetyInterval: &metav1.Duration{Duration: safetyInterval}},
	}}
	for _, m := range mutate {
		m(a)
	}
	if err := s.c.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.IgnoreNotFound(s.c.Delete(context.Background(), a.DeepCopy())) })
	if err := s.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Annotations: map[string]string{awsv1alpha1.AnnotationNamespaceAccount: acct}}}); err != nil {
		t.Fatal(err)
	}
	return a, ns, url
}

// table creates a DynamoDBTable, deleted when the test ends.
func (s *suite) table(t *testing.T, ns string, mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	obj := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name("table")},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		},
	}
	for _, m := range mutate {
		m(obj)
	}
	if err := s.c.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.IgnoreNotFound(s.c.Delete(context.Background(), obj.DeepCopy())) })
	return obj
}

// withIndex gives the table a global secondary index on attribute gsi.
func withIndex(index string) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AttributeDefinitions = append(o.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: "gsi", AttributeType: "S"})
		o.Spec.GlobalSecondaryIndexes = []awsv1alpha1.GlobalSecondaryIndex{{IndexName: index,
			KeySchema: awsv1alpha1.IndexKeySchema{{AttributeName: "gsi", KeyType: "HASH"}}}}
	}
}

// ready waits until the table is Ready and returns it.
func (s *suite) ready(t *testing.T, obj *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	out := &awsv1alpha1.DynamoDBTable{}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(s.c.Get(context.Background(), client.ObjectKeyFromObject(obj), out)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(out.Status.Conditions, "Ready")).To(BeTrue(), "%v", out.Status.Conditions)
	}, timeout, tick).Should(Succeed())
	return out
}

// mode waits until the account's status shows mode and reason, and returns
// it.
func (s *suite) mode(t *testing.T, a *awsv1alpha1.AWSAccount, mode, reason string) *awsv1alpha1.AWSAccount {
	t.Helper()
	out := &awsv1alpha1.AWSAccount{}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(s.c.Get(context.Background(), client.ObjectKeyFromObject(a), out)).To(Succeed())
		g.Expect(out.Status.ChangeEvents).NotTo(BeNil())
		g.Expect([]string{out.Status.ChangeEvents.Mode, out.Status.ChangeEvents.Reason}).To(Equal([]string{mode, reason}),
			"%s", out.Status.ChangeEvents.Message)
	}, timeout, tick).Should(Succeed())
	return out
}

// covered waits until the tables wait their safety interval between looks:
// their account's feed is healthy, and no look comes for three of their
// 2 s poll intervals.
func (s *suite) covered(t *testing.T, a *awsv1alpha1.AWSAccount, tables ...*awsv1alpha1.DynamoDBTable) {
	t.Helper()
	s.coveredThrough(t, s.ddb, a, tables...)
}

// coveredThrough is covered for an account whose calls go through proxy.
func (s *suite) coveredThrough(t *testing.T, proxy *faultproxy.Proxy, a *awsv1alpha1.AWSAccount, tables ...*awsv1alpha1.DynamoDBTable) {
	t.Helper()
	s.mode(t, a, awsv1alpha1.ChangeEventsModeEvents, "Receiving")
	g := NewWithT(t)
	steady := func() []int {
		var out []int
		for _, obj := range tables {
			out = append(out, proxy.CallsFor(obj.Status.TableName)["DescribeTable"])
		}
		return out
	}
	// A look already queued may still come; then nothing for three poll
	// intervals.
	g.Eventually(func(g Gomega) {
		before := steady()
		g.Consistently(steady, 3*pollInterval, tick).Should(Equal(before))
	}, timeout, tick).Should(Succeed(), "tables covered by a healthy feed are still polled every %s", pollInterval)
}

// describes is how many DescribeTables Tether made for the table.
func (s *suite) describes(obj *awsv1alpha1.DynamoDBTable) int {
	return s.ddb.CallsFor(obj.Status.TableName)["DescribeTable"]
}

// send puts message bodies into the queue, ten a call.
func (s *suite) send(t *testing.T, url string, bodies ...string) {
	t.Helper()
	for len(bodies) > 0 {
		n := min(10, len(bodies))
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i, b := range bodies[:n] {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(b)})
		}
		out, err := s.queue.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Failed) > 0 {
			t.Fatalf("SQS refused %d messages: %s", len(out.Failed), aws.ToString(out.Failed[0].Message))
		}
		bodies = bodies[n:]
	}
}

// emptied waits until every message of the queue was deleted.
func (s *suite) emptied(t *testing.T, url string) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) string {
		out, err := s.queue.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
		g.Expect(err).NotTo(HaveOccurred())
		return out.Attributes["ApproximateNumberOfMessages"]
	}, timeout, tick).Should(Equal("0"), "messages are left in the queue")
}

// call is a change to the table made outside Tether by a person, as the
// event model reports it.
func call(op string, obj *awsv1alpha1.DynamoDBTable, at time.Time) sqstest.Call {
	return sqstest.Call{Name: op, Account: obj.Status.AccountID, Region: obj.Status.Region, Table: obj.Status.TableName, At: at}
}

// outcomes is tether_dynamodb_change_events_total of one feed, by outcome.
func outcomes(t *testing.T, feed string) map[string]float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "tether_dynamodb_change_events_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["feed"] == feed {
				out[labels["outcome"]] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// healthy is tether_dynamodb_change_feed_healthy of one feed.
func healthy(t *testing.T, feed string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "tether_dynamodb_change_feed_healthy" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "feed" && l.GetValue() == feed {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}

// eventReasons are the reasons of the events recorded about an object.
func (s *suite) eventReasons(g Gomega, obj client.Object) []string {
	var list eventsv1.EventList
	g.Expect(s.c.List(context.Background(), &list)).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Name == obj.GetName() && strings.EqualFold(e.Regarding.Kind, "AWSAccount") {
			out = append(out, e.Reason)
		}
	}
	return out
}
