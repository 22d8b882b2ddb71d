// Package feedtest tests the DynamoDB change feeds as the manager wires
// them (controllers.SetupDynamoDB): AWSAccounts with queues, tables woken
// by their events, feeds that fail, echoes that do not come back, against
// DynamoDB Local, goaws as SQS and a model of CloudTrail's events. It holds
// tests only; the feed itself is providers/dynamodb/changefeed.
package feedtest
