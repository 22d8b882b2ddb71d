package plan

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// FuzzPlan: for any spec the API server accepts and any table DynamoDB may
// describe, the planner does not panic and every step it emits is one AWS
// accepts for the table as the earlier steps leave it:
//   - one kind of change per call, at most one index created or deleted;
//   - a switch to PROVISIONED carries the table's throughput and every
//     remaining index's (unless already reported at that value);
//   - no throughput on PAY_PER_REQUEST, throughput on every index created
//     on PROVISIONED;
//   - nothing touches what cannot change (table name, key schema, LSIs, an
//     index whose shape changed without the replacement annotation);
//   - the newer features' steps follow their rules (plan_fuzz_newer_test.go):
//     one replica action per call, after the stream and the capacity mode it
//     needs; on-demand limits only on PAY_PER_REQUEST; warm throughput only
//     raised; an autoscaling policy only on a registered target; ...;
//   - applying the steps leaves nothing to do (no endless corrections).
//
// The input bytes drive a small generator (fuzzSource), so every byte string
// is a valid case and the committed corpus is plain bytes.
func FuzzPlan(f *testing.F) {
	for _, seed := range []string{
		"",
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		"\x01\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0\xef\xee\xed",
		"provisioned with indexes, switching billing both ways",
		"\x01\x03\x01\x02\x05\x01\x01\x01\x02\x00\x01\x03\x02\x02\x01\x01\x00\x03\x01\x01\x01\x02\x03\x00\x01\x02\x01\x03",
		strings.Repeat("\x07\x01\x03", 40),
		strings.Repeat("\x80\x41\xc3\x12", 30),
	} {
		f.Add([]byte(seed))
	}
	// Long inputs reach the newer features' choices, which come last.
	for i := range 8 {
		f.Add(longSeed(uint64(i)))
	}
	// Longer ones reach the vector indexes' (plan_fuzz_vector_test.go).
	for i := range 4 {
		f.Add(append(longSeed(uint64(i)), longSeed(uint64(100+i))...))
	}
	for _, seed := range seeds2026() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &fuzzSource{data: data}
		spec := src.spec()
		desc, secondary := src.described()
		allow := src.bool()

		const name = "fuzz-table"
		removeTags := src.removeTags()
		newer := src.newer(spec, desc)
		src.newer2026(spec, desc)
		src.disassociation2026(spec, desc)
		src.vectors2026(spec, desc)
		strong := src.mrsc2026(spec, desc)
		kinesis := src.kinesis2026(spec)
		tags := map[string]string{"tether.dev/owner": "uid"}
		maps.Copy(tags, spec.Tags)
		want := Desired(spec, tags)
		want.RemoveTags = removeTags
		want.DisassociationRefused = src.disassociationRefused()
		have := Observed(desc)
		have.TTL, have.PITR, have.Tags = secondary.TTL, secondary.PITR, secondary.Tags
		newer.apply(want, have)
		strong.apply(want)
		kinesis.apply(spec, want, have)
		joined := src.multiAccount(want, have)
		haveCopy := have.clone()

		p := Compute(name, want, have, Options{AllowIndexReplacement: allow})
		if p == nil {
			t.Fatal("nil plan")
		}
		_ = p.String()
		if fmt.Sprint(have.GSIs) != fmt.Sprint(haveCopy.GSIs) || fmt.Sprint(have.Tags) != fmt.Sprint(haveCopy.Tags) {
			t.Fatal("plan changed the observed table it was given")
		}
		checkPlan(t, name, want, have, allow, p)
		joined(t.Fatalf, p)
		checkVectorPlan(t, spec, want, have, p)

		after := applyPlan(t, have.clone(), p)
		if again := Compute(name, want, after, Options{AllowIndexReplacement: allow}); len(again.Steps) > 0 {
			t.Fatalf("after applying %v, the planner still wants %v", p.Descriptions(), again.Descriptions())
		}
	})
}

