package plan

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// On-demand throughput: a PAY_PER_REQUEST table's or index's request unit
// caps. 0 means no cap, whether AWS reports -1 or nothing at all (a cap
// never set is absent from DescribeTable; pulumi/pulumi-aws #5126 shows the
// endless diff of treating -1 and absent differently).

// FeatureOnDemand names on-demand throughput where an endpoint may lack it.
const FeatureOnDemand = "onDemandThroughput"

// Kinds of the on-demand throughput steps.
const (
	StepOnDemand      StepKind = "OnDemandThroughput"
	StepIndexOnDemand          = indexKindPrefix + StepOnDemand
)

func init() {
	register(onDemandSetting.registered(FeatureOnDemand, atOnDemand, (*planner).updateOnDemand))
}

// onDemandSetting is where the caps sit, how the spec and DescribeTable
// say them, and how UpdateTable sends them.
var onDemandSetting = sentSetting[OnDemand, types.OnDemandThroughput]{
	where: indexed[OnDemand]{
		at:              func(c *Carried) **OnDemand { return &c.OnDemand },
		wanted:          func(s *awsv1alpha1.DynamoDBTableSpec) *OnDemand { return specOnDemand(s.OnDemandThroughput) },
		wantedOfIndex:   func(g *awsv1alpha1.GlobalSecondaryIndex) *OnDemand { return specOnDemand(g.OnDemandThroughput) },
		reported:        func(d *types.TableDescription) *OnDemand { return awsOnDemand(d.OnDemandThroughput) },
		reportedOfIndex: func(g *types.GlobalSecondaryIndexDescription) *OnDemand { return awsOnDemand(g.OnDemandThroughput) },
		toCreate:        func(o *OnDemand, in *dynamodb.CreateTableInput) { in.OnDemandThroughput = o.createInput() },
		toCreateIndex:   func(o *OnDemand, in *types.CreateGlobalSecondaryIndexAction) { in.OnDemandThroughput = o.createInput() },
	},
	sent: sentInUpdate[types.OnDemandThroughput]{
		toTable: func(in *types.OnDemandThroughput, u *dynamodb.UpdateTableInput) { u.OnDemandThroughput = in },
		toIndex: func(in *types.OnDemandThroughput, u *types.UpdateGlobalSecondaryIndexAction) {
			u.OnDemandThroughput = in
		},
		kind:     StepOnDemand,
		describe: describeCaps,
	},
	send:  (*OnDemand).change,
	after: (*OnDemand).applied,
}

// updateOnDemand sets the caps of the table, then of each index, one call
// each. Caps exist only on PAY_PER_REQUEST (sending them on a PROVISIONED
// table is a ValidationException, go-to-k/cdkd #1441), and a switch to
// PROVISIONED drops them without a switch back restoring them (cdkd
// #3403): after a billing switch in this plan they are taken as gone
// (switchBilling calls dropOnDemand) and sent again.
func (p *planner) updateOnDemand() {
	if p.want.BillingMode != awsv1alpha1.BillingModePayPerRequest || p.cur.BillingMode != awsv1alpha1.BillingModePayPerRequest {
		return
	}
	onDemandSetting.plan(p)
}

// dropOnDemand forgets the caps a billing switch removed.
func (p *planner) dropOnDemand() {
	for _, c := range p.cur.carried() {
		if c.OnDemand != nil {
			c.OnDemand = awsOnDemand(nil)
		}
	}
}

func specOnDemand(o *awsv1alpha1.OnDemandThroughput) *OnDemand {
	if o == nil {
		return nil
	}
	return &OnDemand{Read: capOf(o.MaxReadRequestUnits), Write: capOf(o.MaxWriteRequestUnits)}
}

// capOf normalises a cap: -1 (no cap) becomes 0.
func capOf(v *int64) *int64 {
	if v == nil {
		return nil
	}
	return aws.Int64(max(*v, 0))
}

func awsOnDemand(o *types.OnDemandThroughput) *OnDemand {
	out := &OnDemand{Read: aws.Int64(0), Write: aws.Int64(0)}
	if o != nil {
		if v := capOf(o.MaxReadRequestUnits); v != nil {
			out.Read = v
		}
		if v := capOf(o.MaxWriteRequestUnits); v != nil {
			out.Write = v
		}
	}
	return out
}

// change is what to send to bring have's caps to want's, nil when they
// match (or either side is unknown).
func (want *OnDemand) change(have *OnDemand) *types.OnDemandThroughput {
	if want == nil || have == nil {
		return nil
	}
	var out types.OnDemandThroughput
	if want.Read != nil && *want.Read != aws.ToInt64(have.Read) {
		out.MaxReadRequestUnits = aws.Int64(sendCap(*want.Read))
	}
	if want.Write != nil && *want.Write != aws.ToInt64(have.Write) {
		out.MaxWriteRequestUnits = aws.Int64(sendCap(*want.Write))
	}
	if out.MaxReadRequestUnits == nil && out.MaxWriteRequestUnits == nil {
		return nil
	}
	return &out
}

// sendCap is how AWS spells "no cap": -1.
func sendCap(v int64) int64 {
	if v == 0 {
		return -1
	}
	return v
}

// applied is have after in was sent.
func (have *OnDemand) applied(in *types.OnDemandThroughput) *OnDemand {
	out := &OnDemand{Read: aws.Int64(0), Write: aws.Int64(0)}
	if have != nil {
		out = &OnDemand{Read: aws.Int64(aws.ToInt64(have.Read)), Write: aws.Int64(aws.ToInt64(have.Write))}
	}
	if v := capOf(in.MaxReadRequestUnits); v != nil {
		out.Read = v
	}
	if v := capOf(in.MaxWriteRequestUnits); v != nil {
		out.Write = v
	}
	return out
}

// createInput is what CreateTable or an index create carries: only caps,
// "{}" sets nothing (go-to-k/cdkd #3373).
func (want *OnDemand) createInput() *types.OnDemandThroughput {
	if want == nil {
		return nil
	}
	var out types.OnDemandThroughput
	if aws.ToInt64(want.Read) > 0 {
		out.MaxReadRequestUnits = want.Read
	}
	if aws.ToInt64(want.Write) > 0 {
		out.MaxWriteRequestUnits = want.Write
	}
	if out.MaxReadRequestUnits == nil && out.MaxWriteRequestUnits == nil {
		return nil
	}
	return &out
}

// describeCaps says what a step does to the caps of what: "limit table
// requests: reads at most 100/s, no limit on writes".
func describeCaps(what string, in *types.OnDemandThroughput) string {
	return "limit " + what + " requests: " + describeReadWrite(in.MaxReadRequestUnits, in.MaxWriteRequestUnits,
		func(unit string, v int64) string {
			if v < 0 {
				return "no limit on " + unit
			}
			return fmt.Sprintf("%s at most %d/s", unit, v)
		})
}
