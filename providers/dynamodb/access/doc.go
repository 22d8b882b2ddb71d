// Package access is how the DynamoDB adapter reaches AWS. It knows neither
// the adapter above it nor its planner.
//
// What a call goes through, file by file:
//
//   - options.go and clients.go: Clients builds one SDK client per
//     identity and region (For, an Endpoint, endpoint.go) and reuses it:
//     the operator's own identity from the AWS default chain, or an
//     AWSAccount's through its session (session.go: STS AssumeRole through
//     the account's chain of roles, in the SDK's credentials cache; a
//     refusal is kept so that the account's tables do not each ask again).
//     Application Auto Scaling gets a client of its own beside DynamoDB's,
//     where there is an endpoint for it (scaling.go). api.go is the part
//     of the clients the adapter uses.
//   - turns.go: every attempt, retries included, waits for the limiter of
//     its account and region; a pass starts only when that limiter can
//     serve it soon, and otherwise takes a turn in its queue
//     (Endpoint.TakeTurn) and gives its worker back. stretch.go publishes
//     how much the tables of an account and region ask of their limiter,
//     and how much longer than their poll interval they go between looks.
//   - metrics.go counts every attempt by service, account, region,
//     operation and result; sdklog.go hands the SDK's log lines to the
//     operator's logger; echoes.go tells the change feeds of each write AWS
//     accepted (Feeds).
//   - errors.go turns an AWS error into what the reconciler does next
//     (Classify: terminal, retry after a delay, wait) with a message that
//     stays the same from one attempt to the next (Stable).
//   - probe.go remembers, per endpoint, the APIs it lacks (DynamoDB Local
//     has no tagging, say), finding out with one caller at a time.
package access
