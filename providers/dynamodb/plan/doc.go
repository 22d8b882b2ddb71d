// Package plan is the DynamoDB adapter's model and planner. It is pure: it
// reads nothing, calls nothing, and knows neither the Kubernetes client nor
// the adapter's contract; its tests and its fuzz target (FuzzPlan) run
// without an endpoint.
//
// How a plan is made, file by file:
//
//   - model.go is a table in one normal form for both sides (Table): what
//     the spec asks for, where nil means "not managed", and what AWS
//     reports, where nil means "not known".
//   - Desired (desired.go) makes the desired table from the spec,
//     Observed (observed.go) the observed one from DescribeTable; the
//     adapter adds what the features read with calls of their own (Reads,
//     taken in by Adopt) and hides what the endpoint lacks (Hide).
//   - Compute (plan.go) runs the features' passes in their order
//     (passes.go: the order is AWS's rules), each simulated on a copy of
//     the observed table, so that a later step is planned against the
//     table as the earlier ones leave it. Only the first step is ever
//     sent; what AWS is still doing holds it (gate.go).
//   - Each feature is a file that registers itself once (feature.go):
//     indexes.go, billing.go (billing mode and throughput), stream.go,
//     ttl.go, pitr.go (point-in-time recovery and its period),
//     deletionprotection.go, tableclass.go, sse.go, tags.go, ondemand.go,
//     warm.go, insights.go (contributor insights), policy.go (the resource
//     policy), kinesis.go (the Kinesis streaming destination),
//     autoscaling.go, vector.go (vector indexes), replicas.go and
//     disassociation.go (a
//     replica kept as a table of its own, the table's disassociation
//     protection), mrsc.go (a multi-Region strong consistency global
//     table, made and left in one call each). multiaccount.go is
//     multi-account global tables: the CreateTable that joins another
//     account's table, the replication statements each member's policy
//     carries, what the source decides for a joined table (FromSource),
//     and the settings replication a source needs (its one step). A
//     feature file says how its
//     fields are desired and observed, how they compare, which steps bring
//     them to the spec and at which positions, and what CreateTable
//     carries of it (create.go puts those together). A setting the table
//     and each index carry alike (model.go's Carried: on-demand and warm
//     throughput, contributor insights) says where it sits in Carried,
//     and indexed.go goes over the table and its indexes for it, an
//     index's step of it named as the table's with the prefix Index
//     (step.go).
//   - immutable.go names what no update can change (the key schema, the
//     local secondary indexes), for a table Tether adopts.
//
// A new table feature is one file here plus its API field: its fields in
// Table (model.go), a position for its passes if its steps have an order
// of their own (passes.go), and its read in the adapter when it has an API
// of its own.
package plan
