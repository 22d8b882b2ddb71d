// Package awstest tests the DynamoDBTable and AWSAccount controllers as the
// manager wires them, on a real API server against DynamoDB Local and STS's
// model (with a model of the 2026 DynamoDB features and of multi-account
// replication), and that the samples are accepted by the API server. It also
// holds TestHueControllersWaitForAHueObject, which starts every controller
// (SetupAll) on an API server of its own and needs neither package's suite:
// here it evens out the two packages' times. It holds tests only; what it
// shares with controllers/huetest is internal/ctrltest.
package awstest
