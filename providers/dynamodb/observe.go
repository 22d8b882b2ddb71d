package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

var _ providers.StallKeyer = (*plan.Plan)(nil)

// Observe reads the table (one DescribeTable, plus the secondary reads the
// spec needs when they are due) and plans what would make it match.
func (c *tableConn) Observe(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (providers.Observation, error) {
	p, ep := c.p, c.ep
	shown := obj.Status.EffectivePollInterval
	p.noteDemand(ep, obj)
	ctx, err := ep.TakeTurn(ctx, obj.UID, observeCalls(obj))
	if err != nil {
		// A pass that waits for its turn writes nothing to the API server:
		// the status shows the new interval from the next pass that runs.
		obj.Status.EffectivePollInterval = shown
		return providers.Observation{}, err
	}
	name := obj.ResolvedTableName()
	obj.Status.TableName = name
	p.readAgainIfChangedOutside(obj)
	desc, err := describeTable(ctx, ep.API, name)
	if access.IsNotFound(err) {
		if f, ok := p.flights.inFlight(ep.TableKey(name), callCreateTable, time.Now()); ok {
			return p.waitFor(f.notYetSeen(providers.ReasonCreating, "the CreateTable of table "+name, time.Now())), nil
		}
		// An import shows no table for a while (import.go): wait for it;
		// one that ended without a table is not begun again.
		if obs, wait, err := p.followImport(ctx, ep, obj); wait || err != nil {
			return obs, err
		}
		if obj.Spec.ImportFrom != nil {
			if err := p.importEnded(ep, obj); err != nil {
				return providers.Observation{}, err
			}
		}
		p.noteMissing(obj)
		return providers.Absent(), nil
	}
	if err != nil {
		p.clients.InvalidateCredentials(ep, err)
		return providers.Observation{}, access.Classify(err)
	}
	if err := p.checkOwnership(ctx, ep, obj, desc); err != nil {
		return providers.Observation{}, err
	}
	recordStatus(obj, desc)
	recordReplicas(obj, desc)
	recordStrong(obj, desc)
	recordDisassociationProtection(obj, desc)
	p.forgetGoneReplicas(ep, obj, desc)
	recordTarget(obj, ep)
	if obs, wait, err := p.followImport(ctx, ep, obj); wait || err != nil {
		return obs, err
	}

	switch desc.TableStatus {
	case types.TableStatusCreating:
		return p.transient(providers.ReasonCreating, "DynamoDB is creating the table"), nil
	case types.TableStatusDeleting:
		return p.transient(reasonDeleting, "the table is being deleted (not by Tether); it will be re-created once it is gone"), nil
	case types.TableStatusActive, types.TableStatusUpdating:
		return p.compare(ctx, ep, obj, desc)
	case types.TableStatusReplicationNotAuthorized:
		return tableNotAuthorized(name), nil
	default:
		return providers.Waiting(providers.Wait{Reason: reasonInaccessible,
			Message: fmt.Sprintf("the table is %s; Tether cannot change it until AWS makes it ACTIVE", desc.TableStatus),
			For:     inaccessibleDelay}), nil
	}
}

// observeCalls is what a pass is expected to make on its limiter: one
// DescribeTable, and a CreateTable after it while no table is on record
// (its turn is priced before the DescribeTable says so). Secondary reads
// and writes are left to the budget's measure (access/turns.go).
func observeCalls(obj *awsv1alpha1.DynamoDBTable) int {
	if obj.Status.TableID == "" {
		return 2
	}
	return 1
}

// compare plans the way from the table as it is to the spec: the table as
// DescribeTable and the features' reads show it (plan.Observed, reads.go),
// what the spec and the status ask for (plan.Desired, desire.go), and the
// planner's steps between them (plan.Compute).
func (p *Provider) compare(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription) (providers.Observation, error) {
	if what := plan.ImmutableMismatch(&obj.Spec, immutableView(obj, desc)); what != "" {
		return providers.Observation{}, providers.Terminalf(ReasonImmutableMismatch,
			"the table's %s differs from the spec, and DynamoDB cannot change it after creation: "+
				"make the spec match the table, or delete the table to have it re-created", what)
	}
	if err := strongRegionsRefused(obj, ep.Region); err != nil {
		return providers.Observation{}, err
	}
	if reason, why, ok := p.notJoined(ep, obj, desc); ok {
		return notAvailable(reason, why, time.Minute), nil
	}
	rep, err := p.replicationOf(ctx, ep, obj) // multiaccount.go
	if err != nil {
		return providers.Observation{}, err
	}
	have := plan.Observed(desc)
	if err := p.readSecondary(ctx, ep, obj, desc, have); err != nil {
		return providers.Observation{}, err
	}
	p.skipUnsupported(ep, obj, have)
	if err := p.strongWithoutReplicas(ep, obj); err != nil {
		return providers.Observation{}, err
	}
	insightsFailed := holdFailedInsights(p.memoryOf(obj), obj, have)
	recordKinesis(obj, have.Kinesis)
	kinesisFailed := holdFailedKinesis(p.memoryOf(obj), obj, have)
	want, err := p.desire(ep, obj, have)
	if err != nil {
		return providers.Observation{}, err
	}
	if err := checkPolicyPrincipals(ep, obj, want.Policy); err != nil {
		return providers.Observation{}, err
	}
	if err := rep.apply(obj, want, have); err != nil {
		return providers.Observation{}, err
	}
	pl := plan.Compute(aws.ToString(desc.TableName), want, have,
		plan.Options{AllowIndexReplacement: obj.Annotations[awsv1alpha1.AnnotationAllowIndexReplacement] == "true"})
	recordPlan(obj, pl)
	p.recordPolicy(ep.TableKey(obj.ResolvedTableName()), obj, want.Policy, have.Policy)
	p.flights.seenIn(ep.TableKey(obj.ResolvedTableName()), pl)
	if w, held := p.heldByFlight(ep, obj, pl, time.Now()); held {
		return p.waitFor(w), nil
	}

	// A table whose index is still being built works, but is not yet what
	// the spec asks for: Ready waits for it.
	available := desc.TableStatus == types.TableStatusActive && pl.Busy() == ""
	outputsErr := p.writeOutputs(ctx, ep, obj)
	if obs, waiting := p.strongNotListed(want, have); pl.Empty() && waiting {
		return obs, nil
	}
	if denied := replicasNotAuthorized(have.Replicas); pl.Empty() && available && denied != "" {
		return notAvailable(reasonReplicationNotAuthorized, denied, inaccessibleDelay), nil
	}
	if broken := plan.ReplicasNotWorking(want.Replicas, have.Replicas); pl.Empty() && available && broken != "" {
		return notAvailable(reasonReplicaNotWorking, broken+": Tether cannot fix this by itself (see the replica's Region in AWS)", time.Minute), nil
	}
	if pl.Empty() && available && insightsFailed != "" {
		return notAvailable(reasonInsightsFailed, insightsFailed, insightsFailedRecheck), nil
	}
	if pl.Empty() && available && kinesisFailed != "" {
		return notAvailable(reasonKinesisFailed, kinesisFailed, kinesisFailedRecheck), nil
	}
	if failed := importFailure(obj); pl.Empty() && available && failed != "" {
		return notAvailable(ReasonImportFailed, failed, importFailedRecheck), nil
	}
	if pl.Empty() && available && outputsErr != nil {
		return notAvailable(reasonOutputsNotWritten, outputsErr.Error(), conflictDelay), nil
	}
	if pl.Empty() && available {
		obs := providers.Matches()
		obs.Message = joinNotes(unsupportedNote(obj), p.overriddenTags(ep, obj), p.stretchNote(obj))
		return obs, nil
	}
	if pl.Empty() {
		return p.transient(providers.ReasonUpdating, "DynamoDB is still applying the last change: "+pl.Busy()), nil
	}
	return providers.Differs(pl), nil
}

// recordPlan shows the pending plan in the status.
func recordPlan(obj *awsv1alpha1.DynamoDBTable, pl *plan.Plan) {
	pending := pl.Descriptions()
	if pl.Blocked != "" {
		pending = append(pending, "blocked: "+pl.Blocked)
	}
	if pl.Empty() {
		if len(obj.Status.PendingPlan) > 0 || obj.Status.LastSyncTime == nil {
			now := metaNow()
			obj.Status.LastSyncTime = &now
		}
	}
	obj.Status.PendingPlan = pending
}

// noteMissing handles a table that is not there. If Tether had it before,
// it was deleted behind its back: say so before it is re-created.
func (p *Provider) noteMissing(obj *awsv1alpha1.DynamoDBTable) {
	if obj.Status.TableID != "" {
		p.event(obj, corev1.EventTypeWarning, "TableDeleted", "Observe",
			"table %s was deleted outside Tether; re-creating it from the spec", obj.ResolvedTableName())
	}
	obj.Status.TableID = ""
	obj.Status.Adopted = false
	obj.Status.AddedReplicaRegions = nil
	obj.Status.TableArn = ""
	obj.Status.TableStatus = ""
	obj.Status.LatestStreamArn = ""
	obj.Status.KinesisStreamingDestination = nil
	obj.Status.ManagedKinesisStreamArn = ""
	obj.Status.GlobalSecondaryIndexes = nil
	obj.Status.VectorIndexes = nil
	obj.Status.PendingPlan = nil
	mem := p.memoryOf(obj)
	mem.forgetAllSecondary()
	mem.createRefused = false
}

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	out := ""
	for _, n := range notes {
		if n == "" {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += n
	}
	return out
}
