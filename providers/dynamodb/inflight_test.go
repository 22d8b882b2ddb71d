package dynamodb

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	. "github.com/onsi/gomega"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// These tests run the adapter against DynamoDB Local behind the MODEL's
// Pace (internal/ddbgap/pace.go: AWS's documented slowness and stale
// reads, scaled down to seconds). Each would fail on an adapter that takes
// every read for the truth.

// passes runs passes for d and returns what each observed.
func (f *fixture) passesFor(obj *awsv1alpha1.DynamoDBTable, d time.Duration) []providers.Observation {
	f.t.Helper()
	var out []providers.Observation
	for end := time.Now().Add(d); time.Now().Before(end); {
		obs, err := f.pass(obj)
		if err != nil {
			if !notNow(err) {
				f.t.Fatalf("pass: %v", err)
			}
		}
		out = append(out, obs)
		time.Sleep(50 * time.Millisecond) // a pass every 50 ms, not synchronisation
	}
	return out
}

// Right after CreateTable DescribeTable does not find the table: a create
// in flight, not a table deleted behind Tether's back. One CreateTable,
// no TableDeleted, no TableExists.
func TestACreateNotSeenYetIsNotSentAgain(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Pace: ddbgap.Pace{Create: 2 * time.Second, Unseen: time.Second}}, Options{})
	g := NewWithT(t)
	obj := newTable()
	if _, err := f.pass(obj); err != nil {
		t.Fatal(err)
	}
	obs, err := f.pass(obj)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(obs.Outcome).To(Equal(providers.OutcomeWait))
	g.Expect(obs.Wait.Reason).To(Equal(providers.ReasonCreating))
	g.Expect(obs.Wait.Message).To(ContainSubstring("eventually consistent"))
	f.converge(obj)
	g.Expect(f.proxy.Calls()["CreateTable"]).To(Equal(1))
	g.Expect(f.events.notesOf("TableDeleted")).To(BeEmpty())
	g.Expect(f.events.notesOf(reasonTableExists)).To(BeEmpty())
}

// After an UpdateTable the reads still show the table as it was: the step
// is in flight, not sent again (which AWS would refuse while UPDATING,
// then as "equals the current value", a bad spec on the old adapter).
func TestAStepInFlightIsNotSentAgain(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Pace: ddbgap.Pace{Update: time.Second, Stale: 3 * time.Second}}, Options{})
	g := NewWithT(t)
	obj := newTable()
	f.converge(obj)
	obj.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
	obj.Spec.ProvisionedThroughput = capacity(5, 5)
	obj.Generation++
	f.proxy.ResetCounts()
	if obs, err := f.pass(obj); err != nil || obs.Outcome != providers.OutcomeUpdate {
		t.Fatalf("first pass: %+v, %v; want the switch sent", obs, err)
	}
	for _, obs := range f.passesFor(obj, 2*time.Second) {
		g.Expect(obs.Outcome).To(Equal(providers.OutcomeWait))
		g.Expect(obs.Wait.Message).To(ContainSubstring("does not send it again"))
	}
	f.converge(obj)
	g.Expect(f.proxy.Calls()["UpdateTable"]).To(Equal(1))
}

// Past the settle window a late read decides: the step goes again, and
// AWS's answer that it is done already is a reason to read again, not a
// bad spec.
func TestARefusalThatSaysDoneIsReadAgain(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Pace: ddbgap.Pace{Update: 100 * time.Millisecond, Stale: 3 * time.Second}},
		Options{SettleWindow: -1})
	g := NewWithT(t)
	obj := newTable()
	f.converge(obj)
	obj.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
	obj.Spec.ProvisionedThroughput = capacity(5, 5)
	obj.Generation++
	if _, err := f.pass(obj); err != nil {
		t.Fatal(err)
	}
	// The model's UPDATING is over within 100 ms; its reads stay stale
	// for 3 s.
	var w *providers.HandedError
	g.Eventually(func() string {
		_, err := f.pass(obj)
		w, _ = providers.AsHanded(err)
		if _, terminal := providers.AsTerminal(err); terminal {
			t.Fatalf("taken for a bad spec: %v", err)
		}
		if w == nil {
			return ""
		}
		return w.Message
	}, 10*time.Second, 50*time.Millisecond).Should(ContainSubstring("equals the current value"))
	g.Expect(f.proxy.Calls()["UpdateTable"]).To(BeNumerically(">=", 2), "sent again once the window was over")
	f.converge(obj)
}

// An index being backfilled holds only the next index create or delete
// ("Only 1 online index can be created or deleted simultaneously per
// table"); the rest of the plan goes ("After the index begins backfilling,
// you can use UpdateTable to perform other operations", API UpdateTable).
func TestOnlyIndexStepsWaitForABackfill(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Pace: ddbgap.Pace{Update: 300 * time.Millisecond, Backfill: 4 * time.Second}}, Options{})
	g := NewWithT(t)
	obj := newTable()
	f.converge(obj)
	withGSI("by-owner", "owner", nil)(obj)
	obj.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "expires", Enabled: true}
	obj.Generation++
	f.proxy.ResetCounts()
	g.Eventually(func() int {
		_, _ = f.pass(obj)
		return f.proxy.Calls()["UpdateTimeToLive"]
	}, 10*time.Second, 50*time.Millisecond).Should(Equal(1))
	ix := f.describe(obj.Name).GlobalSecondaryIndexes[0]
	g.Expect(ix.IndexStatus).To(Equal(types.IndexStatusCreating), "TTL went while the index backfills")
	g.Expect(aws.ToBool(ix.Backfilling)).To(BeTrue())

	withGSI("by-state", "state", nil)(obj)
	obj.Generation++
	f.converge(obj)
	g.Expect(f.proxy.Calls()["UpdateTable"]).To(Equal(2), "one call per index; the second never refused")
}

