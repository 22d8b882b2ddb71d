package dynamodb

import (
	"fmt"
	"math"
	"testing"
	"time"

	apitypes "k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// At the default 25 calls/s, an account's limiter in a region holds a
// 2-minute poll up to 3,000 tables; beyond, every table is looked at less
// often by the same factor, which each table's status and the metrics say.
// Another account, or another region, has a limiter of its own.
func TestStretchIsReportedWhenTheLimiterCannotHoldThePoll(t *testing.T) {
	p := New(Options{PollInterval: 2 * time.Minute})
	a := &access.Endpoint{Account: "111111111111", Region: "us-east-1"}
	b := &access.Endpoint{Account: "222222222222", Region: "us-east-1"}
	add := func(ep *access.Endpoint, n int, prefix string) []*awsv1alpha1.DynamoDBTable {
		var objs []*awsv1alpha1.DynamoDBTable
		for i := range n {
			obj := &awsv1alpha1.DynamoDBTable{}
			obj.UID = apitypes.UID(fmt.Sprintf("%s-%d", prefix, i))
			p.noteDemand(ep, obj)
			objs = append(objs, obj)
		}
		return objs
	}
	held := add(a, 3000, "a")
	if got := held[len(held)-1].Status.EffectivePollInterval; got != "" {
		t.Errorf("3,000 tables at 2m on 25/s: effective interval %q, want the interval held", got)
	}
	more := add(a, 2000, "a2")
	last := more[len(more)-1]
	// 5,000 tables every 120 s ask for 41.7 calls/s: 1.67 times what the
	// limiter allows, so about every 200 s.
	if got := last.Status.EffectivePollInterval; got != "3m20s" {
		t.Errorf("5,000 tables: effective interval %q, want 3m20s", got)
	}
	if got := metricValue(t, "tether_dynamodb_poll_stretch", "account", "111111111111", "region", "us-east-1"); math.Abs(got-5000.0/120/25) > 0.01 {
		t.Errorf("tether_dynamodb_poll_stretch = %v, want %.2f", got, 5000.0/120/25)
	}
	if got := metricValue(t, "tether_dynamodb_tables", "account", "111111111111", "region", "us-east-1"); got != 5000 {
		t.Errorf("tether_dynamodb_tables = %v", got)
	}
	if p.stretchNote(last) == "" {
		t.Error("no Ready note for a stretched table")
	}

	other := add(b, 10, "b")
	if got := other[0].Status.EffectivePollInterval; got != "" {
		t.Errorf("another account's table is stretched by the first account's load: %q", got)
	}

	// A table polled every 10 minutes by annotation asks for less.
	slow := &awsv1alpha1.DynamoDBTable{}
	slow.UID = "slow"
	slow.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: "10m"}
	p.noteDemand(a, slow)
	// 600 s x 1.6667 = 1000.04 s, rounded up to the next 10 s.
	if got := slow.Status.EffectivePollInterval; got != "16m50s" {
		t.Errorf("a 10m table in the stretched account: %q, want 16m50s", got)
	}

	for _, o := range more {
		p.forget(o)
	}
	p.noteDemand(a, last)
	if got := last.Status.EffectivePollInterval; got != "" {
		t.Errorf("after 2,000 tables went: %q, want the interval held again", got)
	}
}
