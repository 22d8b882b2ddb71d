package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// featuresSpec is a PAY_PER_REQUEST table using every newer feature the
// API server accepts together.
const featuresSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
- {attributeName: gsiKey, attributeType: S}
keySchema:
- {attributeName: pk, keyType: HASH}
globalSecondaryIndexes:
- indexName: byGsiKey
  keySchema: [{attributeName: gsiKey, keyType: HASH}]
  onDemandThroughput: {maxReadRequestUnits: 100}
  warmThroughput: {readUnitsPerSecond: 15000}
  contributorInsightsSpecification: {enabled: true}
streamSpecification: {streamViewType: NEW_AND_OLD_IMAGES}
pointInTimeRecoverySpecification: {pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: 7}
onDemandThroughput: {maxReadRequestUnits: -1, maxWriteRequestUnits: 500}
warmThroughput: {readUnitsPerSecond: 20000, writeUnitsPerSecond: 8000}
contributorInsightsSpecification: {enabled: true, mode: THROTTLED_KEYS}
resourcePolicy:
  Version: "2012-10-17"
  Statement:
  - {Effect: Allow, Principal: {AWS: "arn:aws:iam::111122223333:root"}, Action: "dynamodb:GetItem", Resource: "*"}
replicas:
- regionName: eu-west-1
  onDemandThroughputOverride: {maxReadRequestUnits: 50}
  globalSecondaryIndexes:
  - {indexName: byGsiKey, onDemandThroughputOverride: {maxReadRequestUnits: 10}}
restoreFrom:
  pointInTime: {sourceTableArn: "arn:aws:dynamodb:us-east-1:111122223333:table/source", useLatestRestorableTime: true}
`

// provisionedFeaturesSpec is a PROVISIONED global table under autoscaling.
const provisionedFeaturesSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
- {attributeName: gsiKey, attributeType: S}
keySchema:
- {attributeName: pk, keyType: HASH}
billingMode: PROVISIONED
provisionedThroughput: {readCapacityUnits: 5, writeCapacityUnits: 5}
autoScaling:
  read: {minCapacity: 5, maxCapacity: 100, targetUtilization: 70}
  write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 70, scaleInCooldownSeconds: 60}
globalSecondaryIndexes:
- indexName: byGsiKey
  keySchema: [{attributeName: gsiKey, keyType: HASH}]
  provisionedThroughput: {readCapacityUnits: 5, writeCapacityUnits: 5}
  autoScaling:
    write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 50}
streamSpecification: {streamViewType: NEW_AND_OLD_IMAGES}
replicas:
- regionName: eu-west-1
  provisionedThroughputOverride: {readCapacityUnits: 10}
  tableClassOverride: STANDARD_INFREQUENT_ACCESS
`

func TestNewerFeaturesAreAccepted(t *testing.T) {
	for i, spec := range []string{featuresSpec, provisionedFeaturesSpec} {
		if err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("features-%d", i), spec)); err != nil {
			t.Fatalf("valid manifest %d rejected: %v", i, err)
		}
	}
}

