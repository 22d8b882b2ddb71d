package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/sqstest"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
)

// The defaults the change feed's cost is stated against: the operator's
// --dynamodbtable-poll-interval (controllers.DefaultConfig) and
// spec.changeEvents.safetyInterval.
const (
	defaultPoll   = 2 * time.Minute
	defaultSafety = changefeed.DefaultSafetyInterval
)

// feedWorld is a world of DynamoDBTables in AWSAccounts whose change feeds
// are queues in goaws, behind a proxy that counts the SQS calls. Tether's
// own writes come back into their account's queue as AWS would send them,
// through a model of CloudTrail and the EventBridge rule (sqstest.Rule):
// without them each feed would fail its echo check.
type feedWorld struct {
	queues *sqstest.Server
	sqs    *faultproxy.Proxy
	// raw acts in each account behind Tether's back, by account name.
	raw map[string]*awsdynamodb.Client

	mu sync.Mutex
	// rules deliver the calls signed with each access key to its
	// account's queue.
	rules map[string]*sqstest.Rule
}

// echo puts the event of a call DynamoDB answered into the queue of the
// account that made it, off the call's path, as CloudTrail and EventBridge
// do.
func (w *feedWorld) echo(ctx context.Context, c faultproxy.Answered) {
	w.mu.Lock()
	rule := w.rules[c.AccessKeyID]
	w.mu.Unlock()
	if rule == nil || c.Status != http.StatusOK || c.Table == "" || !rule.Matches(c.Operation) {
		return
	}
	go rule.Deliver(ctx, c.Operation, c.Table)
}

// startFeedWorld starts DynamoDB Local, the STS model for benchAccounts,
// goaws and the operator.
func (r *run) startFeedWorld(ctx context.Context, bin string, flags ...string) (*feedWorld, error) {
	dynamoDB, stsEnv, err := r.startAccountEndpoints()
	if err != nil {
		return nil, err
	}
	queues, err := sqstest.Start(sqstest.Options{})
	if err != nil {
		return nil, err
	}
	r.onStop(queues.Stop)
	counting, err := faultproxy.New(queues.URL, 12)
	if err != nil {
		return nil, err
	}
	if _, err := counting.Listen("127.0.0.1:0"); err != nil {
		return nil, err
	}
	r.onStop(func() { _ = counting.Close() })
	if err := r.startTablesWorld(ctx, bin, dynamoDB, stsEnv, flags...); err != nil {
		return nil, err
	}
	w := &feedWorld{queues: queues, sqs: counting, raw: map[string]*awsdynamodb.Client{}, rules: map[string]*sqstest.Rule{}}
	r.proxy.OnAnswered(func(c faultproxy.Answered) { w.echo(ctx, c) })
	for _, a := range benchAccounts {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion("us-east-1"),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(a.accessKey, "secret", "token")))
		if err != nil {
			return nil, err
		}
		w.raw[a.name] = awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(dynamoDB) })
	}
	return w, nil
}

// declareFeedAccount is declareAccount with a change feed: a queue of its
// own, read through the counting proxy. safety 0 leaves the account
// without a feed. It returns the queue's URL.
func (r *run) declareFeedAccount(ctx context.Context, w *feedWorld, a benchAccount, safety time.Duration) (string, error) {
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.namespace,
		Annotations: map[string]string{awsv1alpha1.AnnotationNamespaceAccount: a.name}}}); err != nil {
		return "", err
	}
	acct := &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: a.name},
		Spec: awsv1alpha1.AWSAccountSpec{AssumeRole: awsv1alpha1.AssumeRole{RoleARN: a.roleARN},
			NamespaceSelector: awsv1alpha1.NamespaceSelector{Names: []string{a.namespace}}}}
	url := ""
	if safety > 0 {
		var err error
		if url, _, err = w.queues.CreateQueue(ctx, a.name+"-changes", nil); err != nil {
			return "", err
		}
		acct.Spec.ChangeEvents = &awsv1alpha1.ChangeEvents{Queue: url, Region: "us-east-1", Endpoint: w.sqs.URL(),
			SafetyInterval: &metav1.Duration{Duration: safety}}
		w.mu.Lock()
		w.rules[a.accessKey] = sqstest.NewRule(w.queues.Client(), url,
			sqstest.Call{Account: a.id, Region: "us-east-1", Role: "tether", Session: access.SessionName(acct)})
		w.mu.Unlock()
	}
	return url, r.c.Create(ctx, acct)
}

// waitFeedHealthy waits until the account's feed is read without trouble.
func (r *run) waitFeedHealthy(ctx context.Context, name string) error {
	return WaitUntil(ctx, 2*time.Minute, 200*time.Millisecond, func() (bool, error) {
		var a awsv1alpha1.AWSAccount
		if err := r.c.Get(ctx, client.ObjectKey{Name: name}, &a); err != nil {
			return false, err
		}
		s := a.Status.ChangeEvents
		return s != nil && s.Mode == awsv1alpha1.ChangeEventsModeEvents, nil
	})
}

