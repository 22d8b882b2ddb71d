// Package changefeed learns of changes to DynamoDB tables from AWS itself
// instead of by polling: CloudTrail records every DynamoDB management call
// (UpdateTable, DeleteTable, TagResource, ...) and hands it to EventBridge
// as an "AWS API Call via CloudTrail" event, which a rule sends to an SQS
// queue (the DynamoDB Developer Guide's "Logging DynamoDB operations by
// using AWS CloudTrail", the EventBridge User Guide's "AWS service events
// delivered via AWS CloudTrail", and the EventBridge events reference,
// "Amazon DynamoDB events", for the event's shape; docs/accounts.md, "Drift
// in seconds: the change feed", has the rule and the queue policy).
//
// A feed is one queue read with long polling under one identity: an
// AWSAccount's role (its spec.changeEvents), or the operator's own (its
// --dynamodb-change-events-queue flag). Each event is mapped by account,
// region and table name to the DynamoDBTable that holds the table, which
// is queued for a reconcile at once; only then is the message deleted.
// Events that are malformed, about tables no object holds or accounts the
// queue does not serve, duplicates, Tether's own calls and changes an
// already queued look will see are counted and dropped.
//
// Delivery is best effort, so polling stays as the safety net: while a
// feed is read without trouble, its identity's tables are read every
// safety interval instead of every poll interval (Registry.Cover); when
// it fails, every table given the longer interval is woken at once and
// goes back to the poll interval, and the AWSAccount's status says which
// mode it is in and why.
//
// A queue that answers is not yet a queue that events reach: the DynamoDB
// client tells the registry of each of Tether's writes AWS accepted
// (Registry.Sending), whose event the rule delivers like anyone's, and a
// feed whose calls do not come back within its echo window fails with
// NoEcho (echo.go, health.go) until the event of that call, or of one of
// Tether's later writes, arrives.
package changefeed