// checkPlan walks the steps keeping the billing mode and the indexes as
// each step leaves them.
func checkPlan(t *testing.T, name string, want, have *Table, allow bool, p *Plan) {
	t.Helper()
	mode := have.BillingMode
	indexes := map[string]Index{}
	for _, ix := range have.GSIs {
		indexes[ix.Name] = ix
	}
	frozen := map[string]bool{} // shape changed, replacement not allowed
	for _, ix := range have.GSIs {
		if w, ok := want.index(ix.Name); ok && !w.sameShape(ix) && !allow {
			frozen[ix.Name] = true
		}
	}
	if len(frozen) > 0 && p.Blocked == "" {
		t.Fatalf("index shape changed without the annotation but the plan is not blocked: %v", p.Descriptions())
	}

	newer := newNewerCheck(want, have)
	for i, s := range p.Steps {
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("step %d (%s %q) of %v: %s", i, s.Kind, s.Description, p.Descriptions(), fmt.Sprintf(format, args...))
		}
		newer.check(fail, s, mode, indexes)
		inputs := 0
		for _, set := range []bool{s.Table != nil, s.TTL != nil, s.Backups != nil, len(s.Tags) > 0, len(s.UntagKeys) > 0,
			s.Insights != nil, s.PutPolicy != nil, s.DeletePolicy != nil, s.Register != nil, s.ScalingPolicy != nil, s.Deregister != nil,
			s.KinesisEnable != nil, s.KinesisUpdate != nil, s.KinesisDisable != nil} {
			if set {
				inputs++
			}
		}
		if inputs != 1 {
			fail("%d inputs set, want exactly one", inputs)
		}
		switch {
		case s.TTL != nil:
			if aws.ToString(s.TTL.TableName) != name || s.TTL.TimeToLiveSpecification == nil || aws.ToString(s.TTL.TimeToLiveSpecification.AttributeName) == "" {
				fail("bad TTL input %+v", s.TTL)
			}
			continue
		case s.Backups != nil:
			if aws.ToString(s.Backups.TableName) != name || s.Backups.PointInTimeRecoverySpecification == nil {
				fail("bad backups input")
			}
			continue
		case s.Table == nil:
			continue
		}

		in := s.Table
		if aws.ToString(in.TableName) != name {
			fail("renames the table to %q", aws.ToString(in.TableName))
		}
		checkIndexKeys(fail, want, in)
		var creates, deletes, updates []types.GlobalSecondaryIndexUpdate
		for _, u := range in.GlobalSecondaryIndexUpdates {
			n := 0
			if u.Create != nil {
				creates, n = append(creates, u), n+1
			}
			if u.Delete != nil {
				deletes, n = append(deletes, u), n+1
			}
			if u.Update != nil && u.Update.ProvisionedThroughput != nil {
				updates, n = append(updates, u), n+1
			} else if u.Update != nil {
				n++ // on-demand limits or warm throughput: newerCheck
			}
			if n != 1 {
				fail("an index update with %d actions", n)
			}
		}
		other := in.BillingMode != "" || in.ProvisionedThroughput != nil || in.StreamSpecification != nil ||
			in.DeletionProtectionEnabled != nil || in.DisassociationProtectionEnabled != nil || in.TableClass != "" || in.SSESpecification != nil || len(updates) > 0 ||
			in.OnDemandThroughput != nil || in.WarmThroughput != nil || len(in.ReplicaUpdates) > 0 ||
			len(in.GlobalSecondaryIndexUpdates) > len(creates)+len(deletes)
		if len(creates)+len(deletes) > 1 {
			fail("%d index creates/deletes in one call (AWS allows one)", len(creates)+len(deletes))
		}
		if len(creates)+len(deletes) == 1 && other {
			fail("an index create/delete combined with another change")
		}
		if len(in.AttributeDefinitions) > 0 && len(creates) == 0 && len(in.VectorIndexUpdates) == 0 {
			fail("attribute definitions without an index to create")
		}
		if in.StreamSpecification != nil && (in.BillingMode != "" || in.ProvisionedThroughput != nil || len(updates) > 0) {
			fail("stream change combined with a capacity change")
		}

		for _, u := range deletes {
			n := aws.ToString(u.Delete.IndexName)
			if _, ok := indexes[n]; !ok {
				fail("deletes index %s, which does not exist", n)
			}
			if frozen[n] {
				fail("deletes index %s without the replacement annotation", n)
			}
			delete(indexes, n)
		}
		for _, u := range creates {
			c := u.Create
			n := aws.ToString(c.IndexName)
			if _, ok := indexes[n]; ok {
				fail("creates index %s, which exists", n)
			}
			defined := map[string]bool{}
			for _, a := range in.AttributeDefinitions {
				if a.AttributeType == "" {
					fail("attribute %s without a type", aws.ToString(a.AttributeName))
				}
				defined[aws.ToString(a.AttributeName)] = true
			}
			for _, k := range c.KeySchema {
				if !defined[aws.ToString(k.AttributeName)] {
					fail("index key %s not in the attribute definitions", aws.ToString(k.AttributeName))
				}
			}
			if len(c.KeySchema) == 0 || c.KeySchema[0].KeyType != types.KeyTypeHash || c.Projection == nil {
				fail("index %s without a HASH key first or a projection", n)
			}
			switch mode {
			case awsv1alpha1.BillingModePayPerRequest:
				if c.ProvisionedThroughput != nil {
					fail("index %s created with throughput on PAY_PER_REQUEST", n)
				}
			default:
				checkCapacity(fail, "index "+n, c.ProvisionedThroughput)
			}
			indexes[n] = Index{Name: n}
		}

		newMode := mode
		if in.BillingMode != "" {
			if s.Kind != StepSwitchBilling || string(in.BillingMode) == mode {
				fail("billing mode %s sent in a %s step while the table is %s", in.BillingMode, s.Kind, mode)
			}
			newMode = string(in.BillingMode)
		}
		if newMode == awsv1alpha1.BillingModePayPerRequest {
			if in.ProvisionedThroughput != nil || len(updates) > 0 {
				fail("throughput sent for a PAY_PER_REQUEST table")
			}
		}
		if in.ProvisionedThroughput != nil {
			checkCapacity(fail, "table", in.ProvisionedThroughput)
		}
		carried := map[string]bool{}
		for _, u := range updates {
			n := aws.ToString(u.Update.IndexName)
			if _, ok := indexes[n]; !ok {
				fail("updates index %s, which does not exist", n)
			}
			checkCapacity(fail, "index "+n, u.Update.ProvisionedThroughput)
			carried[n] = true
		}
		if in.BillingMode == types.BillingModeProvisioned {
			if in.ProvisionedThroughput == nil {
				fail("switch to PROVISIONED without the table's throughput")
			}
			for n, ix := range indexes {
				w, _ := want.index(n)
				if !carried[n] && (ix.Reported == nil || w.Throughput == nil || *ix.Reported != *w.Throughput) {
					fail("switch to PROVISIONED does not carry index %s's throughput", n)
				}
			}
		}
		mode = newMode
	}
}

