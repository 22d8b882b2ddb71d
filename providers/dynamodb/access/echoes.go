package access

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// Feeds are the change feeds (providers/dynamodb/changefeed), told of each
// of Tether's writes, and of whether AWS accepted it.
type Feeds interface {
	// Sending tells the feed of identity (an AWSAccount's name, "" for the
	// operator's own) that Tether is about to make a call (UpdateTable,
	// TagResource, ...) about a table (account id, region, name), begun at
	// began; the function it returns is told, once, whether AWS accepted
	// it. An accepted call's event should come back through the feed,
	// which shows that events reach the queue; it may come back before
	// the answer does.
	Sending(identity, call, account, region, table string, began time.Time) (answered func(accepted bool))
}

// tellFeedsOfWrites tells the change feeds of each write about a table,
// once per call whatever its retries, and then whether AWS accepted it:
// CloudTrail records it and the feed's rule should deliver it back, which
// is how a feed shows that events reach its queue (changefeed's echo
// check). A call AWS refused is not expected back: AWS documents no
// promise that CloudTrail records every refusal (a throttled call, say),
// and an echo expected in vain would put the tables on polling for
// nothing.
func tellFeedsOfWrites(feeds Feeds, identity, accountID, region string) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("TetherTellFeeds",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				call, table := writeOf(in.Parameters)
				if table == "" {
					return next.HandleInitialize(ctx, in)
				}
				answered := feeds.Sending(identity, call, accountID, region, table, time.Now())
				out, md, err := next.HandleInitialize(ctx, in)
				answered(err == nil)
				return out, md, err
			}), middleware.After)
	}
}

// writeOf names the write calls the adapter makes and the table each is
// about; a read, or a call about no table, gives "".
func writeOf(params any) (call, table string) {
	switch in := params.(type) {
	case *dynamodb.CreateTableInput:
		return "CreateTable", tableName(in.TableName)
	case *dynamodb.UpdateTableInput:
		return "UpdateTable", tableName(in.TableName)
	case *dynamodb.DeleteTableInput:
		return "DeleteTable", tableName(in.TableName)
	case *dynamodb.UpdateTimeToLiveInput:
		return "UpdateTimeToLive", tableName(in.TableName)
	case *dynamodb.UpdateContinuousBackupsInput:
		return "UpdateContinuousBackups", tableName(in.TableName)
	case *dynamodb.UpdateContributorInsightsInput:
		return "UpdateContributorInsights", tableName(in.TableName)
	case *dynamodb.EnableKinesisStreamingDestinationInput:
		return "EnableKinesisStreamingDestination", tableName(in.TableName)
	case *dynamodb.UpdateKinesisStreamingDestinationInput:
		return "UpdateKinesisStreamingDestination", tableName(in.TableName)
	case *dynamodb.DisableKinesisStreamingDestinationInput:
		return "DisableKinesisStreamingDestination", tableName(in.TableName)
	case *dynamodb.TagResourceInput:
		return "TagResource", tableName(in.ResourceArn)
	case *dynamodb.UntagResourceInput:
		return "UntagResource", tableName(in.ResourceArn)
	case *dynamodb.PutResourcePolicyInput:
		return "PutResourcePolicy", tableName(in.ResourceArn)
	case *dynamodb.DeleteResourcePolicyInput:
		return "DeleteResourcePolicy", tableName(in.ResourceArn)
	case *dynamodb.RestoreTableToPointInTimeInput:
		return "RestoreTableToPointInTime", tableName(in.TargetTableName)
	case *dynamodb.RestoreTableFromBackupInput:
		return "RestoreTableFromBackup", tableName(in.TargetTableName)
	}
	return "", ""
}

// tableName is the table a call names: by name, or by the ARN of the table
// or of one of its indexes or streams (arn:...:table/<name>[/...]).
func tableName(ref *string) string {
	if ref == nil {
		return ""
	}
	if !strings.HasPrefix(*ref, "arn:") {
		return *ref
	}
	_, resource, found := strings.Cut(*ref, ":table/")
	if !found {
		return ""
	}
	name, _, _ := strings.Cut(resource, "/")
	return name
}
