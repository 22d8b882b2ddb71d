package plan

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// TestKinesisSteps: the steps for the Kinesis streaming destination, for
// each state AWS may report: one live destination at a time (the other
// disabled first), a precision change only on an ACTIVE one, a change AWS
// is still applying holds the table (nothing sent, not Ready), and only
// the destination Tether enabled is disabled when the spec drops it.
func TestKinesisSteps(t *testing.T) {
	const a, b = "arn:aws:kinesis:us-east-1:111122223333:stream/a", "arn:aws:kinesis:us-east-1:111122223333:stream/b"
	const milli, micro = awsv1alpha1.KinesisPrecisionMillisecond, awsv1alpha1.KinesisPrecisionMicrosecond
	on := func(arn, precision string) Kinesis { return DesiredKinesis(specKinesis(arn, precision), "") }
	cases := []struct {
		name  string
		want  Kinesis
		have  Kinesis
		steps []string
		busy  string
	}{
		{name: "none, asked for one", want: on(a, ""), have: Kinesis{},
			steps: []string{"enable Kinesis streaming destination " + a}},
		{name: "none, asked in microseconds", want: on(a, micro), have: Kinesis{},
			steps: []string{"enable Kinesis streaming destination " + a + " (MICROSECOND)"}},
		{name: "active, precision left alone", want: on(a, ""), have: Kinesis{a: {Status: "ACTIVE", Precision: micro}}},
		{name: "active, precision changed", want: on(a, micro), have: Kinesis{a: {Status: "ACTIVE", Precision: milli}},
			steps: []string{"set the timestamp precision of Kinesis streaming destination " + a + " to MICROSECOND"}},
		{name: "enabling counts as on, and holds", want: on(a, micro), have: Kinesis{a: {Status: "ENABLING", Precision: milli}},
			busy: "Kinesis streaming destination " + a + " is ENABLING"},
		{name: "updating: no second change", want: on(a, micro), have: Kinesis{a: {Status: "UPDATING", Precision: milli}},
			busy: "Kinesis streaming destination " + a + " is UPDATING"},
		{name: "another stream live: disabled first", want: on(b, ""), have: Kinesis{a: {Status: "ACTIVE", Precision: milli}},
			steps: []string{"disable Kinesis streaming destination " + a, "enable Kinesis streaming destination " + b}},
		{name: "dead entries of other streams are left", want: on(b, ""), have: Kinesis{a: {Status: "ENABLE_FAILED"}, b: {Status: "ACTIVE", Precision: milli}}},
		{name: "disabled outside: enabled again", want: on(a, ""), have: Kinesis{a: {Status: "DISABLED", Precision: milli}},
			steps: []string{"enable Kinesis streaming destination " + a}},
		{name: "failed: enabled again, saying why", want: on(a, ""), have: Kinesis{a: {Status: "ENABLE_FAILED", Description: "stream not found"}},
			steps: []string{"enable Kinesis streaming destination " + a + " again: AWS reports it ENABLE_FAILED (stream not found)"}},
		{name: "removed from the spec: Tether's disabled", want: DesiredKinesis(&awsv1alpha1.DynamoDBTableSpec{}, a),
			have: Kinesis{a: {Status: "ACTIVE", Precision: milli}}, steps: []string{"disable Kinesis streaming destination " + a}},
		{name: "removed from the spec: another's left alone", want: DesiredKinesis(&awsv1alpha1.DynamoDBTableSpec{}, a),
			have: Kinesis{b: {Status: "ACTIVE", Precision: milli}}},
		{name: "not managed", want: nil, have: Kinesis{a: {Status: "ACTIVE"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := with(spec(ppr, nil), func(tb *Table) { tb.Kinesis = c.want })
			have := with(active(ppr, nil), func(tb *Table) { tb.Kinesis = c.have })
			p := Compute("t", want, have, Options{})
			if got := p.Descriptions(); !slices.Equal(got, c.steps) {
				t.Fatalf("steps %q, want %q", got, c.steps)
			}
			if p.Busy() != c.busy {
				t.Errorf("busy %q, want %q", p.Busy(), c.busy)
			}
			for _, s := range p.Steps {
				if FeatureOf(s.Kind) != FeatureKinesis {
					t.Errorf("step %q is not of feature %s", s.Description, FeatureKinesis)
				}
				if s.KinesisEnable == nil && s.KinesisUpdate == nil && s.KinesisDisable == nil {
					t.Errorf("step %q carries no Kinesis call", s.Description)
				}
			}
		})
	}
}

// TestKinesisEnableCarriesThePrecision: the ENABLE names the spec's
// precision, and none when the spec leaves it to AWS's default.
func TestKinesisEnableCarriesThePrecision(t *testing.T) {
	const a = "arn:aws:kinesis:us-east-1:111122223333:stream/a"
	for _, precision := range []string{"", awsv1alpha1.KinesisPrecisionMicrosecond} {
		want := with(spec(ppr, nil), func(tb *Table) { tb.Kinesis = DesiredKinesis(specKinesis(a, precision), "") })
		p := Compute("t", want, with(active(ppr, nil), func(tb *Table) { tb.Kinesis = Kinesis{} }), Options{})
		in := p.Steps[0].KinesisEnable
		var got string
		if in.EnableKinesisStreamingConfiguration != nil {
			got = string(in.EnableKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision)
		}
		if got != precision || aws.ToString(in.StreamArn) != a || aws.ToString(in.TableName) != "t" {
			t.Errorf("precision %q: ENABLE %+v", precision, in)
		}
	}
}

// TestObservedKinesis: a stream listed more than once counts by its live
// entry, else its last; no precision reported is MILLISECOND.
func TestObservedKinesis(t *testing.T) {
	const a = "arn:aws:kinesis:us-east-1:111122223333:stream/a"
	got := ObservedKinesis([]types.KinesisDataStreamDestination{
		{StreamArn: aws.String(a), DestinationStatus: types.DestinationStatusEnableFailed},
		{StreamArn: aws.String(a), DestinationStatus: types.DestinationStatusActive},
		{StreamArn: aws.String(a), DestinationStatus: types.DestinationStatusDisabled},
	})
	if got[a].Status != "ACTIVE" || got[a].Precision != awsv1alpha1.KinesisPrecisionMillisecond {
		t.Fatalf("observed %+v", got)
	}
	got = ObservedKinesis([]types.KinesisDataStreamDestination{
		{StreamArn: aws.String(a), DestinationStatus: types.DestinationStatusDisabled},
		{StreamArn: aws.String(a), DestinationStatus: types.DestinationStatusEnableFailed, DestinationStatusDescription: aws.String("why")},
	})
	if !got[a].Failed() || got[a].Description != "why" {
		t.Fatalf("observed %+v", got)
	}
	if !KinesisInFlux(Kinesis{a: {Status: "DISABLING"}}) || KinesisInFlux(Kinesis{a: {Status: "ENABLE_FAILED"}}) {
		t.Error("KinesisInFlux: DISABLING is in flux, ENABLE_FAILED is not")
	}
}

func specKinesis(arn, precision string) *awsv1alpha1.DynamoDBTableSpec {
	return &awsv1alpha1.DynamoDBTableSpec{KinesisStreamingDestination: &awsv1alpha1.KinesisStreamingDestination{
		StreamArn: arn, ApproximateCreationDateTimePrecision: precision}}
}
