package plan

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Warm throughput of the table and its indexes. The spec's values are a
// floor: DynamoDB reports its own values, raises them by itself as the table
// scales and only lets anyone raise them (developerguide/warm-throughput.html,
// update-warm-throughput.html), so a reported value at or above the spec is
// in sync. Comparing for equality instead is what sent 101,707 updates in 23
// hours for a user of the Upbound provider (crossplane-contrib/
// provider-upjet-aws #1976).

// FeatureWarm names warm throughput where an endpoint may lack it.
const FeatureWarm = "warmThroughput"

// Kinds of the warm throughput steps.
const (
	StepWarm      StepKind = "WarmThroughput"
	StepIndexWarm          = indexKindPrefix + StepWarm
)

func init() {
	register(warmSetting.registered(FeatureWarm, atWarm, warmSetting.plan))
}

// warmSetting is where warm throughput sits, how the spec and
// DescribeTable say it, and how UpdateTable raises it: the table's, then
// each index's, one call each.
var warmSetting = sentSetting[Warm, types.WarmThroughput]{
	where: indexed[Warm]{
		at:            func(c *Carried) **Warm { return &c.Warm },
		wanted:        func(s *awsv1alpha1.DynamoDBTableSpec) *Warm { return specWarm(s.WarmThroughput) },
		wantedOfIndex: func(g *awsv1alpha1.GlobalSecondaryIndex) *Warm { return specWarm(g.WarmThroughput) },
		toCreate:      func(w *Warm, in *dynamodb.CreateTableInput) { in.WarmThroughput = w.createInput() },
		toCreateIndex: func(w *Warm, in *types.CreateGlobalSecondaryIndexAction) { in.WarmThroughput = w.createInput() },
		reported: func(d *types.TableDescription) *Warm {
			if w := d.WarmThroughput; w != nil {
				return awsWarm(w.ReadUnitsPerSecond, w.WriteUnitsPerSecond, string(w.Status))
			}
			return awsWarm(nil, nil, "")
		},
		reportedOfIndex: func(g *types.GlobalSecondaryIndexDescription) *Warm {
			if w := g.WarmThroughput; w != nil {
				return awsWarm(w.ReadUnitsPerSecond, w.WriteUnitsPerSecond, string(w.Status))
			}
			return awsWarm(nil, nil, "")
		},
	},
	sent: sentInUpdate[types.WarmThroughput]{
		toTable:  func(in *types.WarmThroughput, u *dynamodb.UpdateTableInput) { u.WarmThroughput = in },
		toIndex:  func(in *types.WarmThroughput, u *types.UpdateGlobalSecondaryIndexAction) { u.WarmThroughput = in },
		kind:     StepWarm,
		describe: describeWarm,
	},
	send:  (*Warm).raise,
	after: (*Warm).raised,
}

func specWarm(w *awsv1alpha1.WarmThroughput) *Warm {
	if w == nil {
		return nil
	}
	return &Warm{Read: w.ReadUnitsPerSecond, Write: w.WriteUnitsPerSecond}
}

// awsWarm reads a reported warm throughput; nothing reported (DynamoDB
// Local) reads as 0, so a floor is sent once and the endpoint's answer says
// whether it has the feature.
func awsWarm(read, write *int64, status string) *Warm {
	return &Warm{Read: aws.Int64(aws.ToInt64(read)), Write: aws.Int64(aws.ToInt64(write)), Status: status}
}

// raise is what to send to bring have up to the floor: only the values
// below it, nil when none is (or either side is unknown, or a raise is
// still UPDATING: it is not sent twice). Never a lower value: AWS only
// raises warm throughput.
func (want *Warm) raise(have *Warm) *types.WarmThroughput {
	if want == nil || have == nil || have.updating() {
		return nil
	}
	var out types.WarmThroughput
	if want.Read != nil && *want.Read > aws.ToInt64(have.Read) {
		out.ReadUnitsPerSecond = want.Read
	}
	if want.Write != nil && *want.Write > aws.ToInt64(have.Write) {
		out.WriteUnitsPerSecond = want.Write
	}
	if out.ReadUnitsPerSecond == nil && out.WriteUnitsPerSecond == nil {
		return nil
	}
	return &out
}

func (have *Warm) raised(in *types.WarmThroughput) *Warm {
	out := *have
	if in.ReadUnitsPerSecond != nil {
		out.Read = in.ReadUnitsPerSecond
	}
	if in.WriteUnitsPerSecond != nil {
		out.Write = in.WriteUnitsPerSecond
	}
	return &out
}

func (w *Warm) updating() bool { return w != nil && w.Status == string(types.IndexStatusUpdating) }

// describeWarm says what a step raises the warm throughput of what to:
// "raise table warm throughput to 4000 reads/s".
func describeWarm(what string, in *types.WarmThroughput) string {
	return "raise " + what + " warm throughput to " + describeReadWrite(in.ReadUnitsPerSecond, in.WriteUnitsPerSecond,
		func(unit string, v int64) string { return fmt.Sprintf("%d %s/s", v, unit) })
}

// createInput is what CreateTable or an index create carries.
func (want *Warm) createInput() *types.WarmThroughput {
	if want == nil {
		return nil
	}
	return &types.WarmThroughput{ReadUnitsPerSecond: want.Read, WriteUnitsPerSecond: want.Write}
}
