package dynamodb

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// table is the part of a table the adapter manages, in one normal form for
// both sides: what the spec asks for and what AWS reports. A nil pointer or
// empty string on the desired side means "the user did not say": the diff
// ignores whatever AWS reports for it.
type table struct {
	Status      string // observed only: ACTIVE, UPDATING, ...
	BillingMode string
	Throughput  *throughput // nil on PAY_PER_REQUEST
	GSIs        []index
	// Stream is the stream view type, "" for no stream. Unlike the other
	// fields it is always managed: an absent streamSpecification means off.
	Stream             string
	TTL                *ttl
	PITR               *bool
	DeletionProtection *bool
	TableClass         string
	SSE                *sse
	Tags               map[string]string
	// RemoveTags are tag keys Tether applied before and the spec no longer
	// has (desired only).
	RemoveTags []string
	// AttributeTypes are the spec's key attribute types, needed to create an index.
	AttributeTypes map[string]string

	// The newer features, each in a file of its own. nil is "not managed"
	// on the desired side and "not known" on the observed side.
	OnDemand *onDemand
	Warm     *warm
	PITRDays *int32
	Insights *insights
	Policy   *policy
	Scaling  map[string]*scaling // by scalingKey
	Replicas map[string]replica  // by Region
	// RemoveScaling and RemoveReplicas are what Tether added before and the
	// spec no longer has (desired only).
	RemoveScaling  []string
	RemoveReplicas []string
}

type throughput struct{ Read, Write int64 }

func (t *throughput) String() string { return fmt.Sprintf("%d/%d", t.Read, t.Write) }

// key is one key schema element: Type is HASH or RANGE, Scalar the
// attribute's type (S, N or B; "" where unknown, which matches any).
type key struct{ Name, Type, Scalar string }

// sameKeys compares key schemas, attribute types included where both
// sides know them.
func sameKeys(a, b []key) bool {
	return slices.EqualFunc(a, b, func(x, y key) bool {
		return x.Name == y.Name && x.Type == y.Type && (x.Scalar == "" || y.Scalar == "" || x.Scalar == y.Scalar)
	})
}

type projection struct {
	Type   string
	NonKey []string // sorted
}

type index struct {
	Name       string
	Keys       []key
	Projection projection
	Throughput *throughput
	Status     string // observed only
	// Backfilling: observed, an index UpdateTable created that is CREATING
	// and being filled from the table (API GlobalSecondaryIndexDescription).
	Backfilling bool
	// Reported is the capacity AWS reports even on PAY_PER_REQUEST
	// (observed only): DynamoDB Local keeps the old values there.
	Reported *throughput
	OnDemand *onDemand
	Warm     *warm
	Insights *insights
}

type ttl struct {
	Attribute string
	Enabled   bool
	// Status is AWS's TimeToLiveStatus (observed only): ENABLING counts as
	// enabled and DISABLING as disabled, so a change in flight is not resent.
	Status string
}

type sse struct {
	Enabled bool
	KMSKey  string // desired: as written; observed: the key ARN
}

// index looks an index up by name.
func (t *table) index(name string) (index, bool) {
	for _, ix := range t.GSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	return index{}, false
}

// sameShape says whether two definitions of an index have the same key
// schema (attribute types included) and projection, the parts DynamoDB
// cannot change in place.
func (ix index) sameShape(other index) bool { return ix.shapeChange(other) == "" }

// shapeChange names what differs between two definitions of an index that
// DynamoDB cannot change in place, "" when nothing does.
func (ix index) shapeChange(other index) string {
	switch {
	case !sameKeys(withoutScalars(ix.Keys), withoutScalars(other.Keys)):
		return "key schema"
	case !sameKeys(ix.Keys, other.Keys):
		return "key attribute type"
	case ix.Projection.Type != other.Projection.Type || !slices.Equal(ix.Projection.NonKey, other.Projection.NonKey):
		return "projection"
	}
	return ""
}

func withoutScalars(keys []key) []key {
	out := slices.Clone(keys)
	for i := range out {
		out[i].Scalar = ""
	}
	return out
}

