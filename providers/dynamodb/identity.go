package dynamodb

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// TableIdentity tells one table from another of the same name: AWS's
// TableId, or (DynamoDB Local has none) the ARN with the creation time.
// It is what status.tableId shows; exported for tests that play a tenant
// writing a live table's identity there.
func TableIdentity(d *types.TableDescription) string {
	if id := aws.ToString(d.TableId); id != "" {
		return id
	}
	created := ""
	if d.CreationDateTime != nil {
		created = d.CreationDateTime.UTC().Format(time.RFC3339Nano)
	}
	return aws.ToString(d.TableArn) + "@" + created
}

// clockSkew is how far AWS's clock and the operator's may disagree when
// comparing a table's creation time with the object's create-started note.
const clockSkew = time.Minute

// interruptedCreate says whether the table may be the result of a create
// Tether started for obj and never heard back from (the manager stopped):
// the object has a create-started note and the table is not older. It only
// words the NotOwned message: a table made by someone else in the same
// minute looks the same, which is why timing is never proof.
func interruptedCreate(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	if d.CreationDateTime == nil {
		return false
	}
	started, err := time.Parse(time.RFC3339, obj.Annotations[commonv1alpha1.AnnotationCreateStarted])
	if err != nil {
		return false
	}
	return !d.CreationDateTime.Before(started.Add(-clockSkew))
}
