package access

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// writeOf finds the table of each write, by name or by ARN.
func TestWriteOf(t *testing.T) {
	arn := "arn:aws:dynamodb:eu-west-1:111122223333:table/orders"
	cases := []struct {
		in          any
		call, table string
	}{
		{&dynamodb.UpdateTableInput{TableName: aws.String("orders")}, "UpdateTable", "orders"},
		{&dynamodb.UpdateTableInput{TableName: aws.String(arn)}, "UpdateTable", "orders"},
		{&dynamodb.TagResourceInput{ResourceArn: aws.String(arn)}, "TagResource", "orders"},
		{&dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn + "/stream/2026-01-01T00:00:00.000")}, "PutResourcePolicy", "orders"},
		{&dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("old"), TargetTableName: aws.String("orders")}, "RestoreTableToPointInTime", "orders"},
		{&dynamodb.TagResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:eu-west-1:111122223333:backup/x")}, "TagResource", ""},
		{&dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("orders")}, "EnableKinesisStreamingDestination", "orders"},
		{&dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String(arn)}, "DisableKinesisStreamingDestination", "orders"},
		{&dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("orders")}, "", ""},
		{&dynamodb.DescribeTableInput{TableName: aws.String("orders")}, "", ""},
		{&dynamodb.DeleteTableInput{}, "DeleteTable", ""},
	}
	for _, c := range cases {
		if call, table := writeOf(c.in); call != c.call || table != c.table {
			t.Errorf("%T: %q %q, want %q %q", c.in, call, table, c.call, c.table)
		}
	}
}
