package v1alpha1_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/testenv"
)

// The CRD's OpenAPI and CEL rules run in a real API server: a person who
// writes a bad manifest reads the message below from kubectl.
var env *testenv.Env

func TestMain(m *testing.M) {
	var err error
	env, err = testenv.Start(awsv1alpha1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

const validSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
- {attributeName: sk, attributeType: S}
- {attributeName: gsiKey, attributeType: S}
- {attributeName: lsiKey, attributeType: "N"}
keySchema:
- {attributeName: pk, keyType: HASH}
- {attributeName: sk, keyType: RANGE}
globalSecondaryIndexes:
- indexName: byGsiKey
  keySchema: [{attributeName: gsiKey, keyType: HASH}]
localSecondaryIndexes:
- indexName: byLsiKey
  keySchema: [{attributeName: pk, keyType: HASH}, {attributeName: lsiKey, keyType: RANGE}]
`

func manifest(t *testing.T, name, spec string) *unstructured.Unstructured {
	t.Helper()
	var specMap map[string]any
	if err := yaml.Unmarshal([]byte(spec), &specMap); err != nil {
		t.Fatalf("bad test YAML: %v", err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": awsv1alpha1.GroupVersion.String(), "kind": "DynamoDBTable",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     specMap,
	}}
	return u
}

// replace returns validSpec with one line swapped, so each case shows the
// one mistake it makes.
func replace(old, new string) string {
	if !strings.Contains(validSpec, old) {
		panic("test case does not match validSpec: " + old)
	}
	return strings.Replace(validSpec, old, new, 1)
}

func TestValidManifestIsAccepted(t *testing.T) {
	obj := manifest(t, "valid-table", validSpec)
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
	spec := obj.Object["spec"].(map[string]any)
	if spec["billingMode"] != "PAY_PER_REQUEST" || spec["deletionPolicy"] != "Delete" {
		t.Errorf("defaults not applied: %v", spec)
	}
	gsi := spec["globalSecondaryIndexes"].([]any)[0].(map[string]any)
	if gsi["projection"].(map[string]any)["projectionType"] != "ALL" {
		t.Errorf("projection default not applied: %v", gsi)
	}
}

func TestInvalidManifestsAreRejected(t *testing.T) {
	provisioned := "keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\nbillingMode: PROVISIONED\nprovisionedThroughput: {readCapacityUnits: 1, writeCapacityUnits: 1}\n"
	cases := []struct {
		name, spec, message string
	}{
		{"name too short", "tableName: ab\n" + validSpec, "spec.tableName"},
		{"name bad characters", "tableName: orders/2024\n" + validSpec, "spec.tableName"},
		{"two HASH keys", replace("- {attributeName: sk, keyType: RANGE}", "- {attributeName: sk, keyType: HASH}"), "keySchema must have exactly one HASH key"},
		{"RANGE first", replace("- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}", "- {attributeName: sk, keyType: RANGE}\n- {attributeName: pk, keyType: HASH}"), "keySchema must start with the HASH key"},
		{"three keys", replace("- {attributeName: sk, keyType: RANGE}", "- {attributeName: sk, keyType: RANGE}\n- {attributeName: gsiKey, keyType: RANGE}"), "must have at most 2 items"},
		{"bad key type", replace("{attributeName: sk, keyType: RANGE}", "{attributeName: sk, keyType: SORT}"), "Unsupported value: \"SORT\""},
		{"key not defined", replace("- {attributeName: sk, attributeType: S}\n", ""), "every keySchema attributeName must be defined in attributeDefinitions"},
		{"GSI key not defined", replace("- {attributeName: gsiKey, attributeType: S}\n", ""), "every globalSecondaryIndexes keySchema attributeName must be defined in attributeDefinitions"},
		{"unused definition", replace("- {attributeName: pk, attributeType: S}", "- {attributeName: pk, attributeType: S}\n- {attributeName: unused, attributeType: S}"), "attributeDefinitions may only list attributes used in a key schema"},
		{"bad attribute type", replace("{attributeName: pk, attributeType: S}", "{attributeName: pk, attributeType: STRING}"), "Unsupported value: \"STRING\""},
		{"PROVISIONED without throughput", replace("keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\n", "keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\nbillingMode: PROVISIONED\n"), "provisionedThroughput is required when billingMode is PROVISIONED"},
		{"PAY_PER_REQUEST with throughput", "provisionedThroughput: {readCapacityUnits: 1, writeCapacityUnits: 1}\n" + validSpec, "provisionedThroughput must not be set when billingMode is PAY_PER_REQUEST"},
		{"PROVISIONED GSI without throughput", replace("keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\n", provisioned), "every global secondary index needs provisionedThroughput when billingMode is PROVISIONED"},
		{"PAY_PER_REQUEST GSI with throughput", replace("  keySchema: [{attributeName: gsiKey, keyType: HASH}]", "  keySchema: [{attributeName: gsiKey, keyType: HASH}]\n  provisionedThroughput: {readCapacityUnits: 1, writeCapacityUnits: 1}"), "global secondary indexes must not set provisionedThroughput when billingMode is PAY_PER_REQUEST"},
		{"zero capacity", replace("keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\n", "keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\nbillingMode: PROVISIONED\nprovisionedThroughput: {readCapacityUnits: 0, writeCapacityUnits: 1}\n"), "spec.provisionedThroughput.readCapacityUnits"},
		{"bad billing mode", "billingMode: ON_DEMAND\n" + validSpec, "Unsupported value: \"ON_DEMAND\""},
		{"INCLUDE without attributes", replace("  keySchema: [{attributeName: gsiKey, keyType: HASH}]", "  keySchema: [{attributeName: gsiKey, keyType: HASH}]\n  projection: {projectionType: INCLUDE}"), "nonKeyAttributes is required when projectionType is INCLUDE"},
		{"nonKeyAttributes without INCLUDE", replace("  keySchema: [{attributeName: gsiKey, keyType: HASH}]", "  keySchema: [{attributeName: gsiKey, keyType: HASH}]\n  projection: {projectionType: ALL, nonKeyAttributes: [x]}"), "nonKeyAttributes is only allowed when projectionType is INCLUDE"},
		{"LSI without table RANGE key", replace("- {attributeName: sk, keyType: RANGE}\n", ""), "localSecondaryIndexes need a table keySchema with a RANGE key"},
		{"LSI with another HASH key", replace("[{attributeName: pk, keyType: HASH}, {attributeName: lsiKey, keyType: RANGE}]", "[{attributeName: sk, keyType: HASH}, {attributeName: lsiKey, keyType: RANGE}]"), "every local secondary index must use the table's HASH key"},
		{"LSI without RANGE key", replace("[{attributeName: pk, keyType: HASH}, {attributeName: lsiKey, keyType: RANGE}]", "[{attributeName: pk, keyType: HASH}]"), "a local secondary index keySchema needs a HASH and a RANGE key"},
		{"duplicate index name", replace("- indexName: byLsiKey", "- indexName: byGsiKey"), "index names must be unique across globalSecondaryIndexes and localSecondaryIndexes"},
		{"bad stream view", "streamSpecification: {streamViewType: ALL}\n" + validSpec, "Unsupported value: \"ALL\""},
		{"bad deletion policy", "deletionPolicy: Orphan\n" + validSpec, "Unsupported value: \"Orphan\""},
		{"bad table class", "tableClass: GLACIER\n" + validSpec, "Unsupported value: \"GLACIER\""},
		{"KMS key without SSE", "sseSpecification: {sseEnabled: false, kmsMasterKeyId: abc}\n" + validSpec, "kmsMasterKeyId needs sseEnabled: true"},
		{"too many GSIs", manyGSIs(20), "must have at most 20 items"},
		{"HASH and RANGE on one attribute", replace("- {attributeName: sk, keyType: RANGE}", "- {attributeName: pk, keyType: RANGE}"), "keySchema cannot use the same attribute as HASH and RANGE key"},
		{"GSI HASH and RANGE on one attribute", replace("  keySchema: [{attributeName: gsiKey, keyType: HASH}]", "  keySchema: [{attributeName: gsiKey, keyType: HASH}, {attributeName: gsiKey, keyType: RANGE}]"), "keySchema cannot use the same attribute as HASH and RANGE key"},
		{"LSI HASH and RANGE on one attribute", replace("[{attributeName: pk, keyType: HASH}, {attributeName: lsiKey, keyType: RANGE}]", "[{attributeName: pk, keyType: HASH}, {attributeName: pk, keyType: RANGE}]"), "keySchema cannot use the same attribute as HASH and RANGE key"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("invalid-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}

func TestShortMetadataNameNeedsTableName(t *testing.T) {
	err := env.Client.Create(context.Background(), manifest(t, "ab", validSpec))
	if err == nil || !strings.Contains(err.Error(), "metadata.name is used as the table name and must be 3-255 characters") {
		t.Fatalf("err = %v", err)
	}
	if err := env.Client.Create(context.Background(), manifest(t, "ab", "tableName: orders-ab\n"+validSpec)); err != nil {
		t.Fatalf("short name with tableName rejected: %v", err)
	}
}

// manyGSIs appends n more indexes (the spec already has one) on the same key.
func manyGSIs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- indexName: extra%02d\n  keySchema: [{attributeName: gsiKey, keyType: HASH}]\n", i)
	}
	return strings.Replace(validSpec, "localSecondaryIndexes:", b.String()+"localSecondaryIndexes:", 1)
}

func TestImmutableFieldsCannotChange(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "immutable-table", "tableName: immutable-table\nregion: eu-west-1\n"+validSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		change  func(spec map[string]any)
		message string
	}{
		{"tableName", func(s map[string]any) { s["tableName"] = "other-table" }, "tableName cannot be changed after creation"},
		{"tableName removed", func(s map[string]any) { delete(s, "tableName") }, "tableName cannot be added or removed after creation"},
		{"region", func(s map[string]any) { s["region"] = "us-east-1" }, "region cannot be changed after creation"},
		{"keySchema", func(s map[string]any) {
			s["keySchema"] = []any{map[string]any{"attributeName": "pk", "keyType": "HASH"}}
			s["localSecondaryIndexes"] = nil
			delete(s, "localSecondaryIndexes")
		}, "keySchema cannot be changed after creation"},
		{"localSecondaryIndexes", func(s map[string]any) {
			lsi := s["localSecondaryIndexes"].([]any)[0].(map[string]any)
			lsi["indexName"] = "renamed"
		}, "localSecondaryIndexes cannot be changed after creation"},
		{"localSecondaryIndexes removed", func(s map[string]any) { delete(s, "localSecondaryIndexes") }, "localSecondaryIndexes cannot be added or removed after creation"},
		{"table key type", func(s map[string]any) { setType(s, "pk", "N") },
			"the attributeType of a table key attribute cannot change after creation (DynamoDB cannot change a key's type): keep the type it had, or declare a new table"},
		{"table RANGE key type", func(s map[string]any) { setType(s, "sk", "B") }, "the attributeType of a table key attribute cannot change after creation"},
		{"local secondary index key type", func(s map[string]any) { setType(s, "lsiKey", "S") },
			"the attributeType of a local secondary index key attribute cannot change after creation (DynamoDB cannot change a key's type): keep the type it had, or declare a new table"},
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
	// A mutable field still changes, and so does a global secondary index's
	// key type (an index replacement, which the annotation governs).
	changed := obj.DeepCopy()
	changed.Object["spec"].(map[string]any)["streamSpecification"] = map[string]any{"streamViewType": "KEYS_ONLY"}
	setType(changed.Object["spec"].(map[string]any), "gsiKey", "N")
	if err := env.Client.Update(ctx, changed); err != nil {
		t.Fatalf("mutable change rejected: %v", err)
	}
}

// setType changes one attribute definition's type in an unstructured spec.
func setType(spec map[string]any, name, scalar string) {
	for _, d := range spec["attributeDefinitions"].([]any) {
		if d := d.(map[string]any); d["attributeName"] == name {
			d["attributeType"] = scalar
		}
	}
}

// An AWSAccount's role and session values follow STS's rules, so a typo is
// refused by the API server instead of failing every AssumeRole later.
func TestAWSAccountValidation(t *testing.T) {
	good := func() map[string]any {
		return map[string]any{
			"assumeRole":        map[string]any{"roleARN": "arn:aws:iam::111122223333:role/tether", "externalID": "ext-1", "sessionName": "tether-orders"},
			"namespaceSelector": map[string]any{"names": []any{"orders"}},
			"tenancy": map[string]any{"restoreSources": "Account", "policyPrincipalAccounts": []any{"999999999999", "*"},
				"adoptionNamespaces": map[string]any{"names": []any{"orders"}}, "tags": map[string]any{"cost-center": "4711"},
				"enforcedTagKeys": []any{"cost-center"}},
		}
	}
	role := func(s map[string]any) map[string]any { return s["assumeRole"].(map[string]any) }
	cases := []struct {
		name    string
		change  func(map[string]any)
		message string
	}{
		{"malformed role ARN", func(s map[string]any) { role(s)["roleARN"] = "arn:aws:iam::1234:role/tether" }, "spec.assumeRole.roleARN"},
		{"not a role", func(s map[string]any) { role(s)["roleARN"] = "arn:aws:iam::111122223333:user/tether" }, "spec.assumeRole.roleARN"},
		{"session name with a space", func(s map[string]any) { role(s)["sessionName"] = "tether orders" }, "spec.assumeRole.sessionName"},
		{"external id too short", func(s map[string]any) { role(s)["externalID"] = "x" }, "spec.assumeRole.externalID"},
		{"endpoint not a URL", func(s map[string]any) { s["endpoint"] = "dynamodb.local" }, "spec.endpoint"},
		{"malformed hub role", func(s map[string]any) { s["viaRoles"] = []any{map[string]any{"roleARN": "hub"}} }, "spec.viaRoles[0].roleARN"},
		{"session tag value too long", func(s map[string]any) { role(s)["sessionTags"] = map[string]any{"team": strings.Repeat("x", 257)} }, "session tag keys are 1-128 characters and values at most 256"},
		{"unknown restore sources", func(s map[string]any) { s["tenancy"] = map[string]any{"restoreSources": "Anywhere"} }, "spec.tenancy.restoreSources"},
		{"principal account not an account id", func(s map[string]any) {
			s["tenancy"] = map[string]any{"policyPrincipalAccounts": []any{"arn:aws:iam::999999999999:root"}}
		}, "spec.tenancy.policyPrincipalAccounts[0]"},
		{"account tag in AWS's prefix", func(s map[string]any) { s["tenancy"] = map[string]any{"tags": map[string]any{"aws:cost": "1"}} }, "not starting with aws: or tether.dev/"},
		{"account tag in Tether's prefix", func(s map[string]any) {
			s["tenancy"] = map[string]any{"tags": map[string]any{"tether.dev/owner-uid": "x"}}
		}, "not starting with aws: or tether.dev/"},
	}
	ctx := context.Background()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := good()
			c.change(spec)
			err := env.Client.Create(ctx, awsAccount(fmt.Sprintf("bad-%d", i), spec))
			if err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("err = %v, want a refusal naming %q", err, c.message)
			}
		})
	}
	if err := env.Client.Create(ctx, awsAccount("good", good())); err != nil {
		t.Fatalf("a good AWSAccount was refused: %v", err)
	}
}

func awsAccount(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": awsv1alpha1.GroupVersion.String(), "kind": "AWSAccount",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// A table cannot change account or outputs ConfigMap once it has them.
func TestAccountAndOutputsCannotChange(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "account-table", "accountRef: {name: team-a}\nwriteOutputsTo: {name: orders}\n"+validSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		change  func(spec map[string]any)
		message string
	}{
		{"accountRef", func(s map[string]any) { s["accountRef"] = map[string]any{"name": "team-b"} }, "accountRef cannot be changed after creation"},
		{"accountRef removed", func(s map[string]any) { delete(s, "accountRef") }, "accountRef cannot be added or removed after creation"},
		{"outputs renamed", func(s map[string]any) { s["writeOutputsTo"] = map[string]any{"name": "other"} }, "writeOutputsTo can be added, but not changed or removed"},
		{"outputs removed", func(s map[string]any) { delete(s, "writeOutputsTo") }, "writeOutputsTo can be added, but not changed or removed"},
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
	// Outputs may be added later.
	plain := manifest(t, "plain-table", validSpec)
	if err := env.Client.Create(ctx, plain); err != nil {
		t.Fatal(err)
	}
	plain.Object["spec"].(map[string]any)["writeOutputsTo"] = map[string]any{"name": "plain"}
	if err := env.Client.Update(ctx, plain); err != nil {
		t.Fatalf("adding writeOutputsTo refused: %v", err)
	}
}
