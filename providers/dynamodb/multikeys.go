package dynamodb

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Global secondary index keys of more than one HASH or RANGE attribute
// (multi-attribute keys: API CreateGlobalSecondaryIndexAction, AWS since
// November 2025). An endpoint without them refuses such an index outright:
// DynamoDB Local before 3.3.0 answers "Key Schema too big" to a CreateTable
// and "Too many hash keys specified" to an UpdateTable (its own words,
// developerguide DynamoDBLocalHistory.html dates the support). That is not
// a bad spec, and no part of an index can be left out: Tether says the
// endpoint lacks the feature, and sends nothing more until the spec
// changes.

// multiKeyIndexesOf names the indexes a CreateTable or an index create
// gives a key of more than one HASH or RANGE attribute.
func multiKeyIndexesOf(create *dynamodb.CreateTableInput, step *plan.Step) []string {
	var out []string
	add := func(name *string, keys []types.KeySchemaElement) {
		hashes, ranges := 0, 0
		for _, k := range keys {
			if k.KeyType == types.KeyTypeHash {
				hashes++
			} else {
				ranges++
			}
		}
		if hashes > 1 || ranges > 1 {
			out = append(out, aws.ToString(name))
		}
	}
	if create != nil {
		for _, g := range create.GlobalSecondaryIndexes {
			add(g.IndexName, g.KeySchema)
		}
	}
	if step != nil && step.Table != nil {
		for _, u := range step.Table.GlobalSecondaryIndexUpdates {
			if u.Create != nil {
				add(u.Create.IndexName, u.Create.KeySchema)
			}
		}
	}
	return out
}

// multiKeysRefused is the error of an endpoint that refused multi-attribute
// index keys, nil for any other answer.
func multiKeysRefused(indexes []string, err error) error {
	if len(indexes) == 0 || access.ErrorCode(err) != "ValidationException" {
		return nil
	}
	if msg := err.Error(); !strings.Contains(msg, "Key Schema too big") && !strings.Contains(msg, "Too many hash keys") {
		return nil
	}
	return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint does not support global secondary index keys of more than one "+
		"HASH or RANGE attribute (index %s): it answered %v. AWS has them since November 2025, DynamoDB Local since 3.3.0; "+
		"on this endpoint give each index one HASH and at most one RANGE key", strings.Join(indexes, ", "), access.Stable(err))
}
