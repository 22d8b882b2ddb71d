package dynamodb

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Vector indexes (spec.vectorIndexes, plan/vector.go): what the adapter
// adds to the planner's steps is the status of each index, and what an
// answer to a vector index step means.
//
//   - DynamoDB Local (3.3.1) accepts CreateTable's VectorIndexes and drops
//     them: its DescribeTable never shows them. The planner then asks for
//     each index again, one UpdateTable, which DynamoDB Local answers
//     "Nothing to update" (it ignores VectorIndexUpdates). That answer to
//     a vector index step means the endpoint has no vector indexes: the
//     table is not Ready, the condition says so, and nothing is sent
//     again until the spec changes. No index can be left out as tags can:
//     a client's SearchVectors needs it.
//     With a search schema it does not even take the table: its attribute
//     definitions must all be keys ("The number of attributes in key
//     schema must match the number of attributes defined in attribute
//     definitions"), which is that endpoint lacking vector indexes too,
//     not a bad spec (AWS takes them: its search schema's attributes must
//     be defined).
//   - AWS refuses what the API server cannot check: a name reused, a
//     vector attribute some item holds otherwise (ValidationException;
//     ExtendDB/extenddb crates/core/src/types/table.rs measured them
//     against AWS). The same call would be refused again: the condition
//     names the index and AWS's reason, and nothing is sent until the spec
//     changes. A sixth index is LimitExceededException too, but so is
//     "Subscriber limit exceeded", AWS's limit on table and index
//     operations running at once in an account (API UpdateTable, Errors),
//     which passes; and the spec holds at most five while Tether deletes
//     the indexes it does not name first. So LimitExceededException is
//     what access.Classify makes it for every call: tried again after a
//     while, never at once. A delete while the index is still CREATING
//     (ResourceInUseException) is AWS busy, and waited for.

// ReasonVectorIndexRefused: AWS refused a vector index's create or delete.
const ReasonVectorIndexRefused = "VectorIndexRefused"

// recordVectorIndexes shows each vector index as DescribeTable reports it.
func recordVectorIndexes(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	var out []awsv1alpha1.VectorIndexStatus
	for _, v := range d.VectorIndexes {
		out = append(out, awsv1alpha1.VectorIndexStatus{IndexName: aws.ToString(v.IndexName), IndexStatus: string(v.IndexStatus),
			Backfilling: aws.ToBool(v.Backfilling), ItemCount: v.ItemCount, IndexSizeBytes: v.IndexSizeBytes})
	}
	// Sorted, so that AWS answering in another order is no status change.
	slices.SortFunc(out, func(a, b awsv1alpha1.VectorIndexStatus) int { return strings.Compare(a.IndexName, b.IndexName) })
	obj.Status.VectorIndexes = out
}

// vectorIndexRefused is what a refusal of a vector index step means, nil
// for any other step or answer.
func vectorIndexRefused(step plan.Step, err error) error {
	index := plan.VectorIndexOf(step)
	if index == "" {
		return nil
	}
	code := access.ErrorCode(err)
	switch {
	case code == "ValidationException" && strings.Contains(err.Error(), "Nothing to update"):
		return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint does not support vector indexes (index %s): "+
			"its DescribeTable does not show the index and it answered %v to %s. AWS has them since August 2026 (SDK v1.63.0); "+
			"DynamoDB Local 3.3.1 accepts and drops them", index, access.Stable(err), step.Description)
	case code == "ValidationException":
		return providers.Terminalf(ReasonVectorIndexRefused, "DynamoDB refused to %s: %v", step.Description, access.Stable(err))
	}
	return nil
}

// vectorCreateRefused is the error of an endpoint that refused a
// CreateTable for the attribute definitions only a vector index's search
// schema uses (DynamoDB Local, which knows no vector indexes), nil for any
// other answer.
func vectorCreateRefused(in *dynamodb.CreateTableInput, err error) error {
	if in == nil || access.ErrorCode(err) != "ValidationException" ||
		!strings.Contains(err.Error(), "number of attributes in key schema must match the number of attributes defined in attribute definitions") {
		return nil
	}
	keys := map[string]bool{}
	for _, k := range in.KeySchema {
		keys[aws.ToString(k.AttributeName)] = true
	}
	for _, ix := range in.GlobalSecondaryIndexes {
		for _, k := range ix.KeySchema {
			keys[aws.ToString(k.AttributeName)] = true
		}
	}
	for _, ix := range in.LocalSecondaryIndexes {
		for _, k := range ix.KeySchema {
			keys[aws.ToString(k.AttributeName)] = true
		}
	}
	var indexes []string
	for _, v := range in.VectorIndexes {
		if slices.ContainsFunc(v.SearchSchema, func(e types.SearchSchemaElement) bool { return !keys[aws.ToString(e.AttributeName)] }) {
			indexes = append(indexes, aws.ToString(v.IndexName))
		}
	}
	if len(indexes) == 0 {
		return nil
	}
	return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint does not support vector indexes (index %s): "+
		"it refused the attribute definitions of their search schema, which AWS requires: %v. DynamoDB Local 3.3.1 has no vector indexes",
		strings.Join(indexes, ", "), access.Stable(err))
}
