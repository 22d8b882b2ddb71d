package dynamodb

import (
	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// desire is the table obj's spec asks for, with what depends on the
// status: the tags, replicas and scalable targets Tether added before and
// the spec dropped are removed, and the policy Tether attached is removed
// when the spec drops it, as is the Kinesis streaming destination Tether
// enabled (status.managedKinesisStreamArn). It keeps the status's records of what Tether
// manages (managedTagKeys, managedReplicaRegions, managedScalableTargets)
// from what have shows; each record is kept only where have knows it.
func (p *Provider) desire(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, have *plan.Table) (*plan.Table, error) {
	want := plan.Desired(&obj.Spec, p.wantedTags(ep, obj))
	if have.Tags != nil {
		want.RemoveTags = obj.Status.ManagedTagKeys
		obj.Status.ManagedTagKeys = plan.ManagedTagKeys(obj.Status.ManagedTagKeys, p.tagsToManage(ep, obj), have.Tags)
	}
	pol, err := plan.DesiredPolicy(obj.Spec.ResourcePolicy, obj.Status.ResourcePolicyRevisionID)
	if err != nil {
		return nil, providers.Terminal(access.ReasonInvalidSpec, err)
	}
	want.Policy = pol
	want.Kinesis = plan.DesiredKinesis(&obj.Spec, obj.Status.ManagedKinesisStreamArn)
	if have.Replicas != nil {
		have.Replicas = plan.WithoutRegion(have.Replicas, ep.Region)
		key := ep.TableKey(obj.ResolvedTableName())
		for region := range want.Replicas {
			if _, ok := have.Replicas[region]; ok {
				p.replicas.name(key, region, obj.UID)
			}
		}
		// The status lists what Tether manages for the user to see, and
		// is anyone's to write: a dropped replica is removed only when
		// Tether's own record says it added it or the spec named it.
		for _, region := range obj.Status.ManagedReplicaRegions {
			if p.replicas.mayRemove(key, region, obj.UID) {
				want.RemoveReplicas = append(want.RemoveReplicas, region)
			}
		}
		want.DisassociationRefused = refusedDisassociations(p.memoryOf(obj), obj)
		obj.Status.ManagedReplicaRegions = plan.ManagedReplicaRegions(obj.Status.ManagedReplicaRegions, want.Replicas, have.Replicas)
	}
	if have.Scaling != nil {
		want.RemoveScaling = obj.Status.ManagedScalableTargets
		obj.Status.ManagedScalableTargets = plan.ManagedScalingKeys(obj.Status.ManagedScalableTargets, want.Scaling, have.Scaling)
	}
	return want, nil
}

// recordPolicy keeps status.resourcePolicyRevisionId: the revision of the
// spec's policy once the table has it, nothing once the policy Tether
// attached is gone or replaced by someone else's.
func recordPolicy(obj *awsv1alpha1.DynamoDBTable, want, have *plan.Policy) {
	if want == nil || have == nil {
		return
	}
	switch {
	case !want.Absent && !have.Absent && plan.SamePolicy(want, have):
		obj.Status.ResourcePolicyRevisionID = have.Revision
	case want.Absent && (have.Absent || have.Revision != want.Revision):
		obj.Status.ResourcePolicyRevisionID = ""
	}
}
