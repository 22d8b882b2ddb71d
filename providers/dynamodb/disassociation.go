package dynamodb

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Replica disassociation as the adapter handles it beside the plan
// (plan/disassociation.go): where the call goes, what a refusal leaves,
// and what the status shows afterwards.

// stepEndpoint is where a step goes: the table's own endpoint, or for a
// replica's disassociation the same identity (the owner's credentials) in
// the replica's Region, as AWS requires ("Send disassociation and
// disassociation protection requests to the replica's Region using
// credentials for the account that owns the replica", API UpdateTable).
func (p *Provider) stepEndpoint(ctx context.Context, ep *access.Endpoint, step plan.Step) (*access.Endpoint, error) {
	if step.Region == "" || step.Region == ep.Region {
		return ep, nil
	}
	return p.clients.For(ctx, access.Target{Account: ep.Identity, Region: step.Region, AWSAccount: ep.AWSAccount})
}

// disassociationRefused keeps AWS's refusal of a disassociation for the
// object's spec as it is: the plan names it and sends it no more, nor
// deletes the replica, until the spec or annotations change. It is nil
// for any other step or error (throttling and the like are retried as
// usual).
func (p *Provider) disassociationRefused(obj *awsv1alpha1.DynamoDBTable, step plan.Step, err error) error {
	if step.Kind != plan.StepDisassociateReplica || access.ErrorCode(err) != "ValidationException" {
		return nil
	}
	mem := p.memoryOf(obj)
	mem.disassociationRefused[step.Region] = disassociationRefusal{fingerprint: objectFingerprint(obj), words: access.Stable(err).Error()}
	return providers.Terminalf(plan.ReasonDisassociationRefused, "AWS refused to disassociate replica %s of table %s: %v; "+
		"it is not sent again, nor is the replica deleted, until the spec changes (a replica's disassociation protection, on by default, "+
		"is switched off in its own Region)", step.Region, obj.ResolvedTableName(), access.Stable(err))
}

// refusedDisassociations are the disassociations AWS refused for the
// object as it is now, with AWS's words.
func refusedDisassociations(mem *memory, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	out := map[string]string{}
	for region, r := range mem.disassociationRefused {
		if r.fingerprint == objectFingerprint(obj) {
			out[region] = r.words
		}
	}
	return out
}

// recordDisassociation shows, once AWS accepted a disassociation, the
// former replica in status.disassociatedReplicaRegions (a table of its own
// Tether does not manage), and drops it from Tether's record of the
// replicas it may remove: it is no replica of this table any more, and
// nothing Tether does to this table touches it again.
func (p *Provider) recordDisassociation(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, step plan.Step) {
	if step.Kind != plan.StepDisassociateReplica {
		return
	}
	p.replicas.drop(ep.TableKey(obj.ResolvedTableName()), step.Region)
	delete(p.memoryOf(obj).disassociationRefused, step.Region)
	if !slices.Contains(obj.Status.DisassociatedReplicaRegions, step.Region) {
		obj.Status.DisassociatedReplicaRegions = append(slices.Clone(obj.Status.DisassociatedReplicaRegions), step.Region)
		slices.Sort(obj.Status.DisassociatedReplicaRegions)
	}
	obj.Status.AddedReplicaRegions = slices.DeleteFunc(slices.Clone(obj.Status.AddedReplicaRegions), func(r string) bool { return r == step.Region })
	if len(obj.Status.AddedReplicaRegions) == 0 {
		obj.Status.AddedReplicaRegions = nil
	}
}

// recordDisassociationProtection shows the table's own protection as AWS
// reports it; a table that is no global table has none.
func recordDisassociationProtection(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) {
	switch {
	case d.DisassociationProtectionEnabled != nil:
		obj.Status.DisassociationProtectionEnabled = aws.Bool(*d.DisassociationProtectionEnabled)
	case len(d.Replicas) > 0:
		obj.Status.DisassociationProtectionEnabled = aws.Bool(true) // AWS's default (API UpdateTable)
	default:
		obj.Status.DisassociationProtectionEnabled = nil
	}
}
