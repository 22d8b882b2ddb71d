package dynamodb

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Multi-Region strong consistency (MRSC) global tables as the adapter
// handles them beside the plan (plan/mrsc.go): what the CEL rules cannot
// check because the table's Region is resolved here, AWS's and the
// endpoint's refusals of the one call that makes one, the wait while AWS
// does not list the new members yet, REPLICATION_NOT_AUTHORIZED, and the
// way out before the table is deleted.

// reasonReplicationNotAuthorized: AWS may not replicate the table, as a
// policy or SCP denies DynamoDB's service-linked role.
const reasonReplicationNotAuthorized = "ReplicationNotAuthorized"

// mrscUnsupportedRegion is the Region where AWS refuses MRSC (defined once,
// in the API: awsv1alpha1.MRSCUnsupportedRegion); the CEL rules say so too,
// for the Regions the spec names.
const mrscUnsupportedRegion = awsv1alpha1.MRSCUnsupportedRegion

// recordStrong shows the consistency and the witnesses AWS reports.
func recordStrong(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	obj.Status.MultiRegionConsistency = ""
	if d.MultiRegionConsistency == types.MultiRegionConsistencyStrong {
		obj.Status.MultiRegionConsistency = string(d.MultiRegionConsistency)
	}
	var ws []awsv1alpha1.GlobalTableWitnessStatus
	for _, w := range d.GlobalTableWitnesses {
		ws = append(ws, awsv1alpha1.GlobalTableWitnessStatus{RegionName: aws.ToString(w.RegionName), WitnessStatus: string(w.WitnessStatus)})
	}
	slices.SortFunc(ws, func(a, b awsv1alpha1.GlobalTableWitnessStatus) int {
		return strings.Compare(a.RegionName, b.RegionName)
	})
	obj.Status.GlobalTableWitnesses = ws
}

// strongRegionsRefused names what AWS would refuse of a STRONG spec in the
// table's Region as resolved (the CEL rules know it only from spec.region):
// a witness or replica there, or the table in us-west-1. It is checked
// before any call, so no table is created that could never become STRONG.
func strongRegionsRefused(obj *awsv1alpha1.DynamoDBTable, region string) error {
	spec := &obj.Spec
	if spec.MultiRegionConsistency != awsv1alpha1.MultiRegionConsistencyStrong || region == "" {
		return nil
	}
	var why string
	switch {
	case region == mrscUnsupportedRegion:
		why = "the table's Region " + region + " is one where AWS refuses multi-Region strong consistency (Unsupported Region(s))"
	case spec.GlobalTableWitness != nil && spec.GlobalTableWitness.RegionName == region:
		why = "spec.globalTableWitness is in the table's own Region " + region
	case specNamesReplica(obj, region):
		why = "spec.replicas names the table's own Region " + region
	default:
		return nil
	}
	return providers.Terminalf(plan.ReasonStrongRefused, "%s: AWS would refuse it, so nothing is sent; the table's Region comes from "+
		"spec.region, the AWSAccount or the operator's default", why)
}

// strongRefused is the error of the call that makes a STRONG global table
// when it was refused, nil for any other step or answer. An endpoint
// without MRSC (DynamoDB Local answers "Nothing to update", and ignores the
// fields beside a real change) is said to lack it: the table is not Ready
// and the call is not sent again, as the spec cannot work there. AWS's own
// refusal (a table that holds items or has Time to Live on, a Region
// outside the consistency's Region set, ...) is named with AWS's words and not sent again until the
// spec changes: the same call would be refused again.
func strongRefused(step plan.Step, err error) error {
	if step.Kind != plan.StepCreateStrong || access.ErrorCode(err) != "ValidationException" {
		return nil
	}
	if strings.Contains(err.Error(), "Nothing to update") {
		return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint does not support multi-Region strong "+
			"consistency (spec.multiRegionConsistency STRONG, spec.globalTableWitness): it answered %v to %q. The table stays a "+
			"single-Region table; on this endpoint leave multiRegionConsistency out", access.Stable(err), step.Description)
	}
	return providers.Terminalf(plan.ReasonStrongRefused, "AWS refused to %s: %v. Nothing is sent again until the spec changes "+
		"(AWS makes a STRONG global table only of an empty single-Region table without Time to Live or local secondary indexes, "+
		"with replicas and a witness in one Region set)",
		step.Description, access.Stable(err))
}

// strongNotListed is the wait while AWS does not list yet the members of
// a STRONG global table it just made ("" when all are listed): they may be
// missing from DescribeTable for the first seconds, which is AWS at work,
// not drift.
func (p *Provider) strongNotListed(want, have *plan.Table) (providers.Observation, bool) {
	missing := plan.StrongNotListed(want, have)
	if missing == "" {
		return providers.Observation{}, false
	}
	return p.transient(providers.ReasonUpdating, "DynamoDB is making the strongly consistent global table and does not list "+
		missing+" yet"), true
}

