package ddbgap

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Kinesis streaming destinations of a table. DynamoDB Local has none (it
// answers UnknownOperationException to all four calls), so the model keeps
// them. Their statuses are ENABLING, ACTIVE, UPDATING, DISABLING, DISABLED
// and ENABLE_FAILED
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_KinesisDataStreamDestination.html);
// each transient one lasts Options.Transition (in AWS: ENABLING 2 to 7 s,
// ENABLE_FAILED after 1 to 62 s, UPDATING 124 to 152 s, DISABLING about
// 2 s, as ACK's live probes measured them:
// aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-policy-kinesis-autoscaling.md, "ACK" below).
//
// The rules the model enforces, each AWS's:
//   - one live destination per table (live: neither DISABLED nor
//     ENABLE_FAILED); an ENABLE while one is live is refused (ACK);
//   - a call in the wrong state is a ValidationException, never
//     ResourceNotFoundException (ACK): an UPDATE or DISABLE of a stream
//     that is not ACTIVE, an UPDATE to the precision already set ("Precision
//     is already set", ACK);
//   - the stream is not checked before the call is accepted: one in
//     another Region than the table's goes ENABLING, then ENABLE_FAILED
//     (ACK). The model has no Kinesis, so the Region is all it can check:
//     a stream of the table's Region that does not exist goes ACTIVE here,
//     where AWS would fail it;
//   - failed and disabled entries stay listed beside the new ones (ACK);
//   - an entry that never had a precision set reports none, which is
//     MILLISECOND (ACK; API KinesisDataStreamDestination above).

// kinesisFailure is the model's DestinationStatusDescription of a stream
// in another Region: AWS's own wording is not on record.
const kinesisFailure = "the model: Kinesis data stream %s is not in the table's Region %s"

// Precisions a destination takes
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_EnableKinesisStreamingConfiguration.html).
var kinesisPrecisions = []string{"MILLISECOND", "MICROSECOND"}

// kinesisArnMin is StreamArn's least length, "Minimum length of 37"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_EnableKinesisStreamingDestination.html).
const kinesisArnMin = 37

func init() {
	register(atKinesis, &feature{
		ops: map[string]handler{
			"DescribeKinesisStreamingDestination": (*Server).describeKinesisStreamingDestination,
			"EnableKinesisStreamingDestination":   (*Server).enableKinesisStreamingDestination,
			"UpdateKinesisStreamingDestination":   (*Server).updateKinesisStreamingDestination,
			"DisableKinesisStreamingDestination":  (*Server).disableKinesisStreamingDestination,
		},
		advance: func(st *tableState, now time.Time) {
			k := kinesisOf(st)
			if k.held != nil && k.held.Load() {
				return
			}
			for _, d := range k.dests {
				d.advance(now)
			}
		},
	})
}

// kinesisDests are a table's Kinesis streaming destinations, oldest first.
type kinesisDests struct {
	dests []*kinesisDest
	// held is the server's hold (HoldKinesisDestinations), set by the
	// first Kinesis call about the table.
	held *atomic.Bool
}

var kinesisOf = perTable[kinesisDests](nil)

var kinesisHoldOf = perServer[atomic.Bool](nil)

// HoldKinesisDestinations stops the Kinesis destinations' transitions
// where they are (ENABLING, UPDATING, DISABLING stay so) until release is
// called; a transition whose time has passed then ends at the next call.
// A test looks at a state AWS keeps for seconds as long as it needs,
// instead of racing a short Transition.
func (s *Server) HoldKinesisDestinations() (release func()) {
	held := kinesisHoldOf(s)
	held.Store(true)
	return func() { held.Store(false) }
}

// kinesisDest is one destination entry, in the order it was enabled.
type kinesisDest struct {
	arn, status, description string
	// precision is the one last set by ENABLE or UPDATE, "" when never.
	precision string
	// until is when the transient status becomes next (with
	// nextDescription).
	until                 time.Time
	next, nextDescription string
}

func (d *kinesisDest) advance(now time.Time) {
	if !d.until.IsZero() && !now.Before(d.until) {
		d.status, d.description, d.until = d.next, d.nextDescription, time.Time{}
	}
}

// live: the table's one destination that is neither DISABLED nor
// ENABLE_FAILED.
func (d *kinesisDest) live() bool { return d.status != "DISABLED" && d.status != "ENABLE_FAILED" }

func (d *kinesisDest) json() map[string]any {
	out := map[string]any{"StreamArn": d.arn, "DestinationStatus": d.status}
	if d.description != "" {
		out["DestinationStatusDescription"] = d.description
	}
	if d.precision != "" {
		out["ApproximateCreationDateTimePrecision"] = d.precision
	}
	return out
}

// liveKinesis is the table's live destination, nil when none.
func (st *tableState) liveKinesis() *kinesisDest {
	for _, d := range kinesisOf(st).dests {
		if d.live() {
			return d
		}
	}
	return nil
}

// kinesisTarget checks a Kinesis call's table (it must exist:
// ResourceNotFoundException) and stream ARN, and returns the table's state,
// advanced to now, with s.mu held: the caller unlocks.
func (s *Server) kinesisTarget(c *call) (name, arn string, st *tableState, err error) {
	name, arn = str(c.body, "TableName"), str(c.body, "StreamArn")
	if _, err := s.tableExists(c, name, "ResourceNotFoundException"); err != nil {
		return "", "", nil, err
	}
	if len(arn) < kinesisArnMin {
		return "", "", nil, validation("1 validation error detected: Value '%s' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to %d", arn, kinesisArnMin)
	}
	s.mu.Lock()
	st = s.state(c.r, name)
	kinesisOf(st).held = kinesisHoldOf(s)
	st.advance(time.Now())
	return name, arn, st, nil
}

