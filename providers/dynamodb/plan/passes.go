package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// position is where a pass runs in the planner: each feature registers its
// passes at these positions (feature.go), and Compute runs them in this
// order, which is AWS's rules, not a matter of taste:
//   - capacities autoscaling owns are taken as they are before anything
//     compares capacities;
//   - a replica goes first, since its removal is what lets the stream or
//     capacity mode it needed change, and is added last, once the stream
//     and capacity it needs are planned; a replica the spec keeps as a
//     table of its own is disassociated before the delete pass, which
//     then never sees it; a strongly consistent global table (mrsc.go)
//     leaves that state first, its replicas and witness removed in one
//     call, and is made where replicas are added, all in one call;
//   - indexes are deleted before a billing switch, which must carry the
//     throughput of every index left, and scalable targets are deregistered
//     before a switch to PAY_PER_REQUEST; vector indexes, which only a
//     PAY_PER_REQUEST table has, are deleted before a switch away from it
//     and created after a switch to it (vector.go);
//   - a changed stream view type needs the old stream off first;
//   - index creates come one per call, after the billing mode and
//     throughput they are created under, and before the per-index settings
//     (on-demand caps, warm throughput, autoscaling) that need them;
//   - the settings with APIs of their own (TTL, backups, insights, the
//     Kinesis destination, policy, tags) follow; tags go last.
const (
	atYieldToAutoScaling position = iota
	atLeaveStrong
	atDisassociateReplicas
	atDeleteReplicas
	atDeleteIndexes
	atDeleteVectorIndexes
	atDeregisterScaling
	atSwitchBilling
	atThroughput
	atStream
	atCreateIndexes
	atCreateVectorIndexes
	atOnDemand
	atWarm
	atRegisterScaling
	atCreateStrong
	atAddReplicas
	atTTL
	atPITR
	atRecoveryPeriod
	atDeletionProtection
	atDisassociationProtection
	atTableClass
	atSSE
	atInsights
	atKinesis
	atPolicy
	atSettingsReplication
	atTags
	positions // how many there are
)

type position int

// pass is one of a feature's passes: it adds the steps that bring the
// planner's current table towards want for its part, and applies them to
// the current table so that later passes plan against the table as the
// earlier steps leave it.
type pass struct {
	at  position
	run func(*planner)
}

// planner builds a plan while simulating each step on cur.
type planner struct {
	name string
	want *Table
	cur  *Table
	opts Options
	// steps are the plan's steps so far; blocked is what the user must
	// allow (Plan.Blocked).
	steps   []Step
	blocked string
	// blockedReason is the reason of the first feature that blocked the
	// plan with one of its own ("" for an index replacement).
	blockedReason string
}

// block adds what the user must change to the plan's blocked message.
func (p *planner) block(reason, why string) {
	if p.blocked == "" {
		p.blockedReason = reason
	}
	if p.blocked != "" {
		p.blocked += "; "
	}
	p.blocked += why
}

// Options are the user's say in a plan beyond the spec.
type Options struct {
	// AllowIndexReplacement lets the planner delete and re-create an index
	// whose key schema or projection changed.
	AllowIndexReplacement bool
}

func (p *planner) add(s Step) { p.steps = append(p.steps, s) }

func (p *planner) updateTable() *dynamodb.UpdateTableInput {
	return &dynamodb.UpdateTableInput{TableName: aws.String(p.name)}
}

// keptIndexes calls f with each index the table has and the spec keeps,
// by its position in cur.GSIs, in the table's order.
func (p *planner) keptIndexes(f func(i int, want, have Index)) {
	for i, ix := range p.cur.GSIs {
		if want, ok := p.want.index(ix.Name); ok {
			f(i, want, ix)
		}
	}
}

// indexStep is the UpdateTable step that changes one index's settings.
func (p *planner) indexStep(kind StepKind, desc string, u types.UpdateGlobalSecondaryIndexAction) Step {
	in := p.updateTable()
	in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Update: &u}}
	return Step{Kind: kind, Description: desc, Table: in}
}