func init() {
	registerAlone(12, "DynamoDB drift by the change feed, and the cost of watching with it", true, (*run).feed)
}

// Figure 12 (issue 26): drift found by the change feed, and what watching
// costs with it. Half the tables are in an account whose feed is healthy,
// half in one without a feed, both polled every FeedPoll otherwise; the
// feed's safety interval is FeedSafety (the defaults' 1:15). A table of the
// first account changed behind Tether's back has its event put into the
// queue (a model of CloudTrail and EventBridge: nothing here runs them);
// the time from that event being in the queue to Tether's correcting
// UpdateTable is the drift's latency. Then, in steady state, the AWS calls
// per table per hour: DynamoDB reads of each half, and the feed's SQS
// calls, which do not depend on the number of tables.
func (r *run) feed(ctx context.Context, bin string) error {
	sc := r.sc
	w, err := r.startFeedWorld(ctx, bin, "--dynamodbtable-poll-interval="+sc.FeedPoll.String())
	if err != nil {
		return err
	}
	withFeed, polled := benchAccounts[0], benchAccounts[1]
	url, err := r.declareFeedAccount(ctx, w, withFeed, sc.FeedSafety)
	if err != nil {
		return err
	}
	if _, err := r.declareFeedAccount(ctx, w, polled, 0); err != nil {
		return err
	}
	half := max(1, sc.FeedTables/2)
	tablesOf := map[string][]*awsv1alpha1.DynamoDBTable{}
	var all []client.Object
	for _, a := range []benchAccount{withFeed, polled} {
		for i := range half {
			t := newTable(fmt.Sprintf("%s-%04d", a.name, i+1), true)
			t.Namespace, t.Labels = a.namespace, nil
			tablesOf[a.name] = append(tablesOf[a.name], t)
			all = append(all, t)
		}
	}
	if err := r.createAll(ctx, all); err != nil {
		return err
	}
	if _, err := r.waitReady(ctx, true, wantAll(all), 3*time.Minute+time.Duration(3*len(all)/limiterRate)*time.Second, nil); err != nil {
		return err
	}
	if err := r.waitFeedHealthy(ctx, withFeed.name); err != nil {
		return fmt.Errorf("the change feed did not become healthy: %w", err)
	}
	// Each table takes the safety interval at its first look after the
	// feed became healthy: within a poll interval (jittered by 10%).
	if err := r.sleep(ctx, sc.FeedPoll*11/10+2*time.Second); err != nil {
		return err
	}

	latencies, err := r.feedDrifts(ctx, w, url, tablesOf[withFeed.name], sc.FeedDrifts)
	if err != nil {
		return err
	}
	f := r.fig(12)
	f.add("drift_p50", fmt.Sprintf("drift with the feed: event in the queue to Tether's correcting UpdateTable (median of %d)", len(latencies)), "s",
		secs(percentile(latencies, 50)), nil)
	f.add("drift_p99", "drift with the feed: event in the queue to the correcting call (p99)", "s", secs(percentile(latencies, 99)),
		&goal{Op: "<=", Limit: 2})
	f.why("each event waits for the long poll in flight to return it, then one DescribeTable and one UpdateTable through the account's 25/s limiter")

	// Steady state: every table waits its interval; the drifted ones were
	// looked at again just now and wait theirs from then.
	r.proxy.ResetCounts()
	sqsBefore := w.sqs.Total()
	began := time.Now()
	if err := r.sleep(ctx, sc.FeedWindow); err != nil {
		return err
	}
	hours := time.Since(began).Hours()
	sqsCalls := float64(w.sqs.Total() - sqsBefore)
	reads := func(tables []*awsv1alpha1.DynamoDBTable) float64 {
		n := 0
		for _, t := range tables {
			for op, c := range r.proxy.CallsFor(t.Name) {
				if isRead(op) {
					n += c
				}
			}
		}
		return float64(n) / float64(len(tables)) / hours
	}
	feedReads, pollReads := reads(tablesOf[withFeed.name]), reads(tablesOf[polled.name])
	sqsPerTable := sqsCalls / float64(half) / hours
	f.add("reads_polled", fmt.Sprintf("DynamoDB reads per table per hour, polled every %s", sc.FeedPoll), "calls", pollReads, nil)
	f.add("reads_feed", fmt.Sprintf("DynamoDB reads per table per hour, feed healthy (safety interval %s)", sc.FeedSafety), "calls", feedReads, nil)
	f.add("sqs_per_table", fmt.Sprintf("the feed's SQS calls per table per hour (%.0f an hour for the feed, over %d tables)", sqsCalls/hours, half), "calls", sqsPerTable, nil)
	f.add("cost_ratio", "AWS calls per table per hour with the feed (DynamoDB and SQS) against polling's", "ratio", (feedReads+sqsPerTable)/pollReads, nil)
	// DynamoDB's reads scale with the intervals, the feed's SQS calls do
	// not: at the defaults, the same tables would cost
	feedAtDefaults := feedReads * sc.FeedSafety.Seconds() / defaultSafety.Seconds()
	pollAtDefaults := pollReads * sc.FeedPoll.Seconds() / defaultPoll.Seconds()
	f.add("cost_ratio_defaults", fmt.Sprintf("the same at the defaults (poll %s, safety %s), from these measures", defaultPoll, defaultSafety), "ratio",
		(feedAtDefaults+sqsPerTable)/pollAtDefaults, &goal{Op: "<=", Limit: 0.2, Text: "<= 0.2 of polling's"})
	f.why("%s", breakEven(sqsCalls/hours, pollAtDefaults, feedAtDefaults))
	f.note("%d PROVISIONED tables in an account whose change feed is healthy and %d in one without a feed, --dynamodbtable-poll-interval=%s, safetyInterval %s; "+
		"%d drifts (capacity 5/5 -> 9/9 straight at DynamoDB Local, then its UpdateTable event, shaped as AWS documents it, put into the queue: the event producer is a model, which sends Tether's own calls back too, as AWS does); "+
		"steady state over %s: DynamoDB calls %s; SQS calls %d.",
		half, half, sc.FeedPoll, sc.FeedSafety, len(latencies), sc.FeedWindow.Round(time.Second), FormatCounts(r.proxy.Calls()), int(sqsCalls))
	return nil
}

