package plan

import (
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// FuzzPlan's part for issue 40's features (DynamoDB as AWS ships it in
// 2026): what the generator adds to the spec and to what AWS reports, and
// the legality rules of their steps. Its choices come after all the
// others, so the committed corpus keeps its meaning.

// fuzzKeyAttrs are the attributes multi-attribute index keys add.
var fuzzKeyAttrs = []string{"m1", "m2", "m3", "m4", "m5", "m6"}

// newer2026 gives some of the spec's indexes, and some of the indexes AWS
// reports, keys of more than one HASH or RANGE attribute, as the CRD
// allows them (at most four of each, HASH first, no attribute twice),
// each with its type defined.
func (s *fuzzSource) newer2026(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) {
	for i := range spec.GlobalSecondaryIndexes {
		if g := &spec.GlobalSecondaryIndexes[i]; s.bool() {
			g.KeySchema = s.multiKeys(g.KeySchema)
		}
	}
	defined := map[string]bool{}
	for _, a := range spec.AttributeDefinitions {
		defined[a.AttributeName] = true
	}
	for _, g := range spec.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			if !defined[k.AttributeName] {
				defined[k.AttributeName] = true
				spec.AttributeDefinitions = append(spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{
					AttributeName: k.AttributeName, AttributeType: s.pick("S", "N", "B")})
			}
		}
	}
	for i := range d.GlobalSecondaryIndexes {
		g := &d.GlobalSecondaryIndexes[i]
		switch s.intn(3) {
		case 1: // as the spec says, when it has the index: in sync
			for _, w := range spec.GlobalSecondaryIndexes {
				if w.IndexName == aws.ToString(g.IndexName) {
					g.KeySchema = awsKeySchema(specKeys(w.KeySchema))
				}
			}
		case 2: // keys of its own
			g.KeySchema = awsKeySchema(specKeys(s.multiKeys(awsv1alpha1.IndexKeySchema{{AttributeName: s.pick(fuzzAttrs...), KeyType: "HASH"}})))
		}
		if d.AttributeDefinitions == nil {
			continue
		}
		for _, k := range g.KeySchema {
			name := aws.ToString(k.AttributeName)
			if !slices.ContainsFunc(d.AttributeDefinitions, func(a types.AttributeDefinition) bool { return aws.ToString(a.AttributeName) == name }) {
				d.AttributeDefinitions = append(d.AttributeDefinitions, types.AttributeDefinition{
					AttributeName: aws.String(name), AttributeType: types.ScalarAttributeType(s.pick("S", "N", "B"))})
			}
		}
	}
}

// multiKeys adds up to three HASH and three RANGE attributes to an index
// key, within four of each, HASH keys first.
func (s *fuzzSource) multiKeys(ks awsv1alpha1.IndexKeySchema) awsv1alpha1.IndexKeySchema {
	var hash, rng awsv1alpha1.IndexKeySchema
	used := map[string]bool{}
	for _, k := range ks {
		used[k.AttributeName] = true
		if k.KeyType == "HASH" {
			hash = append(hash, k)
		} else {
			rng = append(rng, k)
		}
	}
	add := func(keys awsv1alpha1.IndexKeySchema, keyType string) awsv1alpha1.IndexKeySchema {
		for n := s.intn(4); n > 0 && len(keys) < 4; n-- {
			a := s.pick(fuzzKeyAttrs...)
			if !used[a] {
				used[a] = true
				keys = append(keys, awsv1alpha1.KeySchemaElement{AttributeName: a, KeyType: keyType})
			}
		}
		return keys
	}
	return append(add(hash, "HASH"), add(rng, "RANGE")...)
}

// checkIndexKeys holds an index create to AWS's rules for multi-attribute
// keys (API CreateGlobalSecondaryIndexAction): HASH keys first, at most
// four HASH and four RANGE, no attribute twice, and the keys in the order
// the spec lists them, which queries depend on.
func checkIndexKeys(fail func(string, ...any), want *Table, in *dynamodb.UpdateTableInput) {
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create == nil {
			continue
		}
		var kinds []string
		seen := map[string]bool{}
		for _, k := range u.Create.KeySchema {
			kinds = append(kinds, string(k.KeyType))
			if seen[aws.ToString(k.AttributeName)] {
				fail("index key names %s twice", aws.ToString(k.AttributeName))
			}
			seen[aws.ToString(k.AttributeName)] = true
		}
		hashes := slices.Index(kinds, "RANGE")
		if hashes < 0 {
			hashes = len(kinds)
		}
		if hashes == 0 || hashes > 4 || len(kinds)-hashes > 4 || slices.Contains(kinds[hashes:], "HASH") {
			fail("index key %v: AWS wants one to four HASH keys, then up to four RANGE keys", kinds)
		}
		w, ok := want.index(aws.ToString(u.Create.IndexName))
		if !ok || !slices.EqualFunc(w.Keys, u.Create.KeySchema, func(k Key, e types.KeySchemaElement) bool {
			return k.Name == aws.ToString(e.AttributeName) && k.Type == string(e.KeyType)
		}) {
			fail("index %s created with keys %v, not the spec's in its order", aws.ToString(u.Create.IndexName), kinds)
		}
	}
}