func checkCapacity(fail func(string, ...any), what string, p *types.ProvisionedThroughput) {
	if p == nil || aws.ToInt64(p.ReadCapacityUnits) < 1 || aws.ToInt64(p.WriteCapacityUnits) < 1 {
		fail("%s: missing or non-positive throughput %+v", what, p)
	}
}

// applyPlan does to the model what AWS does for each step.
func applyPlan(t *testing.T, tb *Table, p *Plan) *Table {
	t.Helper()
	for _, s := range p.Steps {
		switch {
		case s.Table != nil:
			applyTableStep(tb, s.Table)
		case s.TTL != nil:
			on := aws.ToBool(s.TTL.TimeToLiveSpecification.Enabled)
			status := map[bool]string{true: "ENABLED", false: "DISABLED"}[on]
			tb.TTL = &TTL{Attribute: aws.ToString(s.TTL.TimeToLiveSpecification.AttributeName), Enabled: on, Status: status}
		case s.Backups != nil:
			tb.PITR = aws.Bool(aws.ToBool(s.Backups.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled))
			tb.PITRDays = nil
			if *tb.PITR {
				tb.PITRDays = aws.Int32(35)
				if d := s.Backups.PointInTimeRecoverySpecification.RecoveryPeriodInDays; d != nil {
					tb.PITRDays = d
				}
			}
		case len(s.Tags) > 0:
			for _, tag := range s.Tags {
				tb.Tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
			}
		case len(s.UntagKeys) > 0:
			for _, k := range s.UntagKeys {
				delete(tb.Tags, k)
			}
		default:
			applyNewer(tb, s)
		}
	}
	return tb
}