// replicationNotAuthorized is the message of a table or replica that AWS
// reports REPLICATION_NOT_AUTHORIZED (aws-sdk-go-v2 service/dynamodb
// CHANGELOG v1.44.0; developerguide globaltables-security.html): what to
// fix, and that Tether neither re-creates nor deletes anything for it.
func replicationNotAuthorized(what string) string {
	return what + " is REPLICATION_NOT_AUTHORIZED: a policy or a service control policy denies DynamoDB's service-linked role " +
		"(AWSServiceRoleForDynamoDBReplication) the replication. Allow the role what it needs in the table's and the replicas' " +
		"accounts and Regions; meanwhile a strongly consistent table refuses writes and strongly consistent reads and becomes " +
		"inaccessible for good after 7 days, and an eventually consistent replica is cut off for good after 20 hours " +
		"(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-security.html). " +
		"Tether neither re-creates nor deletes anything for it"
}

// replicasNotAuthorized names the replicas AWS reports
// REPLICATION_NOT_AUTHORIZED, "" when none.
func replicasNotAuthorized(have map[string]plan.Replica) string {
	var out []string
	for _, region := range slices.Sorted(maps.Keys(have)) {
		if have[region].Status == string(types.ReplicaStatusReplicationNotAuthorized) {
			out = append(out, region)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return replicationNotAuthorized("replica " + strings.Join(out, ", "))
}

// tableNotAuthorized is the wait of a table AWS reports
// REPLICATION_NOT_AUTHORIZED: nothing Tether sends fixes it.
func tableNotAuthorized(name string) providers.Observation {
	return providers.Waiting(providers.Wait{Reason: reasonReplicationNotAuthorized,
		Message: replicationNotAuthorized("table " + name), For: inaccessibleDelay})
}

// leaveStrongFirst is the start of deleting a STRONG global table: AWS
// refuses a DeleteTable of one member and the removal of one replica, so
// every replica and the witness go in one call, once all are Tether's; with
// one that is not, nothing is removed and the delete waits, saying so.
func (p *Provider) leaveStrongFirst(ctx context.Context, ep *access.Endpoint, d *types.TableDescription, ours, others []string) (bool, error) {
	name := aws.ToString(d.TableName)
	var witnesses []string
	for _, w := range d.GlobalTableWitnesses {
		if w.WitnessStatus != types.WitnessStatusActive {
			return false, providers.Pendingf(p.opts.TransitionPoll, reasonDeleting, "removing the replicas of table %s before deleting it: "+
				"witness %s is %s", name, aws.ToString(w.RegionName), w.WitnessStatus)
		}
		witnesses = append(witnesses, aws.ToString(w.RegionName))
	}
	if len(others) > 0 {
		return false, providers.RetryAfter(conflictDelay, reasonForeignReplicas, fmt.Errorf(
			"table %s is a strongly consistent global table with replicas Tether did not add (%s): AWS removes its replicas only "+
				"all together, so none is removed and the table is not deleted either; remove them in AWS to let the delete go on",
			name, strings.Join(others, ", ")))
	}
	slices.Sort(witnesses)
	step := plan.LeaveStrongStep(name, ours, witnesses)
	if _, err := ep.API.UpdateTable(ctx, step.Table); err != nil {
		return false, access.Classify(err)
	}
	for _, region := range ours {
		p.flights.accepted(ep.TableKey(name), flight{call: step.Description, subject: string(plan.StepDeleteReplica) + ":" + region,
			at: time.Now(), settle: p.opts.SettleWindow})
	}
	return false, providers.Pendingf(time.Second, reasonDeleting, "removing every replica (%s) and witness of table %s "+
		"before deleting the table", strings.Join(ours, ", "), name)
}

// strongMembersInFlight records, beside the call's own flight, each replica
// the call that makes a STRONG global table created: until a read lists it
// (AWS leaves them out for the first seconds), it is not taken for gone
// (forgetGoneReplicas).
func (p *Provider) strongMembersInFlight(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, step plan.Step, at time.Time) {
	if step.Kind != plan.StepCreateStrong || step.Table == nil {
		return
	}
	for _, u := range step.Table.ReplicaUpdates {
		if u.Create != nil {
			p.flights.accepted(ep.TableKey(obj.ResolvedTableName()), flight{call: step.Description,
				subject: string(plan.StepCreateReplica) + ":" + aws.ToString(u.Create.RegionName), at: at, settle: p.opts.SettleWindow})
		}
	}
}

// strongWithoutReplicas is the error of a STRONG spec on an endpoint found
// to lack replicas altogether (DynamoDB Local, once a replica was refused
// there): a STRONG table cannot be left without them, as replicas can,
// so it is not Ready either; nil otherwise.
func (p *Provider) strongWithoutReplicas(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if obj.Spec.MultiRegionConsistency != awsv1alpha1.MultiRegionConsistencyStrong || !p.clients.Lacks(ep, plan.FeatureReplicas) {
		return nil
	}
	return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint does not support multi-Region strong consistency "+
		"(spec.multiRegionConsistency STRONG): it has no global table replicas. The table stays a single-Region table; on this "+
		"endpoint leave multiRegionConsistency out")
}