func TestAlreadyDone(t *testing.T) {
	refusal := func(code, msg string) error { return &smithy.GenericAPIError{Code: code, Message: msg} }
	for _, tc := range []struct {
		step plan.Step
		err  error
		want bool
	}{
		{plan.Step{Kind: plan.StepSwitchBilling}, refusal("ValidationException", "The requested throughput value equals the current value"), true},
		{plan.Step{Kind: plan.StepCreateIndex}, refusal("ValidationException", "Attempting to create an index which already exists"), true},
		{plan.Step{Kind: plan.StepStream}, refusal("ValidationException", "Table already has an enabled stream"), true},
		{plan.Step{Kind: plan.StepTimeToLive}, refusal("ValidationException", "TimeToLive is already enabled"), true},
		{plan.Step{Kind: plan.StepDeleteIndex}, refusal("ResourceNotFoundException", "Requested resource not found"), true},
		{plan.Step{Kind: plan.StepThroughput}, refusal("ValidationException", "One or more parameter values were invalid"), false},
		{plan.Step{Kind: plan.StepTimeToLive}, refusal("ValidationException", "Time to live has been modified multiple times within a fixed interval"), false},
		{plan.Step{Kind: plan.StepThroughput}, errors.New("network down"), false},
	} {
		if got := alreadyDone(tc.step, tc.err); got != tc.want {
			t.Errorf("%s, %v: alreadyDone = %v, want %v", tc.step.Kind, tc.err, got, tc.want)
		}
	}
}

// A later call of the same subject replaces the record: setting a value
// back is not the first call in flight; a read that showed a call ends
// its flight.
func TestFlightRecords(t *testing.T) {
	p := New(Options{Clients: access.ClientOptions{DefaultRegion: "us-east-1"}})
	ep := &access.Endpoint{Region: "us-east-1", Account: "111111111111"}
	now := time.Now()
	to10 := plan.Step{Kind: plan.StepThroughput, Description: "set throughput to 10/10"}
	to5 := plan.Step{Kind: plan.StepThroughput, Description: "set throughput to 5/5"}
	p.flights.accepted(ep.TableKey("t"), p.stepFlight(to10, now))
	if _, ok := p.flights.inFlight(ep.TableKey("t"), to10.Description, now); !ok {
		t.Fatal("a call just accepted is in flight")
	}
	p.flights.accepted(ep.TableKey("t"), p.stepFlight(to5, now))
	if _, ok := p.flights.inFlight(ep.TableKey("t"), to10.Description, now); ok {
		t.Fatal("a later call of the same subject replaces the record")
	}
	if _, ok := p.flights.inFlight(ep.TableKey("t"), to5.Description, now.Add(settleWindow)); ok {
		t.Fatal("past the settle window the read decides")
	}
	p.flights.seenIn(ep.TableKey("t"), &plan.Plan{})
	if _, ok := p.flights.inFlight(ep.TableKey("t"), to5.Description, now); ok {
		t.Fatal("a read whose plan no longer asks for the call has seen it")
	}
	if !p.flights.sentBefore(ep.TableKey("t"), to5.Description) {
		t.Fatal("a seen call is still known as sent")
	}
	ttl := plan.Step{Kind: plan.StepTimeToLive, Description: "enable TTL on exp"}
	p.flights.accepted(ep.TableKey("t"), p.stepFlight(ttl, now))
	if _, ok := p.flights.inFlight(ep.TableKey("t"), ttl.Description, now.Add(30*time.Minute)); !ok {
		t.Fatal("an UpdateTimeToLive is in flight for AWS's hour")
	}
}

// A table AWS refuses a second UpdateTimeToLive for within the hour waits
// it out, saying until when, instead of taking it for a bad spec.
func TestATTLRefusedWithinTheHourWaits(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{Pace: ddbgap.Pace{TTLCooldown: time.Minute}}, Options{})
	g := NewWithT(t)
	obj := newTable(func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: "expires", Enabled: true}
	})
	f.converge(obj)
	obj.Spec.TimeToLiveSpecification.Enabled = false
	obj.Generation++
	_, err := f.pass(obj)
	w, waits := providers.AsPending(err)
	g.Expect(waits).To(BeTrue(), "err = %v", err)
	g.Expect(w.Message).To(ContainSubstring("one UpdateTimeToLive per table an hour"))
	g.Expect(w.For).To(BeNumerically(">", time.Minute), "not before the hour, or the poll interval")
	g.Expect(f.proxy.Calls()["UpdateTimeToLive"]).To(Equal(2), "the enable, and the refused disable")
}