// desiredTable normalises a spec. tags are all the tags the table should
// carry (the spec's, the operator's defaults, Tether's owner tags), which
// the provider assembles.
func desiredTable(spec *awsv1alpha1.DynamoDBTableSpec, tags map[string]string) *table {
	t := &table{
		BillingMode:        orDefault(spec.BillingMode, awsv1alpha1.BillingModePayPerRequest),
		Throughput:         specThroughput(spec.ProvisionedThroughput),
		DeletionProtection: spec.DeletionProtectionEnabled,
		TableClass:         spec.TableClass,
		AttributeTypes:     specAttributeTypes(spec.AttributeDefinitions),
	}
	if t.BillingMode == awsv1alpha1.BillingModePayPerRequest {
		t.Throughput = nil
	}
	for _, g := range spec.GlobalSecondaryIndexes {
		ix := index{Name: g.IndexName, Keys: withScalars(specKeys(g.KeySchema), t.AttributeTypes), Projection: specProjection(g.Projection)}
		if t.BillingMode == awsv1alpha1.BillingModeProvisioned {
			ix.Throughput = specThroughput(g.ProvisionedThroughput)
		}
		ix.OnDemand, ix.Warm, ix.Insights = specOnDemand(g.OnDemandThroughput), specWarm(g.WarmThroughput), specInsights(g.ContributorInsightsSpecification)
		t.GSIs = append(t.GSIs, ix)
	}
	if s := spec.StreamSpecification; s != nil {
		t.Stream = s.StreamViewType
	}
	if s := spec.TimeToLiveSpecification; s != nil {
		t.TTL = &ttl{Attribute: s.AttributeName, Enabled: s.Enabled}
	}
	if s := spec.PointInTimeRecoverySpecification; s != nil {
		t.PITR = aws.Bool(s.PointInTimeRecoveryEnabled)
		t.PITRDays = s.RecoveryPeriodInDays
	}
	t.OnDemand, t.Warm, t.Insights = specOnDemand(spec.OnDemandThroughput), specWarm(spec.WarmThroughput), specInsights(spec.ContributorInsightsSpecification)
	t.Scaling, t.Replicas = specScaling(spec), specReplicas(spec)
	if s := spec.SSESpecification; s != nil {
		t.SSE = &sse{Enabled: s.SSEEnabled, KMSKey: s.KMSMasterKeyID}
	}
	if len(tags) > 0 {
		t.Tags = maps.Clone(tags)
	}
	return t
}

// observedTable normalises DescribeTable's answer. The secondary reads
// (TTL, backups, tags) are filled in by the caller, only when the spec uses
// them.
func observedTable(d *types.TableDescription) *table {
	t := &table{Status: string(d.TableStatus), BillingMode: awsv1alpha1.BillingModeProvisioned}
	// AWS leaves BillingModeSummary out for tables that were always PROVISIONED.
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		t.BillingMode = string(d.BillingModeSummary.BillingMode)
	}
	provisioned := t.BillingMode == awsv1alpha1.BillingModeProvisioned
	if provisioned {
		t.Throughput = awsThroughput(d.ProvisionedThroughput)
	}
	scalars := awsAttributeTypes(d.AttributeDefinitions)
	for _, g := range d.GlobalSecondaryIndexes {
		ix := index{Name: aws.ToString(g.IndexName), Keys: withScalars(awsKeys(g.KeySchema), scalars),
			Projection: awsProjection(g.Projection), Status: string(g.IndexStatus), Backfilling: aws.ToBool(g.Backfilling),
			Reported: awsThroughput(g.ProvisionedThroughput),
			OnDemand: awsOnDemand(g.OnDemandThroughput), Warm: awsIndexWarm(g.WarmThroughput)}
		if provisioned {
			ix.Throughput = awsThroughput(g.ProvisionedThroughput)
		}
		t.GSIs = append(t.GSIs, ix)
	}
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		t.Stream = string(s.StreamViewType)
	}
	t.DeletionProtection = aws.Bool(aws.ToBool(d.DeletionProtectionEnabled))
	t.TableClass = string(types.TableClassStandard)
	if d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
		t.TableClass = string(d.TableClassSummary.TableClass)
	}
	t.SSE = &sse{}
	if s := d.SSEDescription; s != nil && (s.Status == types.SSEStatusEnabled || s.Status == types.SSEStatusEnabling) {
		t.SSE = &sse{Enabled: true, KMSKey: aws.ToString(s.KMSMasterKeyArn)}
	}
	t.OnDemand, t.Warm, t.Replicas = awsOnDemand(d.OnDemandThroughput), awsTableWarm(d.WarmThroughput), awsReplicas(d)
	return t
}

// busy says what AWS is still doing to the table, "" when it is idle. No
// UpdateTable is legal until it is.
func (t *table) busy() string {
	if t.Status != string(types.TableStatusActive) {
		return fmt.Sprintf("table is %s", t.Status)
	}
	for _, ix := range t.GSIs {
		if ix.Status != "" && ix.Status != string(types.IndexStatusActive) {
			return fmt.Sprintf("index %s is %s", ix.Name, ix.Status)
		}
	}
	return replicasBusy(t.Replicas)
}

