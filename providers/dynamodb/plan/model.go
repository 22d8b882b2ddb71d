package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Table is the part of a table the adapter manages, in one normal form for
// both sides: what the spec asks for (Desired) and what AWS reports
// (Observed, then each feature's own read). A nil pointer or empty string
// on the desired side means "the user did not say": the planner ignores
// whatever AWS reports for it. Each field belongs to one feature, whose
// file says how it is desired, observed, compared and changed.
type Table struct {
	Status      string // observed only: ACTIVE, UPDATING, ...
	BillingMode string
	Throughput  *Throughput // nil on PAY_PER_REQUEST
	GSIs        []Index
	// Stream is the stream view type, "" for no stream. Unlike the other
	// fields it is always managed: an absent streamSpecification means off.
	Stream             string
	TTL                *TTL
	PITR               *bool
	PITRDays           *int32
	DeletionProtection *bool
	TableClass         string
	SSE                *SSE
	Tags               map[string]string
	// RemoveTags are tag keys Tether applied before and the spec no longer
	// has (desired only).
	RemoveTags []string
	// AttributeTypes are the spec's key attribute types, needed to create an index.
	AttributeTypes map[string]string

	// Carried: what each index carries too. nil is "not managed" on the
	// desired side and "not known" on the observed side, here as below.
	Carried
	Policy  *Policy
	Kinesis Kinesis // by stream ARN (kinesis.go)
	// Vectors are the vector indexes by name (vector.go).
	Vectors  map[string]Vector
	Scaling  map[string]*Scaling // by ScalingKey
	Replicas map[string]Replica  // by Region
	// RemoveScaling and RemoveReplicas are what Tether added before and the
	// spec no longer has (desired only).
	RemoveScaling  []string
	RemoveReplicas []string
	// DisassociationProtection is the table's own disassociation
	// protection (disassociation.go).
	DisassociationProtection *bool
	// Disassociate are the replicas to keep as tables of their own when
	// the spec drops them, with their DisassociationMode, and
	// DisassociationRefused those AWS refused to disassociate for this
	// spec, with AWS's words (desired only).
	Disassociate          map[string]string
	DisassociationRefused map[string]string
	// SettingsReplication is the table's GlobalTableSettingsReplicationMode
	// (multiaccount.go): desired only of a source others join, observed ""
	// where AWS reports none.
	SettingsReplication string
	// Consistency is the global table's MultiRegionConsistency, STRONG or
	// "" (EVENTUAL, or not managed on the desired side); Witnesses its
	// witnesses by Region, with their WitnessStatus (observed) or ACTIVE
	// (desired); nil is not managed or not known (mrsc.go).
	Consistency string
	Witnesses   map[string]string
}

// Throughput is provisioned capacity.
type Throughput struct{ Read, Write int64 }

func (t *Throughput) String() string { return fmt.Sprintf("%d/%d", t.Read, t.Write) }

// Key is one key schema element: Type is HASH or RANGE, Scalar the
// attribute's type (S, N or B; "" where unknown, which matches any).
type Key struct{ Name, Type, Scalar string }

// Projection is an index's projection, its non-key attributes sorted.
type Projection struct {
	Type   string
	NonKey []string // sorted
}

// Index is a global secondary index.
type Index struct {
	Name       string
	Keys       []Key
	Projection Projection
	Throughput *Throughput
	Status     string // observed only
	// Backfilling: observed, an index UpdateTable created that is CREATING
	// and being filled from the table (API GlobalSecondaryIndexDescription).
	Backfilling bool
	// Reported is the capacity AWS reports even on PAY_PER_REQUEST
	// (observed only): DynamoDB Local keeps the old values there.
	Reported *Throughput
	Carried
}

// Carried is what the table and each of its indexes carry alike, each
// setting planned the same way on both (indexed.go).
type Carried struct {
	OnDemand *OnDemand
	Warm     *Warm
	Insights *Insights
}

// carried is what the table carries, then what each of its indexes does.
func (t *Table) carried() []*Carried {
	out := make([]*Carried, 0, 1+len(t.GSIs))
	out = append(out, &t.Carried)
	for i := range t.GSIs {
		out = append(out, &t.GSIs[i].Carried)
	}
	return out
}

// TTL is the table's time to live (ttl.go).
type TTL struct {
	Attribute string
	Enabled   bool
	// Status is AWS's TimeToLiveStatus (observed only): ENABLING counts as
	// enabled and DISABLING as disabled, so a change in flight is not resent.
	Status string
}

// SSE is the table's encryption at rest (sse.go).
type SSE struct {
	Enabled bool
	KMSKey  string // desired: as written; observed: the key ARN
}

// OnDemand is a PAY_PER_REQUEST table's or index's request unit caps
// (ondemand.go). 0 means no cap; on the desired side a nil field is not
// managed.
type OnDemand struct{ Read, Write *int64 }

// Warm is a table's or index's warm throughput, a floor (warm.go).
type Warm struct {
	Read, Write *int64
	// Status is UPDATING while a raise is in progress (observed only).
	Status string
}

// Insights is CloudWatch Contributor Insights of the table or one index
// (insights.go).
type Insights struct {
	Enabled bool
	// Mode is ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS; "" is not
	// managed (desired) or not reported (observed).
	Mode string
	// Status is AWS's status (observed only): ENABLING counts as on and
	// DISABLING as off, so a change in flight is not sent again.
	Status string
	// Failure is AWS's reason for a FAILED status (observed only), as
	// "ExceptionName: ExceptionDescription".
	Failure string
}