func applyTableStep(tb *Table, in *dynamodb.UpdateTableInput) {
	defer applyNewerTable(tb, in)
	applyMultiAccountTable(tb, in)
	defer applyVectorStep(tb, in)
	toTP := func(p *types.ProvisionedThroughput) *Throughput {
		return &Throughput{Read: aws.ToInt64(p.ReadCapacityUnits), Write: aws.ToInt64(p.WriteCapacityUnits)}
	}
	if in.BillingMode != "" {
		tb.BillingMode = string(in.BillingMode)
		for i := range tb.GSIs {
			tb.GSIs[i].Throughput = nil
			if tb.BillingMode == awsv1alpha1.BillingModeProvisioned {
				tb.GSIs[i].Throughput = tb.GSIs[i].Reported // kept unless updated below
			}
		}
		tb.Throughput = nil
	}
	if in.ProvisionedThroughput != nil {
		tb.Throughput = toTP(in.ProvisionedThroughput)
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Delete != nil:
			tb.removeIndex(aws.ToString(u.Delete.IndexName))
		case u.Create != nil:
			c := u.Create
			ix := Index{Name: aws.ToString(c.IndexName), Keys: awsKeys(c.KeySchema), Projection: awsProjection(c.Projection), Status: "ACTIVE"}
			if c.ProvisionedThroughput != nil {
				ix.Throughput, ix.Reported = toTP(c.ProvisionedThroughput), toTP(c.ProvisionedThroughput)
			}
			tb.GSIs = append(tb.GSIs, ix)
		case u.Update != nil && u.Update.ProvisionedThroughput != nil:
			for i := range tb.GSIs {
				if tb.GSIs[i].Name == aws.ToString(u.Update.IndexName) {
					tb.GSIs[i].Throughput = toTP(u.Update.ProvisionedThroughput)
					tb.GSIs[i].Reported = tb.GSIs[i].Throughput
				}
			}
		}
	}
	if s := in.StreamSpecification; s != nil {
		tb.Stream = ""
		if aws.ToBool(s.StreamEnabled) {
			tb.Stream = string(s.StreamViewType)
		}
	}
	if in.DisassociationProtectionEnabled != nil {
		tb.DisassociationProtection = aws.Bool(*in.DisassociationProtectionEnabled)
	}
	if in.DeletionProtectionEnabled != nil {
		tb.DeletionProtection = aws.Bool(*in.DeletionProtectionEnabled)
	}
	if in.TableClass != "" {
		tb.TableClass = string(in.TableClass)
	}
	if s := in.SSESpecification; s != nil {
		tb.SSE = &SSE{Enabled: aws.ToBool(s.Enabled)}
		if tb.SSE.Enabled {
			tb.SSE.KMSKey = "arn:aws:kms:eu-west-1:111122223333:key/aws-managed"
			if k := aws.ToString(s.KMSMasterKeyId); strings.HasPrefix(k, "arn:") {
				tb.SSE.KMSKey = k
			} else if k != "" {
				tb.SSE.KMSKey = "arn:aws:kms:eu-west-1:111122223333:key/" + k
			}
		}
	}
}

// fuzzSource turns bytes into choices; past the end it answers zeros.
type fuzzSource struct {
	data []byte
	pos  int
}

func (s *fuzzSource) byte() byte {
	if s.pos >= len(s.data) {
		return 0
	}
	b := s.data[s.pos]
	s.pos++
	return b
}

func (s *fuzzSource) intn(n int) int { return int(s.byte()) % n }
func (s *fuzzSource) bool() bool     { return s.byte()&1 == 1 }

func (s *fuzzSource) pick(options ...string) string { return options[s.intn(len(options))] }

var fuzzAttrs = []string{"pk", "sk", "a", "b", "c", "d"}