// breakEven says from how many tables a feed costs at most 0.2x of
// polling: its SQS calls an hour do not depend on the number of tables,
// while each table saves the difference of its reads.
func breakEven(sqsPerHour, pollPerTable, feedPerTable float64) string {
	saved := 0.2*pollPerTable - feedPerTable
	if saved <= 0 {
		return fmt.Sprintf("each table read every safety interval already costs over 0.2x of polling (%.2f against %.2f reads an hour)", feedPerTable, pollPerTable)
	}
	return fmt.Sprintf("the feed's SQS calls (%.0f an hour, three long polls a minute) do not shrink with the number of tables: "+
		"at the defaults a feed costs at most 0.2x of polling from about %.0f tables on", sqsPerHour, sqsPerHour/saved)
}

// isRead says whether a DynamoDB operation reads.
func isRead(op string) bool {
	for _, prefix := range []string{"Describe", "List", "Get"} {
		if len(op) >= len(prefix) && op[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// feedDrifts changes n tables behind Tether's back one at a time, puts each
// change's event into the queue and returns the time from each event being
// in the queue to Tether's UpdateTable of that table.
func (r *run) feedDrifts(ctx context.Context, w *feedWorld, url string, tables []*awsv1alpha1.DynamoDBTable, n int) ([]time.Duration, error) {
	raw := w.raw[benchAccounts[0].name]
	queue := w.queues.Client()
	var out []time.Duration
	for _, i := range rand.Perm(len(tables))[:min(n, len(tables))] {
		t := tables[i]
		var cur awsv1alpha1.DynamoDBTable
		if err := r.c.Get(ctx, client.ObjectKeyFromObject(t), &cur); err != nil {
			return nil, err
		}
		if _, err := raw.UpdateTable(ctx, &awsdynamodb.UpdateTableInput{TableName: aws.String(cur.Status.TableName),
			ProvisionedThroughput: &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(9)}}); err != nil {
			return nil, err
		}
		var (
			mu        sync.Mutex
			corrected time.Time
		)
		r.proxy.BeforeForwarding("UpdateTable", cur.Status.TableName, func() {
			mu.Lock()
			corrected = time.Now()
			mu.Unlock()
		})
		event := sqstest.Call{Name: "UpdateTable", Account: cur.Status.AccountID, Region: cur.Status.Region, Table: cur.Status.TableName, At: time.Now()}.Event()
		// Counted from before the send: the event may be read before
		// SendMessage has returned.
		inQueue := time.Now()
		if _, err := queue.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(event)}); err != nil {
			return nil, err
		}
		err := WaitUntil(ctx, 2*r.sc.FeedPoll+time.Minute, 20*time.Millisecond, func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return !corrected.IsZero(), nil
		})
		if err != nil {
			return nil, fmt.Errorf("drift of %s not corrected: %w", cur.Name, err)
		}
		out = append(out, corrected.Sub(inQueue))
		// Until the table is back, so that the next drift starts from
		// still water.
		if err := WaitUntil(ctx, time.Minute, 50*time.Millisecond, func() (bool, error) {
			d, err := raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(cur.Status.TableName)})
			if err != nil {
				return false, err
			}
			pt := d.Table.ProvisionedThroughput
			return pt != nil && aws.ToInt64(pt.ReadCapacityUnits) == 5, nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}