// precisionOf reads a configuration's precision: "" when absent, else one
// of kinesisPrecisions (the enum: ValidationException otherwise).
func precisionOf(config map[string]any) (string, error) {
	p := str(config, "ApproximateCreationDateTimePrecision")
	if p != "" && !slices.Contains(kinesisPrecisions, p) {
		return "", validation("1 validation error detected: Value '%s' at 'approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: [%s]", p, strings.Join(kinesisPrecisions, ", "))
	}
	return p, nil
}

// describeKinesisStreamingDestination lists every destination entry
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeKinesisStreamingDestination.html).
func (s *Server) describeKinesisStreamingDestination(c *call) (any, error) {
	name := str(c.body, "TableName")
	if _, err := s.tableExists(c, name, "ResourceNotFoundException"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	st.advance(time.Now())
	dests := []any{}
	for _, d := range kinesisOf(st).dests {
		dests = append(dests, d.json())
	}
	return map[string]any{"TableName": name, "KinesisDataStreamDestinations": dests}, nil
}

// enableKinesisStreamingDestination "Starts table data replication to the
// specified Kinesis data stream": ENABLING, then ACTIVE, or ENABLE_FAILED
// for a stream in another Region
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_EnableKinesisStreamingDestination.html).
func (s *Server) enableKinesisStreamingDestination(c *call) (any, error) {
	precision, err := precisionOf(obj(c.body, "EnableKinesisStreamingConfiguration"))
	if err != nil {
		return nil, err
	}
	name, arn, st, err := s.kinesisTarget(c)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	now := time.Now()
	// A table being created or deleted: "The operation conflicts with the
	// resource's availability" (ResourceInUseException, API above).
	if why := st.pace.busy(now, s.opts.Pace); why != "" && why != "Table is being updated" {
		return nil, inUse("Attempt to change a resource which is still in use: %s: %s", why, name)
	}
	if live := st.liveKinesis(); live != nil {
		return nil, validation("Table %s already has a Kinesis streaming destination %s that is %s: one destination per table may be live", name, live.arn, live.status)
	}
	d := &kinesisDest{arn: arn, status: "ENABLING", precision: precision, until: now.Add(s.opts.Transition), next: "ACTIVE"}
	if r := arnRegion(arn); r != region(c.r) {
		d.next, d.nextDescription = "ENABLE_FAILED", fmt.Sprintf(kinesisFailure, arn, region(c.r))
	}
	kinesisOf(st).dests = append(kinesisOf(st).dests, d)
	out := map[string]any{"TableName": name, "StreamArn": arn, "DestinationStatus": d.status}
	if precision != "" {
		out["EnableKinesisStreamingConfiguration"] = map[string]any{"ApproximateCreationDateTimePrecision": precision}
	}
	return out, nil
}

// updateKinesisStreamingDestination changes an ACTIVE destination's
// precision: UPDATING, then ACTIVE
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateKinesisStreamingDestination.html).
func (s *Server) updateKinesisStreamingDestination(c *call) (any, error) {
	precision, err := precisionOf(obj(c.body, "UpdateKinesisStreamingConfiguration"))
	if err != nil {
		return nil, err
	}
	name, arn, st, err := s.kinesisTarget(c)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	d := st.liveKinesis()
	switch {
	case d == nil || d.arn != arn || d.status != "ACTIVE":
		return nil, validation("Table %s has no ACTIVE Kinesis streaming destination %s", name, arn)
	case precision == "":
		return nil, validation("UpdateKinesisStreamingConfiguration must name an ApproximateCreationDateTimePrecision")
	case precision == d.precision || (d.precision == "" && precision == "MILLISECOND"):
		return nil, validation("Precision is already set to %s", precision)
	}
	d.precision, d.status = precision, "UPDATING"
	d.until, d.next, d.nextDescription = time.Now().Add(s.opts.Transition), "ACTIVE", ""
	return map[string]any{"TableName": name, "StreamArn": arn, "DestinationStatus": d.status,
		"UpdateKinesisStreamingConfiguration": map[string]any{"ApproximateCreationDateTimePrecision": precision}}, nil
}

// disableKinesisStreamingDestination "Stops replication from the DynamoDB
// table to the Kinesis data stream": DISABLING, then DISABLED, the entry
// still listed
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DisableKinesisStreamingDestination.html).
func (s *Server) disableKinesisStreamingDestination(c *call) (any, error) {
	name, arn, st, err := s.kinesisTarget(c)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	d := st.liveKinesis()
	if d == nil || d.arn != arn || d.status != "ACTIVE" {
		return nil, validation("Table %s has no ACTIVE Kinesis streaming destination %s", name, arn)
	}
	d.status, d.until, d.next, d.nextDescription = "DISABLING", time.Now().Add(s.opts.Transition), "DISABLED", ""
	return map[string]any{"TableName": name, "StreamArn": arn, "DestinationStatus": d.status}, nil
}

// arnRegion is the Region field of an ARN (arn:partition:service:region:...).
func arnRegion(arn string) string {
	parts := strings.SplitN(arn, ":", 5)
	if len(parts) < 5 {
		return ""
	}
	return parts[3]
}