func (s *fuzzSource) capacity() *awsv1alpha1.ProvisionedThroughput {
	return &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: int64(1 + s.intn(4)), WriteCapacityUnits: int64(1 + s.intn(4))}
}

func (s *fuzzSource) keys() awsv1alpha1.KeySchema {
	ks := awsv1alpha1.KeySchema{{AttributeName: fuzzAttrs[s.intn(len(fuzzAttrs))], KeyType: "HASH"}}
	if s.bool() {
		r := fuzzAttrs[s.intn(len(fuzzAttrs))]
		if r != ks[0].AttributeName {
			ks = append(ks, awsv1alpha1.KeySchemaElement{AttributeName: r, KeyType: "RANGE"})
		}
	}
	return ks
}

func (s *fuzzSource) projection() awsv1alpha1.Projection {
	p := awsv1alpha1.Projection{ProjectionType: s.pick("ALL", "KEYS_ONLY", "INCLUDE", "")}
	if p.ProjectionType == "INCLUDE" {
		p.NonKeyAttributes = []string{s.pick("x", "y"), "z"}[:1+s.intn(2)]
	}
	return p
}

// spec is a DynamoDBTableSpec that passes the CRD's rules.
func (s *fuzzSource) spec() *awsv1alpha1.DynamoDBTableSpec {
	spec := &awsv1alpha1.DynamoDBTableSpec{
		KeySchema:   awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		BillingMode: s.pick(awsv1alpha1.BillingModePayPerRequest, awsv1alpha1.BillingModeProvisioned),
	}
	if s.bool() {
		spec.KeySchema = append(spec.KeySchema, awsv1alpha1.KeySchemaElement{AttributeName: "sk", KeyType: "RANGE"})
	}
	provisioned := spec.BillingMode == awsv1alpha1.BillingModeProvisioned
	if provisioned {
		spec.ProvisionedThroughput = s.capacity()
	}
	seen := map[string]bool{}
	for range s.intn(5) {
		name := s.pick("byA", "byB", "byC", "byD", "bySk")
		if seen[name] {
			continue
		}
		seen[name] = true
		g := awsv1alpha1.GlobalSecondaryIndex{IndexName: name, KeySchema: awsv1alpha1.IndexKeySchema(s.keys()), Projection: s.projection()}
		if provisioned {
			g.ProvisionedThroughput = s.capacity()
		}
		spec.GlobalSecondaryIndexes = append(spec.GlobalSecondaryIndexes, g)
	}
	used := map[string]bool{}
	for _, k := range spec.KeySchema {
		used[k.AttributeName] = true
	}
	for _, g := range spec.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			used[k.AttributeName] = true
		}
	}
	for _, a := range slices.Sorted(maps.Keys(used)) {
		spec.AttributeDefinitions = append(spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: a, AttributeType: s.pick("S", "N", "B")})
	}
	if s.bool() {
		spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: s.pick("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")}
	}
	if s.bool() {
		spec.TimeToLiveSpecification = &awsv1alpha1.TimeToLiveSpecification{AttributeName: s.pick("expires", "ttl"), Enabled: s.bool()}
	}
	if s.bool() {
		spec.PointInTimeRecoverySpecification = &awsv1alpha1.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: s.bool()}
	}
	if s.bool() {
		spec.DeletionProtectionEnabled = aws.Bool(s.bool())
	}
	spec.TableClass = s.pick("", "STANDARD", "STANDARD_INFREQUENT_ACCESS")
	if s.bool() {
		spec.SSESpecification = &awsv1alpha1.SSESpecification{SSEEnabled: s.bool()}
		if spec.SSESpecification.SSEEnabled {
			spec.SSESpecification.KMSMasterKeyID = s.pick("", "k1", "arn:aws:kms:eu-west-1:111122223333:key/k2", "alias/mine")
		}
	}
	for range s.intn(3) {
		if spec.Tags == nil {
			spec.Tags = map[string]string{}
		}
		spec.Tags[s.pick("team", "env", "cost")] = s.pick("a", "b")
	}
	return spec
}

