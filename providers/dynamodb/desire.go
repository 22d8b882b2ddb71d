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
// enabled (status.managedKinesisStreamArn). What the status lists is
// removed only where Tether's own record agrees that it is the object's
// (named.go, replicas.go). It keeps the status's records of what Tether
// manages (managedTagKeys, managedReplicaRegions, managedScalableTargets)
// from what have shows; each record is kept only where have knows it.
func (p *Provider) desire(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, have *plan.Table) (*plan.Table, error) {
	want := plan.Desired(&obj.Spec, p.wantedTags(ep, obj))
	key := ep.TableKey(obj.ResolvedTableName())
	if have.Tags != nil {
		spec := p.tagsToManage(ep, obj)
		for k, v := range spec {
			if w, ok := have.Tags[k]; ok && w == v {
				p.named.note(key, namedTag, k, obj.UID)
			}
		}
		want.RemoveTags = p.named.theirs(key, namedTag, obj.Status.ManagedTagKeys, obj.UID)
		obj.Status.ManagedTagKeys = plan.ManagedTagKeys(obj.Status.ManagedTagKeys, spec, have.Tags)
	}
	attached := obj.Status.ResourcePolicyRevisionID
	if !p.named.isOf(key, namedPolicy, attached, obj.UID) {
		attached = ""
	}
	pol, err := plan.DesiredPolicy(obj.Spec.ResourcePolicy, attached)
	if err != nil {
		return nil, providers.Terminal(access.ReasonInvalidSpec, err)
	}
	want.Policy = pol
	want.Kinesis = plan.DesiredKinesis(&obj.Spec, p.kinesisToDisable(key, obj, have.Kinesis))
	if have.Replicas != nil {
		have.Replicas = plan.WithoutRegion(have.Replicas, ep.Region)
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
		for k := range want.Scaling {
			if s := have.Scaling[k]; s != nil && s.Registered {
				p.named.note(key, namedScaling, k, obj.UID)
			}
		}
		want.RemoveScaling = p.named.theirs(key, namedScaling, obj.Status.ManagedScalableTargets, obj.UID)
		obj.Status.ManagedScalableTargets = plan.ManagedScalingKeys(obj.Status.ManagedScalableTargets, want.Scaling, have.Scaling)
	}
	return want, nil
}

// kinesisToDisable is the Kinesis destination the spec dropped that
// Tether may disable: the one the status names, if Tether enabled it for
// the object or the object's spec named it while the table streamed to it.
func (p *Provider) kinesisToDisable(key string, obj *awsv1alpha1.DynamoDBTable, have plan.Kinesis) string {
	if k := obj.Spec.KinesisStreamingDestination; k != nil {
		if d, ok := have[k.StreamArn]; ok && d.Live() {
			p.named.note(key, namedKinesis, k.StreamArn, obj.UID)
		}
	}
	managed := obj.Status.ManagedKinesisStreamArn
	if _, enabled := p.memoryOf(obj).kinesisEnabled[managed]; enabled || p.named.isOf(key, namedKinesis, managed, obj.UID) {
		return managed
	}
	return ""
}

// recordPolicy keeps status.resourcePolicyRevisionId: the revision of the
// spec's policy once the table has it (and Tether's own record of it,
// named.go), nothing once the policy Tether attached is gone or replaced by
// someone else's.
func (p *Provider) recordPolicy(key string, obj *awsv1alpha1.DynamoDBTable, want, have *plan.Policy) {
	if want == nil || have == nil {
		return
	}
	switch {
	case !want.Absent && !have.Absent && plan.SamePolicy(want, have):
		obj.Status.ResourcePolicyRevisionID = have.Revision
		p.named.note(key, namedPolicy, have.Revision, obj.UID)
	case want.Absent && (have.Absent || have.Revision != want.Revision):
		obj.Status.ResourcePolicyRevisionID = ""
	}
}