// Policy is a table's resource-based policy, compared as parsed JSON
// (policy.go).
type Policy struct {
	Doc  any
	Text string // compact JSON, as sent (desired)
	// Revision is AWS's revision id (observed), or on a desired removal the
	// revision Tether attached (status.resourcePolicyRevisionId).
	Revision string
	// Absent: observed, the table has no policy; desired, remove the one
	// Tether attached.
	Absent bool
}

// Scaling is one capacity's autoscaling, keyed in a table by ScalingKey
// (autoscaling.go).
type Scaling struct {
	Min, Max int32
	Target   int32 // percent
	// ScaleIn and ScaleOut are cooldowns in seconds; nil is not managed
	// (desired) or not reported (observed).
	ScaleIn, ScaleOut *int32
	// Registered and HasPolicy: the scalable target and Tether's
	// target-tracking policy exist (observed only).
	Registered, HasPolicy bool
}

// Replica is one Region of a global table (replicas.go). On the desired
// side an empty or nil field is not managed.
type Replica struct {
	KMSKey       string
	TableClass   string
	ReadCapacity *int64 // provisioned read capacity override
	MaxReads     *int64 // on-demand read request cap override
	Indexes      map[string]ReplicaIndex
	Status       string // observed only
	Description  string // observed only
}

// ReplicaIndex is a replica's overrides for one index.
type ReplicaIndex struct{ ReadCapacity, MaxReads *int64 }

// Reads are the answers of the reads besides DescribeTable, in the model's
// form: the adapter keeps them between passes and each feature takes its
// own into the observed table (Adopt).
type Reads struct {
	TTL      *TTL
	PITR     *bool
	PITRDays *int32
	Tags     map[string]string
	Insights map[string]*Insights // "" for the table, else the index name
	Policy   *Policy
	Scaling  map[string]*Scaling
	Kinesis  Kinesis
}

// index looks an index up by name.
func (t *Table) index(name string) (Index, bool) {
	for _, ix := range t.GSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	return Index{}, false
}

func (t *Table) removeIndex(name string) {
	t.GSIs = slices.DeleteFunc(t.GSIs, func(ix Index) bool { return ix.Name == name })
}

// clone copies what the planner mutates.
func (t *Table) clone() *Table {
	c := *t
	c.GSIs = slices.Clone(t.GSIs)
	if t.Tags != nil {
		c.Tags = maps.Clone(t.Tags)
	}
	c.Scaling, c.Replicas, c.Kinesis = maps.Clone(t.Scaling), maps.Clone(t.Replicas), maps.Clone(t.Kinesis)
	c.Witnesses = maps.Clone(t.Witnesses)
	c.Vectors = maps.Clone(t.Vectors)
	return &c
}

// sameKeys compares key schemas, attribute types included where both
// sides know them.
func sameKeys(a, b []Key) bool {
	return slices.EqualFunc(a, b, func(x, y Key) bool {
		return x.Name == y.Name && x.Type == y.Type && (x.Scalar == "" || y.Scalar == "" || x.Scalar == y.Scalar)
	})
}

func withoutScalars(keys []Key) []Key {
	out := slices.Clone(keys)
	for i := range out {
		out[i].Scalar = ""
	}
	return out
}

// withScalars fills in the keys' attribute types.
func withScalars(keys []Key, scalars map[string]string) []Key {
	for i := range keys {
		keys[i].Scalar = scalars[keys[i].Name]
	}
	return keys
}

func specKeys(ks []awsv1alpha1.KeySchemaElement) []Key {
	out := make([]Key, 0, len(ks))
	for _, k := range ks {
		out = append(out, Key{Name: k.AttributeName, Type: k.KeyType})
	}
	return out
}

func awsKeys(ks []types.KeySchemaElement) []Key {
	out := make([]Key, 0, len(ks))
	for _, k := range ks {
		out = append(out, Key{Name: aws.ToString(k.AttributeName), Type: string(k.KeyType)})
	}
	// HASH first, as in the spec, whatever order AWS answers in.
	slices.SortStableFunc(out, func(a, b Key) int { return strings.Compare(a.Type, b.Type) })
	return out
}

func awsKeySchema(keys []Key) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, 0, len(keys))
	for _, k := range keys {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyType(k.Type)})
	}
	return out
}

func specAttributeTypes(defs []awsv1alpha1.AttributeDefinition) map[string]string {
	out := map[string]string{}
	for _, a := range defs {
		out[a.AttributeName] = a.AttributeType
	}
	return out
}

func awsAttributeTypes(defs []types.AttributeDefinition) map[string]string {
	out := map[string]string{}
	for _, a := range defs {
		out[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	return out
}

func specProjection(p awsv1alpha1.Projection) Projection {
	out := Projection{Type: orDefault(p.ProjectionType, string(types.ProjectionTypeAll)), NonKey: slices.Clone(p.NonKeyAttributes)}
	slices.Sort(out.NonKey)
	return out
}

func awsProjection(p *types.Projection) Projection {
	if p == nil {
		return Projection{Type: string(types.ProjectionTypeAll)}
	}
	out := Projection{Type: orDefault(string(p.ProjectionType), string(types.ProjectionTypeAll)), NonKey: slices.Clone(p.NonKeyAttributes)}
	slices.Sort(out.NonKey)
	if len(out.NonKey) == 0 {
		out.NonKey = nil
	}
	return out
}

func awsProjectionOf(p Projection) *types.Projection {
	out := &types.Projection{ProjectionType: types.ProjectionType(p.Type)}
	if len(p.NonKey) > 0 {
		out.NonKeyAttributes = slices.Clone(p.NonKey)
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// onOff is how a description says a switch is turned.
func onOff(enabled bool) string {
	if enabled {
		return "enable"
	}
	return "disable"
}
