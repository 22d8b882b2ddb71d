package plan

import (
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// The table's Kinesis data stream destination: enabled by
// EnableKinesisStreamingDestination, its timestamp precision changed by
// UpdateKinesisStreamingDestination, disabled by
// DisableKinesisStreamingDestination, and read with
// DescribeKinesisStreamingDestination, which lists every destination the
// table had, each ENABLING, ACTIVE, UPDATING, DISABLING, DISABLED or
// ENABLE_FAILED
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_KinesisDataStreamDestination.html).
//
// AWS's ways, as ACK's live probes found them
// (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-policy-kinesis-autoscaling.md):
//   - a table has one live destination (neither DISABLED nor
//     ENABLE_FAILED): another stream is enabled only once the live one is
//     disabled;
//   - an ACTIVE entry without a precision is MILLISECOND;
//   - ENABLING lasts seconds, a precision change (UPDATING) about two
//     minutes, DISABLING seconds: AWS still applying a change, so nothing
//     more is sent meanwhile and the table is not Ready until it settles;
//   - the stream is checked only after the call was accepted: a stream
//     that is missing or in another Region or account ends ENABLE_FAILED,
//     and failed and disabled entries stay listed beside the new ones.
//     ENABLE_FAILED never recovers by itself; the adapter enables again
//     once per generation of the spec (providers/dynamodb/kinesis.go).

// FeatureKinesis names the Kinesis streaming destination where an endpoint
// may lack it (DynamoDB Local answers UnknownOperationException).
const FeatureKinesis = "kinesisStreamingDestination"

// Kinds of the Kinesis streaming destination's steps.
const (
	stepKinesisEnable  StepKind = "KinesisStreamingEnable"
	stepKinesisUpdate  StepKind = "KinesisStreamingUpdate"
	stepKinesisDisable StepKind = "KinesisStreamingDisable"
)

// Kinesis are a table's Kinesis data stream destinations, by stream ARN.
// Desired: the stream the spec names, Status ACTIVE, or when the spec names
// none, the one Tether enabled, Status DISABLED; nil is not managed.
// Observed: what DescribeKinesisStreamingDestination lists; nil is not read.
type Kinesis map[string]KinesisStream

// KinesisStream is one destination.
type KinesisStream struct {
	// Status is AWS's DestinationStatus (observed), ACTIVE or DISABLED
	// (desired).
	Status string
	// Precision is MILLISECOND or MICROSECOND; "" is not managed
	// (desired).
	Precision string
	// Description is AWS's DestinationStatusDescription (observed only).
	Description string
}

// Destination statuses as the planner groups them.
var (
	// kinesisLive holds the table's one live destination.
	kinesisLive = []types.DestinationStatus{types.DestinationStatusEnabling, types.DestinationStatusActive, types.DestinationStatusUpdating}
	// kinesisInFlux are AWS still applying a change.
	kinesisInFlux = []types.DestinationStatus{types.DestinationStatusEnabling, types.DestinationStatusUpdating, types.DestinationStatusDisabling}
)

func init() {
	register(&feature{
		name:  FeatureKinesis,
		kinds: []StepKind{stepKinesisEnable, stepKinesisUpdate, stepKinesisDisable},
		uses: func(spec *awsv1alpha1.DynamoDBTableSpec) bool {
			return spec.KinesisStreamingDestination != nil
		},
		desire: func(s source, want *Table) { want.Kinesis = DesiredKinesis(s.DynamoDBTableSpec, "") },
		adopt:  func(r *Reads, have *Table) { have.Kinesis = maps.Clone(r.Kinesis) },
		hide:   func(have *Table) { have.Kinesis = nil },
		busy:   kinesisBusy,
		passes: []pass{{atKinesis, (*planner).updateKinesis}},
	})
}

// DesiredKinesis is the spec's destination, or the disabling of the one
// Tether enabled (status.managedKinesisStreamArn) when the spec names none.
func DesiredKinesis(spec *awsv1alpha1.DynamoDBTableSpec, managed string) Kinesis {
	if k := spec.KinesisStreamingDestination; k != nil {
		return Kinesis{k.StreamArn: {Status: string(types.DestinationStatusActive), Precision: k.ApproximateCreationDateTimePrecision}}
	}
	if managed != "" {
		return Kinesis{managed: {Status: string(types.DestinationStatusDisabled)}}
	}
	return nil
}

