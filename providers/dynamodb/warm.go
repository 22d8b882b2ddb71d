package dynamodb

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// warm is a table's or index's warm throughput. The spec's values are a
// floor: DynamoDB reports its own values, raises them by itself as the table
// scales and only lets anyone raise them (developerguide/warm-throughput.html,
// update-warm-throughput.html), so a reported value at or above the spec is
// in sync. Comparing for equality instead is what sent 101,707 updates in 23
// hours for a user of the Upbound provider (crossplane-contrib/
// provider-upjet-aws #1976).
type warm struct {
	Read, Write *int64
	// Status is UPDATING while a raise is in progress (observed only).
	Status string
}

func specWarm(w *awsv1alpha1.WarmThroughput) *warm {
	if w == nil {
		return nil
	}
	return &warm{Read: w.ReadUnitsPerSecond, Write: w.WriteUnitsPerSecond}
}

// awsWarm reads a reported warm throughput; nothing reported (DynamoDB
// Local) reads as 0, so a floor is sent once and the endpoint's answer says
// whether it has the feature.
func awsWarm(read, write *int64, status string) *warm {
	return &warm{Read: aws.Int64(aws.ToInt64(read)), Write: aws.Int64(aws.ToInt64(write)), Status: status}
}

func awsTableWarm(d *types.TableWarmThroughputDescription) *warm {
	if d == nil {
		return awsWarm(nil, nil, "")
	}
	return awsWarm(d.ReadUnitsPerSecond, d.WriteUnitsPerSecond, string(d.Status))
}

func awsIndexWarm(d *types.GlobalSecondaryIndexWarmThroughputDescription) *warm {
	if d == nil {
		return awsWarm(nil, nil, "")
	}
	return awsWarm(d.ReadUnitsPerSecond, d.WriteUnitsPerSecond, string(d.Status))
}

// raise is what to send to bring have up to the floor: only the values
// below it, nil when none is (or either side is unknown, or a raise is
// still UPDATING: it is not sent twice). Never a lower value: AWS only
// raises warm throughput.
func (want *warm) raise(have *warm) *types.WarmThroughput {
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

func (have *warm) raised(in *types.WarmThroughput) *warm {
	out := *have
	if in.ReadUnitsPerSecond != nil {
		out.Read = in.ReadUnitsPerSecond
	}
	if in.WriteUnitsPerSecond != nil {
		out.Write = in.WriteUnitsPerSecond
	}
	return &out
}

func (w *warm) updating() bool { return w != nil && w.Status == string(types.IndexStatusUpdating) }

func describeWarm(in *types.WarmThroughput) string {
	var parts []string
	if in.ReadUnitsPerSecond != nil {
		parts = append(parts, fmt.Sprintf("%d reads/s", *in.ReadUnitsPerSecond))
	}
	if in.WriteUnitsPerSecond != nil {
		parts = append(parts, fmt.Sprintf("%d writes/s", *in.WriteUnitsPerSecond))
	}
	return strings.Join(parts, ", ")
}

// createInput is what CreateTable or an index create carries.
func (want *warm) createInput() *types.WarmThroughput {
	if want == nil {
		return nil
	}
	return &types.WarmThroughput{ReadUnitsPerSecond: want.Read, WriteUnitsPerSecond: want.Write}
}

// updateWarm raises the table's warm throughput, then each index's, one
// call each.
func (p *planner) updateWarm() {
	if in := p.want.Warm.raise(p.cur.Warm); in != nil {
		u := p.updateTable()
		u.WarmThroughput = in
		p.add(Step{Kind: StepWarm, Description: "raise table warm throughput to " + describeWarm(in), Table: u})
		p.cur.Warm = p.cur.Warm.raised(in)
	}
	for i, ix := range p.cur.GSIs {
		want, ok := p.want.index(ix.Name)
		if !ok {
			continue
		}
		in := want.Warm.raise(ix.Warm)
		if in == nil {
			continue
		}
		u := p.updateTable()
		u.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
			IndexName: aws.String(ix.Name), WarmThroughput: in}}}
		p.add(Step{Kind: StepIndexWarm, Description: fmt.Sprintf("raise index %s warm throughput to %s", ix.Name, describeWarm(in)), Table: u})
		p.cur.GSIs[i].Warm = ix.Warm.raised(in)
	}
}