// described is any table DynamoDB may report, and the secondary reads.
func (s *fuzzSource) described() (*types.TableDescription, *Table) {
	d := &types.TableDescription{
		TableName:   aws.String("fuzz-table"),
		TableStatus: types.TableStatus(s.pick("ACTIVE", "ACTIVE", "ACTIVE", "UPDATING", "CREATING")),
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	switch s.intn(3) {
	case 1:
		d.BillingModeSummary = &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest}
	case 2:
		d.BillingModeSummary = &types.BillingModeSummary{BillingMode: types.BillingModeProvisioned}
	}
	capacity := func() *types.ProvisionedThroughputDescription {
		if s.intn(4) == 0 {
			return nil
		}
		return &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(int64(s.intn(5))), WriteCapacityUnits: aws.Int64(int64(s.intn(5)))}
	}
	d.ProvisionedThroughput = capacity()
	seen := map[string]bool{}
	for range s.intn(5) {
		name := s.pick("byA", "byB", "byC", "byD", "bySk", "legacy")
		if seen[name] {
			continue
		}
		seen[name] = true
		ks := s.keys()
		var keys []types.KeySchemaElement
		for _, k := range ks {
			keys = append(keys, types.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: types.KeyType(k.KeyType)})
		}
		if s.bool() {
			slices.Reverse(keys) // AWS does not promise an order
		}
		p := s.projection()
		g := types.GlobalSecondaryIndexDescription{IndexName: aws.String(name), KeySchema: keys,
			IndexStatus:           types.IndexStatus(s.pick("ACTIVE", "ACTIVE", "CREATING", "DELETING", "UPDATING")),
			ProvisionedThroughput: capacity()}
		if s.intn(5) > 0 {
			g.Projection = &types.Projection{ProjectionType: types.ProjectionType(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, g)
	}
	if s.bool() {
		// The key attributes' types, which may differ from the spec's.
		for _, a := range fuzzAttrs {
			d.AttributeDefinitions = append(d.AttributeDefinitions, types.AttributeDefinition{
				AttributeName: aws.String(a), AttributeType: types.ScalarAttributeType(s.pick("S", "N", "B"))})
		}
	}
	if s.bool() {
		d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(s.bool()),
			StreamViewType: types.StreamViewType(s.pick("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"))}
	}
	if s.bool() {
		d.DeletionProtectionEnabled = aws.Bool(s.bool())
	}
	if s.bool() {
		d.TableClassSummary = &types.TableClassSummary{TableClass: types.TableClass(s.pick("STANDARD", "STANDARD_INFREQUENT_ACCESS"))}
	}
	if s.bool() {
		d.SSEDescription = &types.SSEDescription{Status: types.SSEStatus(s.pick("ENABLED", "ENABLING", "DISABLED", "UPDATING")),
			KMSMasterKeyArn: aws.String(s.pick("arn:aws:kms:eu-west-1:111122223333:key/k1", "arn:aws:kms:eu-west-1:111122223333:key/k2"))}
	}

	secondary := &Table{}
	if s.bool() {
		// AWS names the attribute whenever TTL is not plainly DISABLED.
		secondary.TTL = &TTL{Attribute: s.pick("expires", "ttl"), Status: s.pick("ENABLED", "ENABLING", "DISABLED", "DISABLING", "")}
		if secondary.TTL.Status == "DISABLED" && s.bool() {
			secondary.TTL.Attribute = ""
		}
	}
	if s.bool() {
		secondary.PITR = aws.Bool(s.bool())
	}
	if s.bool() {
		secondary.Tags = map[string]string{}
		for range s.intn(4) {
			secondary.Tags[s.pick("team", "env", "cost", "other", "tether.dev/owner")] = s.pick("a", "b", "uid")
		}
	}
	return d, secondary
}

func (s *fuzzSource) removeTags() []string {
	var out []string
	for range s.intn(3) {
		out = append(out, s.pick("team", "env", "cost", "other"))
	}
	return out
}

// longSeed is a reproducible pseudo-random input long enough for every
// choice of the generator.
func longSeed(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	out := make([]byte, 240)
	for i := range out {
		out[i] = byte(r.IntN(256))
	}
	return out
}
