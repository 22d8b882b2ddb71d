package dynamodb

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	apitypes "k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// feeds covers the tables of the identities it names.
type feeds map[string]time.Duration

func (f feeds) Cover(identity string, _ apitypes.NamespacedName) (time.Duration, bool) {
	d, ok := f[identity]
	return d, ok
}

func (feeds) Sending(string, string, string, string, string, time.Time) func(bool) {
	return func(bool) {}
}

// While a healthy change feed covers an account's tables, they are looked
// at every safety interval: 5,000 tables every 30 minutes ask their
// limiter for 2.8 calls/s, so no table is stretched, where at the 2-minute
// poll they asked for 41.7 (TestStretchIsReportedWhenTheLimiterCannotHoldThePoll).
// A table not yet seen, or with an interval of its own by annotation, and
// the tables of an account without a healthy feed, are polled.
func TestAHealthyFeedSetsTheIntervalAndTheDemand(t *testing.T) {
	p := New(Options{PollInterval: 2 * time.Minute, ChangeFeeds: feeds{"team-a": 30 * time.Minute}})
	ep := &access.Endpoint{Account: "333333333333", Region: "eu-west-1"}
	table := func(i int, account string) *awsv1alpha1.DynamoDBTable {
		obj := &awsv1alpha1.DynamoDBTable{}
		obj.UID = apitypes.UID(fmt.Sprintf("t-%d", i))
		obj.Status.Account, obj.Status.TableArn = account, "arn:aws:dynamodb:eu-west-1:333333333333:table/t"
		return obj
	}
	var last *awsv1alpha1.DynamoDBTable
	for i := range 5000 {
		last = table(i, "team-a")
		p.noteDemand(ep, last)
	}
	if got := last.Status.EffectivePollInterval; got != "" {
		t.Errorf("5,000 covered tables: effective interval %q, want the safety interval held", got)
	}
	if got := metricValue(t, "tether_dynamodb_calls_asked_per_second", "account", "333333333333", "region", "eu-west-1"); math.Abs(got-5000.0/1800) > 0.01 {
		t.Errorf("tether_dynamodb_calls_asked_per_second = %v, want %.2f", got, 5000.0/1800)
	}
	if d, ok := p.ResyncInterval(last); !ok || d != 30*time.Minute {
		t.Errorf("a covered table: %s, %v; want 30m", d, ok)
	}

	unseen := table(-1, "team-a")
	unseen.Status.TableArn = ""
	annotated := table(-2, "team-a")
	annotated.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: "5m"}
	uncovered := table(-3, "team-b")
	for _, obj := range []*awsv1alpha1.DynamoDBTable{unseen, annotated, uncovered} {
		if d, ok := p.ResyncInterval(obj); ok {
			t.Errorf("%s (account %q, arn %q, annotations %v) is covered for %s", obj.UID, obj.Status.Account, obj.Status.TableArn, obj.Annotations, d)
		}
	}
	if got, want := p.lookInterval(annotated), 5*time.Minute; got != want {
		t.Errorf("annotated table looked at every %s, want %s", got, want)
	}
}

// A change AWS reported (ChangedOutside) has the next look read again what
// the spec uses besides DescribeTable, instead of reusing its answer for
// the secondary-read interval: a TTL turned off behind Tether's back is put
// back at the look its event caused, not up to an hour later.
func TestAChangeReportedOutsideIsReadAtTheNextLook(t *testing.T) {
	f := newFixture(t, dynamoDBLocal(t).URL, Options{SecondaryReadInterval: time.Hour})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "exp", Enabled: true}
	})
	f.converge(obj)
	ctx := context.Background()
	if _, err := f.raw.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(obj.Status.TableName),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	f.proxy.ResetCounts()
	if obs, err := f.pass(obj); err != nil || obs.Outcome != providers.OutcomeUpToDate {
		t.Fatalf("a look without a reported change: %+v, %v; want the TTL answer reused", obs, err)
	}
	f.p.ChangedOutside(obj.UID)
	obs, err := f.observe(obj)
	if err != nil {
		t.Fatal(err)
	}
	if obs.Outcome != providers.OutcomeUpdate || !strings.Contains(obs.Diff.String(), "TTL") {
		t.Fatalf("the look after a reported change: %+v, want the TTL put back", obs)
	}
	if got := f.proxy.Calls()["DescribeTimeToLive"]; got != 1 {
		t.Errorf("DescribeTimeToLive %d times, want once: at the look after the change", got)
	}
}

// sentLog is a ChangeFeeds that covers nothing and keeps the calls it was
// told AWS accepted, and how many it was told were under way.
type sentLog struct {
	mu       sync.Mutex
	sent     []sentCall
	underway int
}

type sentCall struct {
	identity, call, account, region, table string
	began                                  time.Time
}

func (*sentLog) Cover(string, apitypes.NamespacedName) (time.Duration, bool) { return 0, false }

func (l *sentLog) Sending(identity, call, account, region, table string, began time.Time) func(bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.underway++
	return func(accepted bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.underway--
		if accepted {
			l.sent = append(l.sent, sentCall{identity, call, account, region, table, began})
		}
	}
}

func (l *sentLog) take() []sentCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sent
	l.sent = nil
	return out
}

// The change feeds are told of each write about a table, and of its
// answer, once per call with the table's account, region and name and when
// the call began (their echo check expects the event of a write AWS
// accepted back), and of nothing else: not of reads; a write AWS refused
// is told as refused.
func TestTheFeedsAreToldOfEachWriteAWSAccepted(t *testing.T) {
	log := &sentLog{}
	f := newFixture(t, dynamoDBLocal(t).URL, Options{ChangeFeeds: log, Clients: access.ClientOptions{AccountID: "444455556666", MaxAttempts: 2}})
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		o.Spec.ProvisionedThroughput = capacity(5, 5)
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "exp", Enabled: true}
	})
	began := time.Now()
	f.converge(obj)
	name := obj.Status.TableName
	var calls []string
	for _, s := range log.take() {
		if s.identity != "" || s.account != "444455556666" || s.region != obj.Status.Region || s.table != name || s.began.Before(began) || s.began.After(time.Now()) {
			t.Errorf("told of %+v, want the operator's own call about %s in 444455556666 %s", s, name, obj.Status.Region)
		}
		calls = append(calls, s.call)
	}
	if want := []string{"CreateTable", "UpdateTimeToLive"}; !slices.Equal(calls, want) {
		t.Errorf("told of %v, want %v (reads are not told)", calls, want)
	}

	// A write AWS refuses, here a 500 and its retry, is not told; the
	// same write accepted on the next pass is.
	obj.Spec.ProvisionedThroughput = capacity(6, 5)
	f.proxy.SetRules(faultproxy.Rule{Operation: "UpdateTable", Share: 1, Limit: 2, Fault: faultproxy.InternalServerError})
	if _, err := f.pass(obj); err == nil {
		t.Fatal("an UpdateTable answered 500 twice succeeded")
	}
	if got := log.take(); len(got) != 0 {
		t.Errorf("told of a write AWS refused: %+v", got)
	}
	f.converge(obj)
	if got := log.take(); len(got) != 1 || got[0].call != "UpdateTable" || got[0].table != name {
		t.Errorf("told of %+v, want the one UpdateTable", got)
	}
	if log.underway != 0 {
		t.Errorf("%d calls told as under way were never answered", log.underway)
	}
}