// disassociation2026 has the spec keep some replicas as tables of their
// own when it drops them, and declare the table's disassociation
// protection where the CRD allows it (with replicas); AWS reports the
// table's protection on, off or not at all.
func (s *fuzzSource) disassociation2026(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) {
	for _, region := range fuzzRegions {
		if s.bool() {
			spec.DisassociateReplicas = append(spec.DisassociateReplicas, awsv1alpha1.ReplicaDisassociation{RegionName: region,
				DisassociationMode: s.pick("", awsv1alpha1.DisassociationModeWaitForReplication)})
		}
	}
	if len(spec.Replicas) > 0 && s.bool() {
		spec.DisassociationProtectionEnabled = aws.Bool(s.bool())
	}
	switch s.intn(3) {
	case 1:
		d.DisassociationProtectionEnabled = aws.Bool(true)
	case 2:
		d.DisassociationProtectionEnabled = aws.Bool(false)
	}
}

// disassociationRefused are the disassociations AWS refused for this spec
// (the adapter's memory).
func (s *fuzzSource) disassociationRefused() map[string]string {
	out := map[string]string{}
	for _, region := range fuzzRegions {
		if s.intn(4) == 0 {
			out[region] = "refused"
		}
	}
	return out
}

// checkStepRegion: only a disassociation goes to another Region, the
// replica's own, which its RegionName names (API
// DisassociateReplicationGroupMemberAction: "Set this value to the Region
// where you send the UpdateTable request").
func checkStepRegion(fail func(string, ...any), s Step) {
	var dis *types.DisassociateReplicationGroupMemberAction
	if s.Table != nil {
		for _, u := range s.Table.ReplicaUpdates {
			if u.Disassociate != nil {
				dis = u.Disassociate
			}
		}
	}
	switch {
	case dis == nil && s.Region != "":
		fail("sent to Region %s, though it disassociates nothing", s.Region)
	case dis != nil && s.Region != aws.ToString(dis.RegionName):
		fail("disassociates replica %s from Region %q", aws.ToString(dis.RegionName), s.Region)
	}
}

// checkDisassociate: a disassociation is of an ACTIVE replica the spec
// dropped, that Tether may remove and the spec keeps, not refused for this
// spec, in the one mode AWS defines; it is the only replica update of its
// call (checkReplica, checkTable).
func (c *newerCheck) checkDisassociate(fail func(string, ...any), d *types.DisassociateReplicationGroupMemberAction) {
	region := aws.ToString(d.RegionName)
	if c.replicas[region] != string(types.ReplicaStatusActive) {
		fail("disassociates replica %s, which is %q", region, c.replicas[region])
	}
	if _, wanted := c.want.Replicas[region]; wanted || !slices.Contains(c.want.RemoveReplicas, region) {
		fail("disassociates replica %s, which the spec names or Tether may not remove", region)
	}
	if _, keep := c.want.Disassociate[region]; !keep {
		fail("disassociates replica %s, which the spec does not keep", region)
	}
	if c.want.DisassociationRefused[region] != "" {
		fail("disassociates replica %s again after AWS refused it for this spec", region)
	}
	if d.DisassociationMode != types.DisassociationModeWaitForReplication {
		fail("disassociation mode %q", d.DisassociationMode)
	}
	delete(c.replicas, region)
}

// checkDisassociationProtection: the table's protection is the spec's,
// alone in its call (API UpdateTable: "You can't combine this change with
// any other change"), and only on a global table.
func (c *newerCheck) checkDisassociationProtection(fail func(string, ...any), in *dynamodb.UpdateTableInput) {
	if in.DisassociationProtectionEnabled == nil {
		return
	}
	if c.want.DisassociationProtection == nil || *c.want.DisassociationProtection != *in.DisassociationProtectionEnabled {
		fail("disassociation protection %v, which the spec does not ask", *in.DisassociationProtectionEnabled)
	}
	if len(c.replicas) == 0 {
		fail("disassociation protection on a table without replicas")
	}
	if in.BillingMode != "" || in.ProvisionedThroughput != nil || in.StreamSpecification != nil || in.DeletionProtectionEnabled != nil ||
		in.TableClass != "" || in.SSESpecification != nil || len(in.ReplicaUpdates) > 0 || len(in.GlobalSecondaryIndexUpdates) > 0 ||
		in.OnDemandThroughput != nil || in.WarmThroughput != nil || len(in.AttributeDefinitions) > 0 {
		fail("disassociation protection combined with another change")
	}
}
