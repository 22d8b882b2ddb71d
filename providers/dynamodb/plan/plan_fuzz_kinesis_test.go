package plan

import (
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// FuzzPlan's part for the Kinesis streaming destination (kinesis.go): the
// spec's destination, the one Tether enabled, what
// DescribeKinesisStreamingDestination reports, and the rules of the three
// calls as ACK's probes found them (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-policy-kinesis-autoscaling.md): one live
// destination at a time, a precision changed only on an ACTIVE one, and
// only the spec's stream enabled. Its choices come after the others, so
// the committed corpus keeps its meaning.

var fuzzStreams = []string{
	"arn:aws:kinesis:us-east-1:111122223333:stream/orders",
	"arn:aws:kinesis:us-east-1:111122223333:stream/audit",
}

var fuzzDestinationStatuses = []string{"ENABLING", "ACTIVE", "UPDATING", "DISABLING", "DISABLED", "ENABLE_FAILED"}

// fuzzKinesis is what the destination adds to one case: the stream Tether
// enabled before ("" for none) and the read (nil: not read).
type fuzzKinesis struct {
	managed string
	read    Kinesis
}

// kinesis2026 names a destination in some specs, a stream Tether enabled
// in some cases, and has AWS report some destinations, at most one of them
// live as AWS allows.
func (s *fuzzSource) kinesis2026(spec *awsv1alpha1.DynamoDBTableSpec) *fuzzKinesis {
	out := &fuzzKinesis{}
	if s.bool() {
		spec.KinesisStreamingDestination = &awsv1alpha1.KinesisStreamingDestination{StreamArn: s.pick(fuzzStreams...),
			ApproximateCreationDateTimePrecision: s.pick("", awsv1alpha1.KinesisPrecisionMillisecond, awsv1alpha1.KinesisPrecisionMicrosecond)}
	}
	if s.bool() {
		out.managed = s.pick(fuzzStreams...)
	}
	if s.bool() {
		out.read = Kinesis{}
		live := false
		for _, arn := range fuzzStreams {
			if s.intn(3) == 0 {
				continue
			}
			k := KinesisStream{Status: s.pick(fuzzDestinationStatuses...),
				Precision: s.pick(awsv1alpha1.KinesisPrecisionMillisecond, awsv1alpha1.KinesisPrecisionMicrosecond)}
			if k.Live() && live {
				k.Status = "DISABLED"
			}
			live = live || k.Live()
			out.read[arn] = k
		}
	}
	return out
}

func (k *fuzzKinesis) apply(spec *awsv1alpha1.DynamoDBTableSpec, want, have *Table) {
	want.Kinesis = DesiredKinesis(spec, k.managed)
	have.Kinesis = maps.Clone(k.read)
}

// checkKinesis holds one Kinesis step to AWS's rules, against the
// destinations as the steps before it leave them.
func (c *newerCheck) checkKinesis(fail func(string, ...any), s Step) {
	if c.kinesis == nil {
		fail("a Kinesis step though the destinations were not read")
		return
	}
	target := ""
	for arn, w := range c.want.Kinesis {
		if w.Status == "ACTIVE" {
			target = arn
		}
	}
	switch {
	case s.KinesisEnable != nil:
		arn := aws.ToString(s.KinesisEnable.StreamArn)
		if arn != target {
			fail("enables %s, which the spec does not name", arn)
		}
		for other, k := range c.kinesis {
			if k.Live() {
				fail("enables %s while %s is %s: one live destination at a time", arn, other, k.Status)
			}
		}
		p := ""
		if cfg := s.KinesisEnable.EnableKinesisStreamingConfiguration; cfg != nil {
			p = string(cfg.ApproximateCreationDateTimePrecision)
		}
		if p != c.want.Kinesis[arn].Precision {
			fail("enables %s with precision %q, the spec says %q", arn, p, c.want.Kinesis[arn].Precision)
		}
		c.kinesis[arn] = KinesisStream{Status: "ACTIVE", Precision: orDefault(p, awsv1alpha1.KinesisPrecisionMillisecond)}
	case s.KinesisUpdate != nil:
		arn := aws.ToString(s.KinesisUpdate.StreamArn)
		p := string(s.KinesisUpdate.UpdateKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision)
		switch {
		case arn != target:
			fail("changes %s, which the spec does not name", arn)
		case c.kinesis[arn].Status != "ACTIVE":
			fail("changes the precision of %s, which is %q", arn, c.kinesis[arn].Status)
		case p == c.kinesis[arn].Precision || p != c.want.Kinesis[arn].Precision:
			fail("sets precision %s of %s (it has %s, the spec says %s)", p, arn, c.kinesis[arn].Precision, c.want.Kinesis[arn].Precision)
		}
		k := c.kinesis[arn]
		k.Precision = p
		c.kinesis[arn] = k
	case s.KinesisDisable != nil:
		arn := aws.ToString(s.KinesisDisable.StreamArn)
		switch w, named := c.want.Kinesis[arn]; {
		case !c.kinesis[arn].Live():
			fail("disables %s, which is %q", arn, c.kinesis[arn].Status)
		case arn == target:
			fail("disables %s, which the spec names", arn)
		case target == "" && (!named || w.Status != "DISABLED"):
			fail("disables %s, which Tether did not enable", arn)
		}
		c.kinesis[arn] = KinesisStream{Status: "DISABLED"}
	}
}

// applyKinesis does to the model what AWS does for a Kinesis step.
func applyKinesis(tb *Table, s Step) {
	tb.Kinesis = maps.Clone(tb.Kinesis)
	switch {
	case s.KinesisEnable != nil:
		p := ""
		if cfg := s.KinesisEnable.EnableKinesisStreamingConfiguration; cfg != nil {
			p = string(cfg.ApproximateCreationDateTimePrecision)
		}
		tb.Kinesis[aws.ToString(s.KinesisEnable.StreamArn)] = KinesisStream{Status: "ACTIVE", Precision: orDefault(p, awsv1alpha1.KinesisPrecisionMillisecond)}
	case s.KinesisUpdate != nil:
		arn := aws.ToString(s.KinesisUpdate.StreamArn)
		k := tb.Kinesis[arn]
		k.Precision = string(s.KinesisUpdate.UpdateKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision)
		tb.Kinesis[arn] = k
	case s.KinesisDisable != nil:
		tb.Kinesis[aws.ToString(s.KinesisDisable.StreamArn)] = KinesisStream{Status: string(types.DestinationStatusDisabled)}
	}
}

// isKinesisStep says whether a step is one of the destination's.
func isKinesisStep(s Step) bool {
	return slices.Contains([]bool{s.KinesisEnable != nil, s.KinesisUpdate != nil, s.KinesisDisable != nil}, true)
}
