package dynamodb

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// recordStatus copies what AWS reports into the status (never the spec).
func recordStatus(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	s := &obj.Status
	s.TableArn = aws.ToString(d.TableArn)
	s.TableStatus = string(d.TableStatus)
	s.LatestStreamArn = ""
	if d.StreamSpecification != nil && aws.ToBool(d.StreamSpecification.StreamEnabled) {
		s.LatestStreamArn = aws.ToString(d.LatestStreamArn)
	}
	var indexes []awsv1alpha1.IndexStatus
	for _, g := range d.GlobalSecondaryIndexes {
		indexes = append(indexes, awsv1alpha1.IndexStatus{IndexName: aws.ToString(g.IndexName),
			IndexStatus: string(g.IndexStatus), Backfilling: aws.ToBool(g.Backfilling)})
	}
	// Sorted, so that AWS answering in another order is no status change.
	slices.SortFunc(indexes, func(a, b awsv1alpha1.IndexStatus) int { return strings.Compare(a.IndexName, b.IndexName) })
	s.GlobalSecondaryIndexes = indexes
	recordVectorIndexes(obj, d)
}
