package dynamodb

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prometheus/client_golang/prometheus/testutil"
	apitypes "k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// feeds covers the tables of the identities it names.
type feeds map[string]time.Duration

func (f feeds) Cover(identity string, _ apitypes.NamespacedName) (time.Duration, bool) {
	d, ok := f[identity]
	return d, ok
}

// While a healthy change feed covers an account's tables, they are looked
// at every safety interval: 5,000 tables every 30 minutes ask their
// limiter for 2.8 calls/s, so no table is stretched, where at the 2-minute
// poll they asked for 41.7 (TestStretchIsReportedWhenTheLimiterCannotHoldThePoll).
// A table not yet seen, or with an interval of its own by annotation, and
// the tables of an account without a healthy feed, are polled.
func TestAHealthyFeedSetsTheIntervalAndTheDemand(t *testing.T) {
	p := New(Options{PollInterval: 2 * time.Minute, ChangeFeeds: feeds{"team-a": 30 * time.Minute}})
	ep := &endpoint{Account: "333333333333", Region: "eu-west-1"}
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
	if got := testutil.ToFloat64(callsAsked.WithLabelValues("333333333333", "eu-west-1")); math.Abs(got-5000.0/1800) > 0.01 {
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
