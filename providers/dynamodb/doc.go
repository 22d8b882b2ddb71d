// Package dynamodb is the DynamoDBTable adapter: it compares the spec with
// what DynamoDB reports and moves the table towards the spec one AWS-legal
// step per call. It stands on two packages, each knowing nothing of the
// ones above it:
//
//   - plan is the model and the planner, pure: the table in one normal
//     form for both sides (plan/model.go), the desired table from the spec
//     (Desired) and the observed one from DescribeTable (Observed), and the
//     planner (Compute), which runs the passes of the table's features in
//     AWS's order (plan/passes.go). Each feature is one file there that
//     registers what the planner needs of it (plan/feature.go): its fields,
//     its comparison, its steps, its CreateTable parameters. A new table
//     feature is one file in plan plus its API field, and a read in
//     reads.go when it has an API of its own.
//   - access is how Tether reaches AWS: the SDK clients of an identity in
//     a region (access.Clients.For, an access.Endpoint), AWSAccount
//     sessions and their roles, the limiter of each account and region and
//     the turns of the passes waiting for it, the stretch when the tables
//     ask more of it than it allows, request logging and metrics, the
//     writes told to the change feeds, what an endpoint lacks (and the
//     probes that find out), and the classification of AWS's errors into
//     what the reconciler does next (access.Classify).
//
// How a pass flows through this package, top-down:
//
//   - Connect (connect.go) resolves the object's account and region
//     (accounts.go: spec.accountRef or the namespace's default, admitted
//     by the AWSAccount's namespaceSelector, not moved since the table was
//     found), gets its endpoint and credentials from access, and checks
//     that no earlier object names the same table (conflict.go). A table
//     being deleted that is retained, or another object's, is let go.
//   - Observe (observe.go) takes a turn on the limiter (noting what the
//     table asks of it, demand.go), reads the table with DescribeTable
//     and proves it is the object's own (ownership.go: the identity on
//     record or in memory, the owner tag, the object's own restore or
//     import, or an adoption its AWSAccount allows, tenancy.go). compare then reads what
//     the features read with calls of their own, when due (reads.go),
//     hides what the endpoint lacks (unsupported.go), completes the
//     desired table with what Tether added before and the spec dropped
//     (desire.go: tags, replicas, scalable targets, the policy, the Kinesis
//     destination, each as its own record allows), and
//     asks plan for the steps. A step AWS accepted that reads do not show
//     yet is waited for, not sent again (inflight.go, waits.go).
//   - Create (create.go) sends CreateTable, or restores the table
//     (restore.go, from a source the namespace may read), or imports it
//     from S3 (import.go, followed by DescribeImport until it ends), or
//     joins a table of another account as its replica (multiaccount.go:
//     both AWSAccounts' tenancy.globalTables checked before the CreateTable, the
//     source's replication statements and stream given by the object that
//     holds it, a joined table that is no member never Ready); Update
//     (update.go) sends the plan's first step only, and the next pass plans
//     again from what AWS then reports (a replica's disassociation goes to
//     the replica's Region, and a refusal is kept for the spec as it is:
//     disassociation.go; what an answer to a vector index step means and
//     the vector indexes' status: vector.go; a strongly consistent global
//     table's refusals, its members not listed yet and
//     REPLICATION_NOT_AUTHORIZED: mrsc.go); the policy's and
//     autoscaling's calls have their own files (policy.go, scaling.go). Delete
//     (delete.go) deletes only a table the object owns, after the replicas
//     that are the object's, those Tether added and those the spec names
//     (replicas.go; all in one call for a strongly consistent
//     global table, mrsc.go) and the scalable targets it registered.
//   - What the adapter remembers between passes is in memory only
//     (memory.go: each object's reads and warnings; records.go: Tether's
//     own records by table, whose each table is and the restores, imports,
//     joins and replicas it began, sent or added; named.go: what each spec named on
//     its table, the only grounds for removing what a spec drops;
//     inflight.go: the calls AWS accepted). These records, never the
//     status, decide ownership and removals. The status shows where
//     the table is and what AWS reports (status.go, accounts.go), the
//     ConfigMap of spec.writeOutputsTo carries its outputs (outputs.go),
//     and a healthy change feed lengthens the poll (changefeeds.go).
//
// The adapter's conditions and their reasons are in reasons.go, besides
// those of access.Classify and the contract's (providers).
package dynamodb