// ObservedKinesis is DescribeKinesisStreamingDestination's answer. A stream
// may be listed more than once (failed and disabled entries stay): its
// live entry counts, else the last one listed.
func ObservedKinesis(dests []types.KinesisDataStreamDestination) Kinesis {
	out := Kinesis{}
	for _, d := range dests {
		arn := aws.ToString(d.StreamArn)
		if old, ok := out[arn]; ok && old.Live() {
			continue
		}
		out[arn] = KinesisStream{Status: string(d.DestinationStatus),
			Precision:   orDefault(string(d.ApproximateCreationDateTimePrecision), awsv1alpha1.KinesisPrecisionMillisecond),
			Description: aws.ToString(d.DestinationStatusDescription)}
	}
	return out
}

func (k KinesisStream) Live() bool {
	return slices.Contains(kinesisLive, types.DestinationStatus(k.Status))
}

// Failed says whether AWS reports the destination ENABLE_FAILED.
func (k KinesisStream) Failed() bool {
	return k.Status == string(types.DestinationStatusEnableFailed)
}

// KinesisInFlux says whether a read shows a destination AWS is still
// changing: the next look reads it again.
func KinesisInFlux(read Kinesis) bool { return kinesisBusy(&Table{Kinesis: read}) != "" }

// kinesisBusy names a destination AWS is still changing, "" when none.
func kinesisBusy(have *Table) string {
	for _, arn := range slices.Sorted(maps.Keys(have.Kinesis)) {
		if s := have.Kinesis[arn].Status; slices.Contains(kinesisInFlux, types.DestinationStatus(s)) {
			return fmt.Sprintf("Kinesis streaming destination %s is %s", arn, s)
		}
	}
	return ""
}

// updateKinesis disables every live destination the spec does not name
// (only the one Tether enabled, when the spec names none), then enables
// the spec's stream or changes its precision.
func (p *planner) updateKinesis() {
	want, cur := p.want.Kinesis, p.cur.Kinesis
	if want == nil || cur == nil {
		return
	}
	target := ""
	for arn, w := range want {
		if w.Status == string(types.DestinationStatusActive) {
			target = arn
		}
	}
	for _, arn := range slices.Sorted(maps.Keys(cur)) {
		c := cur[arn]
		if arn == target || !c.Live() {
			continue
		}
		if w, named := want[arn]; target != "" || (named && w.Status == string(types.DestinationStatusDisabled)) {
			p.add(Step{Kind: stepKinesisDisable, Description: "disable Kinesis streaming destination " + arn,
				KinesisDisable: &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String(p.name), StreamArn: aws.String(arn)}})
			c.Status = string(types.DestinationStatusDisabled)
			cur[arn] = c
		}
	}
	if target == "" {
		return
	}
	w, c := want[target], cur[target]
	switch {
	case !c.Live() && c.Status != string(types.DestinationStatusDisabling):
		in := &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String(p.name), StreamArn: aws.String(target)}
		desc := "enable Kinesis streaming destination " + target
		if w.Precision != "" {
			in.EnableKinesisStreamingConfiguration = &types.EnableKinesisStreamingConfiguration{
				ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecision(w.Precision)}
			desc += " (" + w.Precision + ")"
		}
		if c.Failed() {
			desc += " again: AWS reports it ENABLE_FAILED"
			if c.Description != "" {
				desc += " (" + c.Description + ")"
			}
		}
		p.add(Step{Kind: stepKinesisEnable, Description: desc, KinesisEnable: in})
		cur[target] = KinesisStream{Status: string(types.DestinationStatusActive), Precision: orDefault(w.Precision, awsv1alpha1.KinesisPrecisionMillisecond)}
	case c.Status == string(types.DestinationStatusActive) && w.Precision != "" && c.Precision != w.Precision:
		// Only an ACTIVE destination's precision changes: while UPDATING
		// AWS is still applying the last change.
		p.add(Step{Kind: stepKinesisUpdate, Description: fmt.Sprintf("set the timestamp precision of Kinesis streaming destination %s to %s", target, w.Precision),
			KinesisUpdate: &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String(p.name), StreamArn: aws.String(target),
				UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{
					ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecision(w.Precision)}}})
		c.Precision = w.Precision
		cur[target] = c
	}
}