func specThroughput(p *awsv1alpha1.ProvisionedThroughput) *throughput {
	if p == nil {
		return nil
	}
	return &throughput{Read: p.ReadCapacityUnits, Write: p.WriteCapacityUnits}
}

func awsThroughput(p *types.ProvisionedThroughputDescription) *throughput {
	if p == nil {
		return &throughput{}
	}
	return &throughput{Read: aws.ToInt64(p.ReadCapacityUnits), Write: aws.ToInt64(p.WriteCapacityUnits)}
}

func specKeys(ks awsv1alpha1.KeySchema) []key {
	out := make([]key, 0, len(ks))
	for _, k := range ks {
		out = append(out, key{Name: k.AttributeName, Type: k.KeyType})
	}
	return out
}

func awsKeys(ks []types.KeySchemaElement) []key {
	out := make([]key, 0, len(ks))
	for _, k := range ks {
		out = append(out, key{Name: aws.ToString(k.AttributeName), Type: string(k.KeyType)})
	}
	// HASH first, as in the spec, whatever order AWS answers in.
	slices.SortStableFunc(out, func(a, b key) int { return strings.Compare(a.Type, b.Type) })
	return out
}

// withScalars fills in the keys' attribute types.
func withScalars(keys []key, scalars map[string]string) []key {
	for i := range keys {
		keys[i].Scalar = scalars[keys[i].Name]
	}
	return keys
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

func specProjection(p awsv1alpha1.Projection) projection {
	out := projection{Type: orDefault(p.ProjectionType, string(types.ProjectionTypeAll)), NonKey: slices.Clone(p.NonKeyAttributes)}
	slices.Sort(out.NonKey)
	return out
}

func awsProjection(p *types.Projection) projection {
	if p == nil {
		return projection{Type: string(types.ProjectionTypeAll)}
	}
	out := projection{Type: orDefault(string(p.ProjectionType), string(types.ProjectionTypeAll)), NonKey: slices.Clone(p.NonKeyAttributes)}
	slices.Sort(out.NonKey)
	if len(out.NonKey) == 0 {
		out.NonKey = nil
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// immutableMismatch names what the spec and an existing table disagree on
// that no update can fix (the key schema and its attribute types, the
// local secondary indexes), "" when they agree. It matters for adopted
// tables: Tether's own were created from a spec that cannot change these
// fields (the API server refuses it).
func immutableMismatch(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) string {
	wantTypes, haveTypes := specAttributeTypes(spec.AttributeDefinitions), awsAttributeTypes(d.AttributeDefinitions)
	want, have := withScalars(specKeys(spec.KeySchema), wantTypes), withScalars(awsKeys(d.KeySchema), haveTypes)
	if !sameKeys(withoutScalars(want), withoutScalars(have)) {
		return "keySchema"
	}
	if diff := scalarDifferences(want, have); diff != "" {
		return "key attribute type (" + diff + ")"
	}
	wantLSIs := map[string]index{}
	for _, l := range spec.LocalSecondaryIndexes {
		wantLSIs[l.IndexName] = index{Keys: withScalars(specKeys(l.KeySchema), wantTypes), Projection: specProjection(l.Projection)}
	}
	if len(wantLSIs) != len(d.LocalSecondaryIndexes) {
		return "localSecondaryIndexes"
	}
	for _, l := range d.LocalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		w, ok := wantLSIs[name]
		if !ok {
			return "localSecondaryIndexes"
		}
		h := index{Keys: withScalars(awsKeys(l.KeySchema), haveTypes), Projection: awsProjection(l.Projection)}
		switch w.shapeChange(h) {
		case "":
		case "key attribute type":
			return fmt.Sprintf("local secondary index %s's key attribute type (%s)", name, scalarDifferences(w.Keys, h.Keys))
		default:
			return "localSecondaryIndexes"
		}
	}
	return ""
}

// scalarDifferences lists the key attributes whose types differ, as
// "pk is S in DynamoDB, N in the spec".
func scalarDifferences(want, have []key) string {
	var out []string
	for i := range min(len(want), len(have)) {
		w, h := want[i], have[i]
		if w.Scalar != "" && h.Scalar != "" && w.Scalar != h.Scalar {
			out = append(out, fmt.Sprintf("%s is %s in DynamoDB, %s in the spec", w.Name, h.Scalar, w.Scalar))
		}
	}
	return strings.Join(out, "; ")
}