func TestNewerFeaturesRefuseBadInput(t *testing.T) {
	on := func(old, new string) string {
		if !strings.Contains(featuresSpec, old) {
			panic("test case does not match featuresSpec: " + old)
		}
		return strings.Replace(featuresSpec, old, new, 1)
	}
	prov := func(old, new string) string {
		if !strings.Contains(provisionedFeaturesSpec, old) {
			panic("test case does not match provisionedFeaturesSpec: " + old)
		}
		return strings.Replace(provisionedFeaturesSpec, old, new, 1)
	}
	cases := []struct{ name, spec, message string }{
		{"recovery period too long", on("recoveryPeriodInDays: 7", "recoveryPeriodInDays: 36"), "spec.pointInTimeRecoverySpecification.recoveryPeriodInDays"},
		{"recovery period zero", on("recoveryPeriodInDays: 7", "recoveryPeriodInDays: 0"), "spec.pointInTimeRecoverySpecification.recoveryPeriodInDays"},
		{"recovery period with PITR off", on("pointInTimeRecoveryEnabled: true", "pointInTimeRecoveryEnabled: false"), "recoveryPeriodInDays needs pointInTimeRecoveryEnabled: true"},
		{"on-demand cap zero", on("maxWriteRequestUnits: 500", "maxWriteRequestUnits: 0"), "maxWriteRequestUnits is -1 (no limit) or at least 1"},
		{"on-demand cap empty", on("onDemandThroughput: {maxReadRequestUnits: -1, maxWriteRequestUnits: 500}", "onDemandThroughput: {}"), "onDemandThroughput needs maxReadRequestUnits, maxWriteRequestUnits or both"},
		{"on-demand cap on PROVISIONED", prov("provisionedThroughput: {readCapacityUnits: 5, writeCapacityUnits: 5}\nautoScaling:", "provisionedThroughput: {readCapacityUnits: 5, writeCapacityUnits: 5}\nonDemandThroughput: {maxReadRequestUnits: 5}\nautoScaling:"), "onDemandThroughput needs billingMode PAY_PER_REQUEST"},
		{"index on-demand cap on PROVISIONED", prov("    write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 50}", "    write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 50}\n  onDemandThroughput: {maxReadRequestUnits: 5}"), "onDemandThroughput needs billingMode PAY_PER_REQUEST"},
		{"warm throughput zero", on("warmThroughput: {readUnitsPerSecond: 20000, writeUnitsPerSecond: 8000}", "warmThroughput: {readUnitsPerSecond: 0}"), "spec.warmThroughput.readUnitsPerSecond"},
		{"warm throughput empty", on("warmThroughput: {readUnitsPerSecond: 15000}", "warmThroughput: {}"), "warmThroughput needs readUnitsPerSecond, writeUnitsPerSecond or both"},
		{"bad insights mode", on("mode: THROTTLED_KEYS", "mode: ALL_KEYS"), "Unsupported value: \"ALL_KEYS\""},
		{"policy not an object", on("resourcePolicy:\n  Version: \"2012-10-17\"\n  Statement:\n  - {Effect: Allow, Principal: {AWS: \"arn:aws:iam::111122223333:root\"}, Action: \"dynamodb:GetItem\", Resource: \"*\"}", "resourcePolicy: allow-everything"), "spec.resourcePolicy"},
		{"replicas without the stream", on("streamSpecification: {streamViewType: NEW_AND_OLD_IMAGES}", "streamSpecification: {streamViewType: NEW_IMAGE}"), "replicas need streamSpecification.streamViewType NEW_AND_OLD_IMAGES"},
		{"replicas of PROVISIONED without write autoscaling", prov("  write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 70, scaleInCooldownSeconds: 60}\n", ""), "replicas of a PROVISIONED table need autoScaling.write on the table and on every global secondary index"},
		{"replicas of PROVISIONED without index write autoscaling", prov("    write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 50}", "    read: {minCapacity: 5, maxCapacity: 50, targetUtilization: 50}"), "replicas of a PROVISIONED table need autoScaling.write"},
		{"replica in the table's region", "region: eu-west-1\n" + featuresSpec, "replicas must not name the table's own region"},
		{"replica read capacity on PAY_PER_REQUEST", on("  onDemandThroughputOverride: {maxReadRequestUnits: 50}", "  provisionedThroughputOverride: {readCapacityUnits: 50}"), "a replica's provisionedThroughputOverride needs billingMode PROVISIONED"},
		{"replica read cap on PROVISIONED", prov("  provisionedThroughputOverride: {readCapacityUnits: 10}", "  onDemandThroughputOverride: {maxReadRequestUnits: 10}"), "a replica's onDemandThroughputOverride needs billingMode PAY_PER_REQUEST"},
		{"replica index override of no index", on("{indexName: byGsiKey, onDemandThroughputOverride", "{indexName: byNothing, onDemandThroughputOverride"), "a replica's globalSecondaryIndexes must name indexes of the table"},
		{"duplicate replica region", on("replicas:\n- regionName: eu-west-1", "replicas:\n- regionName: eu-west-2\n- regionName: eu-west-1\n- regionName: eu-west-2"), "Duplicate value"},
		{"autoscaling on PAY_PER_REQUEST", "autoScaling: {read: {minCapacity: 1, maxCapacity: 2, targetUtilization: 50}}\n" + featuresSpec, "autoScaling needs billingMode PROVISIONED"},
		{"autoscaling min above max", prov("read: {minCapacity: 5, maxCapacity: 100", "read: {minCapacity: 500, maxCapacity: 100"), "minCapacity must not exceed maxCapacity"},
		{"autoscaling target too high", prov("targetUtilization: 70}", "targetUtilization: 95}"), "targetUtilization"},
		{"autoscaling empty", prov("  autoScaling:\n    write: {minCapacity: 5, maxCapacity: 50, targetUtilization: 50}", "  autoScaling: {}"), "autoScaling needs read, write or both"},
		{"restore from both", on("useLatestRestorableTime: true}", "useLatestRestorableTime: true}\n  backupArn: arn:aws:dynamodb:us-east-1:111122223333:table/source/backup/01234567890123-abcdefgh"), "restoreFrom needs exactly one of pointInTime and backupArn"},
		{"restore time and latest", on("useLatestRestorableTime: true}", "useLatestRestorableTime: true, restoreDateTime: \"2026-01-02T03:04:05Z\"}"), "pointInTime needs exactly one of restoreDateTime and useLatestRestorableTime: true"},
		{"restore with neither time", on("useLatestRestorableTime: true}", "useLatestRestorableTime: false}"), "pointInTime needs exactly one of restoreDateTime and useLatestRestorableTime: true"},
		{"restore source not an ARN", on("sourceTableArn: \"arn:aws:dynamodb:us-east-1:111122223333:table/source\"", "sourceTableArn: source"), "spec.restoreFrom.pointInTime.sourceTableArn"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("invalid-features-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}

func TestRestoreFromCannotChangeAfterCreation(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "restored-table", featuresSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	changed := obj.DeepCopy()
	changed.Object["spec"].(map[string]any)["restoreFrom"] = map[string]any{"backupArn": "arn:aws:dynamodb:us-east-1:111122223333:table/source/backup/01234567890123-abcdefgh"}
	if err := env.Client.Update(ctx, changed); err == nil || !strings.Contains(err.Error(), "restoreFrom cannot be changed after creation") {
		t.Fatalf("changed restoreFrom: err = %v", err)
	}
	removed := obj.DeepCopy()
	delete(removed.Object["spec"].(map[string]any), "restoreFrom")
	if err := env.Client.Update(ctx, removed); err == nil || !strings.Contains(err.Error(), "restoreFrom cannot be added or removed after creation") {
		t.Fatalf("removed restoreFrom: err = %v", err)
	}
	// Everything else about the newer features may change.
	edited := obj.DeepCopy()
	spec := edited.Object["spec"].(map[string]any)
	spec["warmThroughput"] = map[string]any{"readUnitsPerSecond": int64(30000)}
	delete(spec, "replicas")
	delete(spec, "resourcePolicy")
	if err := env.Client.Update(ctx, edited); err != nil {
		t.Fatalf("mutable change rejected: %v", err)
	}
}
