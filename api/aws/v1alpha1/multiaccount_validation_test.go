package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// joinSpec is a table that joins another account's table (issue 40 item
// 2): the source's key schema, and only what settings replication does not
// take from the source.
const joinSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
keySchema:
- {attributeName: pk, keyType: HASH}
globalTableSource:
  tableArn: arn:aws:dynamodb:us-east-1:111122223333:table/orders
streamSpecification: {streamViewType: NEW_AND_OLD_IMAGES}
deletionProtectionEnabled: true
tableClass: STANDARD
tags: {team: orders}
`

// TestGlobalTableSourceRefusesBadInput: each case declares one thing AWS
// would take from the source (or refuse), or names the source wrongly, and
// the API server says which.
func TestGlobalTableSourceRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	if err := env.Client.Create(ctx, manifest(t, "join-ok", joinSpec)); err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
	byRef := strings.Replace(joinSpec, "tableArn: arn:aws:dynamodb:us-east-1:111122223333:table/orders", "tableRef: {namespace: team-a, name: orders}", 1)
	if err := env.Client.Create(ctx, manifest(t, "join-by-ref", byRef)); err != nil {
		t.Fatalf("a source by tableRef rejected: %v", err)
	}
	with := func(extra string) string { return joinSpec + extra }
	cases := []struct{ name, spec, message string }{
		{"both tableArn and tableRef", strings.Replace(joinSpec, "table/orders\n", "table/orders\n  tableRef: {name: orders}\n", 1), "globalTableSource names its source by tableArn or by tableRef, exactly one"},
		{"neither", strings.Replace(joinSpec, "  tableArn: arn:aws:dynamodb:us-east-1:111122223333:table/orders\n", "  {}\n", 1),
			"globalTableSource names its source by tableArn or by tableRef, exactly one"},
		{"a Kinesis ARN", strings.Replace(joinSpec, "arn:aws:dynamodb:us-east-1:111122223333:table/orders", "arn:aws:kinesis:us-east-1:111122223333:stream/orders", 1),
			"tableArn must be a DynamoDB table's ARN"},
		{"a stream ARN", strings.Replace(joinSpec, "table/orders", "table/orders/stream/2026-01-01T00:00:00.000", 1), "tableArn must be a DynamoDB table's ARN"},
		{"indexes", with("globalSecondaryIndexes:\n- indexName: byPk\n  keySchema: [{attributeName: pk, keyType: HASH}]\n"),
			"takes its indexes from the source"},
		{"vector indexes", with("vectorIndexes:\n- indexName: byEmbedding\n  vectorAttribute: {attributeName: embedding}\n  dimensions: 3\n  distanceFunction: COSINE\n"),
			"takes its indexes from the source"},
		{"PROVISIONED", with("billingMode: PROVISIONED\nprovisionedThroughput: {readCapacityUnits: 1, writeCapacityUnits: 1}\n"),
			"takes its billing mode, capacity"},
		{"on-demand throughput", with("onDemandThroughput: {maxReadRequestUnits: 10}\n"), "takes its billing mode, capacity"},
		{"warm throughput", with("warmThroughput: {readUnitsPerSecond: 13000}\n"), "takes its billing mode, capacity"},
		{"TTL", with("timeToLiveSpecification: {attributeName: expires, enabled: true}\n"), "takes its TTL and stream from the source"},
		{"another stream view", strings.Replace(joinSpec, "streamViewType: NEW_AND_OLD_IMAGES", "streamViewType: KEYS_ONLY", 1), "takes its TTL and stream from the source"},
		{"replicas of its own", with("replicas:\n- regionName: ap-south-1\n"), "declares no replicas of its own"},
		{"STRONG", with("multiRegionConsistency: STRONG\n"), "cannot be STRONG nor have a witness"},
		{"and a restore", with("restoreFrom: {backupArn: \"arn:aws:dynamodb:us-east-1:111122223333:table/source/backup/01234567890123-abcdefgh\"}\n"),
			"is created by the join: not by restoreFrom or importFrom"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(ctx, manifest(t, fmt.Sprintf("invalid-join-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}

// TestGlobalTableSourceCannotChangeAfterCreation: a table joins only when
// it is created.
func TestGlobalTableSourceCannotChangeAfterCreation(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "joined-table", joinSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	changed := obj.DeepCopy()
	changed.Object["spec"].(map[string]any)["globalTableSource"] = map[string]any{"tableArn": "arn:aws:dynamodb:us-east-1:111122223333:table/other"}
	if err := env.Client.Update(ctx, changed); err == nil || !strings.Contains(err.Error(), "globalTableSource's source cannot be changed after creation") {
		t.Fatalf("changed globalTableSource: err = %v", err)
	}
	removed := obj.DeepCopy()
	delete(removed.Object["spec"].(map[string]any), "globalTableSource")
	if err := env.Client.Update(ctx, removed); err == nil || !strings.Contains(err.Error(), "globalTableSource cannot be added or removed after creation") {
		t.Fatalf("removed globalTableSource: err = %v", err)
	}
	swapped := obj.DeepCopy()
	swapped.Object["spec"].(map[string]any)["globalTableSource"] = map[string]any{"tableRef": map[string]any{"name": "orders"}}
	if err := env.Client.Update(ctx, swapped); err == nil || !strings.Contains(err.Error(), "globalTableSource's source cannot be changed after creation") {
		t.Fatalf("tableArn swapped for tableRef: err = %v", err)
	}
	edited := obj.DeepCopy()
	spec := edited.Object["spec"].(map[string]any)
	spec["deletionProtectionEnabled"] = false
	spec["disassociationProtectionEnabled"] = false
	spec["globalTableSource"].(map[string]any)["onDelete"] = "Disassociate"
	if err := env.Client.Update(ctx, edited); err != nil {
		t.Fatalf("onDelete, or a change beside globalTableSource, rejected: %v", err)
	}
	wrong := edited.DeepCopy()
	wrong.Object["spec"].(map[string]any)["globalTableSource"].(map[string]any)["onDelete"] = "Retain"
	if err := env.Client.Update(ctx, wrong); err == nil || !strings.Contains(err.Error(), `supported values: "Delete", "Disassociate"`) {
		t.Fatalf("onDelete Retain: err = %v", err)
	}
}

// The accounts in an AWSAccount's spec.tenancy.globalTables are 12-digit
// account ids.
func TestAWSAccountGlobalTablesValidation(t *testing.T) {
	ctx := context.Background()
	spec := func(gt map[string]any) map[string]any {
		return map[string]any{
			"assumeRole":        map[string]any{"roleARN": "arn:aws:iam::111122223333:role/tether"},
			"namespaceSelector": map[string]any{"names": []any{"orders"}},
			"tenancy":           map[string]any{"globalTables": gt},
		}
	}
	good := map[string]any{"sourceAccounts": []any{"444455556666"}, "joinNamespaces": map[string]any{"names": []any{"orders"}},
		"replicaAccounts": []any{"777788889999"}, "replicaNamespaces": map[string]any{"names": []any{"replicas"}}}
	if err := env.Client.Create(ctx, awsAccount("global-tables-good", spec(good))); err != nil {
		t.Fatalf("refused: %v", err)
	}
	for i, field := range []string{"sourceAccounts", "replicaAccounts"} {
		err := env.Client.Create(ctx, awsAccount(fmt.Sprintf("global-tables-bad-%d", i), spec(map[string]any{field: []any{"*"}})))
		if err == nil || !strings.Contains(err.Error(), "spec.tenancy.globalTables."+field) {
			t.Errorf("%s [*]: err = %v", field, err)
		}
	}
}
