package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// mrscSpec is a multi-Region strong consistency global table: the table's
// Region, one replica and a witness.
const mrscSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
keySchema:
- {attributeName: pk, keyType: HASH}
region: us-east-1
streamSpecification: {streamViewType: NEW_AND_OLD_IMAGES}
multiRegionConsistency: STRONG
replicas:
- regionName: us-east-2
globalTableWitness:
  regionName: us-west-2
`

// mrscOn is mrscSpec with one line swapped.
func mrscOn(old, new string) string {
	if !strings.Contains(mrscSpec, old) {
		panic("test case does not match mrscSpec: " + old)
	}
	return strings.Replace(mrscSpec, old, new, 1)
}

const (
	mrscWitness    = "globalTableWitness:\n  regionName: us-west-2\n"
	mrscReplicas   = "replicas:\n- regionName: us-east-2\n"
	mrscTwoRegions = "replicas:\n- regionName: us-east-2\n- regionName: us-west-2\n"
)

// mrscWithLocalIndex is mrscSpec with a sort key and a local secondary
// index, which is valid without STRONG.
var mrscWithLocalIndex = strings.NewReplacer(
	"- {attributeName: pk, attributeType: S}\n", "- {attributeName: pk, attributeType: S}\n- {attributeName: sk, attributeType: S}\n- {attributeName: at, attributeType: S}\n",
	"- {attributeName: pk, keyType: HASH}\n", "- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\n"+
		"localSecondaryIndexes:\n- indexName: by-at\n  keySchema: [{attributeName: pk, keyType: HASH}, {attributeName: at, keyType: RANGE}]\n  projection: {projectionType: KEYS_ONLY}\n",
).Replace(mrscSpec)

func TestMRSCIsAccepted(t *testing.T) {
	for i, spec := range []string{mrscSpec, mrscOn(mrscReplicas+mrscWitness, mrscTwoRegions),
		mrscSpec + "timeToLiveSpecification: {attributeName: expires, enabled: false}\n",
		strings.Replace(mrscWithLocalIndex, "multiRegionConsistency: STRONG\n"+mrscReplicas+mrscWitness, mrscReplicas, 1),
		mrscOn("multiRegionConsistency: STRONG\n"+mrscReplicas+mrscWitness, "multiRegionConsistency: EVENTUAL\n"+mrscReplicas)} {
		if err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("mrsc-ok-%d", i), spec)); err != nil {
			t.Fatalf("valid manifest %d rejected: %v", i, err)
		}
	}
}

// TestMRSCRefusesWhatAWSRefuses: each case makes one mistake AWS refuses
// (aws-controllers-k8s/dynamodb-controller docs/api-quirks/table-global-tables.md),
// and kubectl says which.
func TestMRSCRefusesWhatAWSRefuses(t *testing.T) {
	cases := []struct{ name, spec, message string }{
		{"STRONG with one replica", mrscOn(mrscWitness, ""), "needs exactly two replicas, or one replica and a globalTableWitness"},
		{"STRONG with two replicas and a witness", mrscOn(mrscReplicas, mrscReplicas+"- regionName: eu-west-1\n"),
			"needs exactly two replicas, or one replica and a globalTableWitness"},
		{"STRONG without replicas", mrscOn(mrscReplicas+mrscWitness, ""), "needs exactly two replicas, or one replica and a globalTableWitness"},
		{"witness without STRONG", mrscOn("multiRegionConsistency: STRONG\n", ""), "globalTableWitness needs multiRegionConsistency STRONG"},
		{"witness with EVENTUAL", mrscOn("multiRegionConsistency: STRONG\n", "multiRegionConsistency: EVENTUAL\n"), "globalTableWitness needs multiRegionConsistency STRONG"},
		{"witness in a replica's Region", mrscOn("  regionName: us-west-2\n", "  regionName: us-east-2\n"), "globalTableWitness must not be in a replica's Region"},
		{"witness in the table's Region", mrscOn("  regionName: us-west-2\n", "  regionName: us-east-1\n"), "globalTableWitness must not be in the table's own region"},
		{"witness in us-west-1", mrscOn("  regionName: us-west-2\n", "  regionName: us-west-1\n"), "not available in us-west-1"},
		{"replica in us-west-1", mrscOn("- regionName: us-east-2\n", "- regionName: us-west-1\n"), "not available in us-west-1"},
		{"table in us-west-1", mrscOn("region: us-east-1\n", "region: us-west-1\n"), "not available in us-west-1"},
		{"consistency AWS does not know", mrscOn("multiRegionConsistency: STRONG\n", "multiRegionConsistency: LINEARIZABLE\n"), `supported values: "EVENTUAL", "STRONG"`},
		{"STRONG of an imported table", mrscSpec + "importFrom:\n  s3BucketSource: {s3Bucket: rows}\n  inputFormat: CSV\n", "needs a table created empty"},
		{"disassociation of a STRONG table's replica", mrscSpec + "disassociateReplicas:\n- regionName: us-east-2\n", "for multiRegionConsistency EVENTUAL only"},
		{"witness without a Region", mrscOn(mrscWitness, "globalTableWitness: {}\n"), "regionName: Required value"},
		// developerguide V2globaltables_HowItWorks.html: "Time to Live (TTL)
		// is not supported for MRSC global tables" and "Local secondary
		// indexes (LSIs) are not supported for MRSC global tables".
		{"STRONG with Time to Live on", mrscSpec + "timeToLiveSpecification: {attributeName: expires, enabled: true}\n",
			"multiRegionConsistency STRONG cannot have timeToLiveSpecification enabled"},
		{"STRONG with a local secondary index", mrscWithLocalIndex, "multiRegionConsistency STRONG cannot have localSecondaryIndexes"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("mrsc-bad-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}

// TestMRSCIsFrozen: once STRONG, AWS refuses adding or deleting a replica,
// changing the witness or the consistency ("does not include all
// witnesses", aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md), and so does the API server; the
// one way out AWS allows, every replica and the witness removed together,
// is accepted. An EVENTUAL global table cannot become STRONG: AWS sets the
// consistency only as the replicas are created.
func TestMRSCIsFrozen(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "mrsc-frozen", mrscSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	const frozen = "a multiRegionConsistency STRONG global table is frozen"
	cases := []struct {
		name    string
		change  func(spec map[string]any)
		message string
	}{
		{"a replica added for the witness", func(s map[string]any) {
			delete(s, "globalTableWitness")
			s["replicas"] = []any{map[string]any{"regionName": "us-east-2"}, map[string]any{"regionName": "eu-west-1"}}
		}, frozen},
		{"the replica moved", func(s map[string]any) { s["replicas"] = []any{map[string]any{"regionName": "eu-west-1"}} }, frozen},
		{"the witness moved", func(s map[string]any) { s["globalTableWitness"] = map[string]any{"regionName": "eu-west-1"} }, frozen},
		{"EVENTUAL with its replica", func(s map[string]any) {
			s["multiRegionConsistency"] = "EVENTUAL"
			delete(s, "globalTableWitness")
		}, frozen},
		{"the replica removed, the witness kept", func(s map[string]any) { delete(s, "replicas") }, "needs exactly two replicas"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := obj.DeepCopy()
			c.change(changed.Object["spec"].(map[string]any))
			err := env.Client.Update(ctx, changed)
			if err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("err = %v, want %q", err, c.message)
			}
		})
	}

	// A change of a replica's settings is no change of the set.
	changed := obj.DeepCopy()
	changed.Object["spec"].(map[string]any)["replicas"] = []any{map[string]any{"regionName": "us-east-2", "tableClassOverride": "STANDARD"}}
	if err := env.Client.Update(ctx, changed); err != nil {
		t.Fatalf("a replica's settings rejected: %v", err)
	}
	// The one way out.
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), changed); err != nil {
		t.Fatal(err)
	}
	spec := changed.Object["spec"].(map[string]any)
	delete(spec, "replicas")
	delete(spec, "globalTableWitness")
	delete(spec, "multiRegionConsistency")
	if err := env.Client.Update(ctx, changed); err != nil {
		t.Fatalf("removing every replica and the witness together rejected: %v", err)
	}

	// EVENTUAL with replicas cannot become STRONG.
	eventual := manifest(t, "mrsc-eventual", mrscOn("multiRegionConsistency: STRONG\n"+mrscReplicas+mrscWitness, mrscTwoRegions))
	if err := env.Client.Create(ctx, eventual); err != nil {
		t.Fatal(err)
	}
	eventual.Object["spec"].(map[string]any)["multiRegionConsistency"] = "STRONG"
	if err := env.Client.Update(ctx, eventual); err == nil || !strings.Contains(err.Error(), "cannot become STRONG on a table with replicas") {
		t.Fatalf("err = %v, want the refusal of STRONG on an EVENTUAL global table", err)
	}
}
