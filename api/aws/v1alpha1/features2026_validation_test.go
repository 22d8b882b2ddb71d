package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// features2026Spec is a PAY_PER_REQUEST table using every feature of issue
// 40 (DynamoDB as AWS ships it in 2026) that the API server accepts together.
const features2026Spec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
- {attributeName: gsiKey, attributeType: S}
- {attributeName: tenant, attributeType: S}
- {attributeName: region, attributeType: S}
- {attributeName: day, attributeType: "N"}
- {attributeName: seq, attributeType: "N"}
keySchema:
- {attributeName: pk, keyType: HASH}
globalSecondaryIndexes:
- indexName: byGsiKey
  keySchema: [{attributeName: gsiKey, keyType: HASH}]
  contributorInsightsSpecification: {enabled: true, mode: ACCESSED_AND_THROTTLED_KEYS}
- indexName: byTenantRegion
  keySchema:
  - {attributeName: tenant, keyType: HASH}
  - {attributeName: region, keyType: HASH}
  - {attributeName: day, keyType: RANGE}
  - {attributeName: seq, keyType: RANGE}
contributorInsightsSpecification: {enabled: true, mode: THROTTLED_KEYS}
kinesisStreamingDestination:
  streamArn: arn:aws:kinesis:us-east-1:111122223333:stream/orders.v2_x-y
  approximateCreationDateTimePrecision: MICROSECOND
region: us-east-1
streamSpecification: {streamViewType: NEW_AND_OLD_IMAGES}
replicas:
- regionName: ap-south-1
disassociateReplicas:
- regionName: eu-west-1
  disassociationMode: WAIT_FOR_REPLICATION
disassociationProtectionEnabled: false
`

func TestFeatures2026AreAccepted(t *testing.T) {
	if err := env.Client.Create(context.Background(), manifest(t, "features-2026", features2026Spec)); err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
}

// TestFeatures2026RefuseBadInput: each case makes one mistake AWS would
// refuse (or that would mean nothing to it), and kubectl says which.
func TestFeatures2026RefuseBadInput(t *testing.T) {
	on := func(old, new string) string {
		if !strings.Contains(features2026Spec, old) {
			panic("test case does not match features2026Spec: " + old)
		}
		return strings.Replace(features2026Spec, old, new, 1)
	}
	multiKey := "  - {attributeName: tenant, keyType: HASH}\n  - {attributeName: region, keyType: HASH}\n  - {attributeName: day, keyType: RANGE}\n  - {attributeName: seq, keyType: RANGE}\n"
	cases := []struct{ name, spec, message string }{
		{"index RANGE key first", on(multiKey, "  - {attributeName: day, keyType: RANGE}\n  - {attributeName: tenant, keyType: HASH}\n"),
			"keySchema must start with the HASH key"},
		{"index HASH key after a RANGE key", on(multiKey, "  - {attributeName: tenant, keyType: HASH}\n  - {attributeName: day, keyType: RANGE}\n  - {attributeName: region, keyType: HASH}\n"),
			"keySchema must list every HASH key before the RANGE keys"},
		{"index with five RANGE keys", on(multiKey, multiKey+"  - {attributeName: gsiKey, keyType: RANGE}\n  - {attributeName: pk, keyType: RANGE}\n  - {attributeName: other, keyType: RANGE}\n"),
			"may have at most four RANGE keys"},
		{"index with five HASH keys", on(multiKey, "  - {attributeName: tenant, keyType: HASH}\n  - {attributeName: region, keyType: HASH}\n  - {attributeName: day, keyType: HASH}\n  - {attributeName: seq, keyType: HASH}\n  - {attributeName: gsiKey, keyType: HASH}\n"),
			"may have at most four HASH keys"},
		{"index key attribute of a type keys cannot have", on("- {attributeName: day, attributeType: \"N\"}\n", "- {attributeName: day, attributeType: BOOL}\n"),
			`Unsupported value: "BOOL"`},
		{"index naming an attribute twice", on(multiKey, "  - {attributeName: tenant, keyType: HASH}\n  - {attributeName: tenant, keyType: HASH}\n"),
			"nor name an attribute twice"},
		{"index key attribute not defined", on("- {attributeName: seq, attributeType: \"N\"}\n", ""),
			"every globalSecondaryIndexes keySchema attributeName must be defined in attributeDefinitions"},
		{"table with two HASH keys", on("keySchema:\n- {attributeName: pk, keyType: HASH}\n", "keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: tenant, keyType: HASH}\n"),
			"keySchema must have exactly one HASH key"},
		{"insights mode with insights off", on("{enabled: true, mode: THROTTLED_KEYS}", "{enabled: false, mode: THROTTLED_KEYS}"),
			"contributorInsightsSpecification.mode needs enabled: true"},
		{"index insights mode with insights off", on("{enabled: true, mode: ACCESSED_AND_THROTTLED_KEYS}", "{enabled: false, mode: ACCESSED_AND_THROTTLED_KEYS}"),
			"contributorInsightsSpecification.mode needs enabled: true"},
		{"Kinesis destination not a Kinesis ARN", on("arn:aws:kinesis:us-east-1:111122223333:stream/orders.v2_x-y", "arn:aws:sqs:us-east-1:111122223333:orders"),
			"streamArn must be a Kinesis data stream's ARN"},
		{"Kinesis destination with a short account", on("111122223333:stream", "1111:stream"),
			"streamArn must be a Kinesis data stream's ARN"},
		{"Kinesis stream name with a slash", on("stream/orders.v2_x-y", "stream/orders/x"),
			"streamArn must be a Kinesis data stream's ARN"},
		{"Kinesis stream name too long", on("stream/orders.v2_x-y", "stream/"+strings.Repeat("s", 129)),
			"streamArn must be a Kinesis data stream's ARN"},
		{"Kinesis precision AWS does not know", on("approximateCreationDateTimePrecision: MICROSECOND", "approximateCreationDateTimePrecision: NANOSECOND"),
			`supported values: "MILLISECOND", "MICROSECOND"`},
		{"disassociation protection without replicas", on("replicas:\n- regionName: ap-south-1\n", ""),
			"disassociationProtectionEnabled needs replicas"},
		{"disassociation of the table's own Region", on("- regionName: eu-west-1\n  disassociationMode", "- regionName: us-east-1\n  disassociationMode"),
			"disassociateReplicas must not name the table's own region"},
		{"disassociation mode AWS does not define", on("disassociationMode: WAIT_FOR_REPLICATION", "disassociationMode: IMMEDIATE"),
			`supported values: "WAIT_FOR_REPLICATION"`},
		{"disassociation without a Region", on("- regionName: eu-west-1\n  disassociationMode", "- disassociationMode"),
			"regionName: Required value"},
		{"Kinesis destination without a stream", on("  streamArn: arn:aws:kinesis:us-east-1:111122223333:stream/orders.v2_x-y\n", ""),
			"streamArn: Required value"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("invalid-2026-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}
