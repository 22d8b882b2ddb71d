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
keySchema:
- {attributeName: pk, keyType: HASH}
globalSecondaryIndexes:
- indexName: byGsiKey
  keySchema: [{attributeName: gsiKey, keyType: HASH}]
  contributorInsightsSpecification: {enabled: true, mode: ACCESSED_AND_THROTTLED_KEYS}
contributorInsightsSpecification: {enabled: true, mode: THROTTLED_KEYS}
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
	cases := []struct{ name, spec, message string }{
		{"insights mode with insights off", on("{enabled: true, mode: THROTTLED_KEYS}", "{enabled: false, mode: THROTTLED_KEYS}"),
			"contributorInsightsSpecification.mode needs enabled: true"},
		{"index insights mode with insights off", on("{enabled: true, mode: ACCESSED_AND_THROTTLED_KEYS}", "{enabled: false, mode: ACCESSED_AND_THROTTLED_KEYS}"),
			"contributorInsightsSpecification.mode needs enabled: true"},
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
