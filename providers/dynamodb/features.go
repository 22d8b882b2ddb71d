package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// The table features newer than the classic set. Each lives in a file of
// its own (replicas.go, ondemand.go, warm.go, pitr.go, insights.go,
// policy.go, autoscaling.go, restore.go); this file connects them to the
// shared machinery: feature names, step kinds, the secondary reads, the
// endpoints that lack an API.

// Features an endpoint may lack, named as the spec fields that use them.
const (
	featureReplicas    = "replicas"
	featureOnDemand    = "onDemandThroughput"
	featureWarm        = "warmThroughput"
	featureInsights    = "contributorInsightsSpecification"
	featurePolicy      = "resourcePolicy"
	featureAutoScaling = "autoScaling"
	featureRestore     = "restoreFrom"
)

// newerFeatures are listed, when the endpoint lacks them, in
// status.unsupportedFeatures.
var newerFeatures = []string{featureReplicas, featureOnDemand, featureWarm, featureInsights, featurePolicy, featureAutoScaling, featureRestore}

// Step kinds of the newer features. Where they go in a plan is in plan().
const (
	StepDeleteReplica     StepKind = "DeleteReplica"
	StepDeregisterScaling StepKind = "DeregisterScaling"
	StepOnDemand          StepKind = "OnDemandThroughput"
	StepIndexOnDemand     StepKind = "IndexOnDemandThroughput"
	StepWarm              StepKind = "WarmThroughput"
	StepIndexWarm         StepKind = "IndexWarmThroughput"
	StepRegisterScaling   StepKind = "RegisterScaling"
	StepScalingPolicy     StepKind = "ScalingPolicy"
	StepCreateReplica     StepKind = "CreateReplica"
	StepUpdateReplica     StepKind = "UpdateReplica"
	StepRecoveryPeriod    StepKind = "RecoveryPeriod"
	StepInsights          StepKind = "ContributorInsights"
	StepPutPolicy         StepKind = "PutResourcePolicy"
	StepDeletePolicy      StepKind = "DeleteResourcePolicy"
)

// FeatureAPI is the part of the DynamoDB client the newer features use.
type FeatureAPI interface {
	ListContributorInsights(ctx context.Context, in *dynamodb.ListContributorInsightsInput, opts ...func(*dynamodb.Options)) (*dynamodb.ListContributorInsightsOutput, error)
	UpdateContributorInsights(ctx context.Context, in *dynamodb.UpdateContributorInsightsInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateContributorInsightsOutput, error)
	GetResourcePolicy(ctx context.Context, in *dynamodb.GetResourcePolicyInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetResourcePolicyOutput, error)
	PutResourcePolicy(ctx context.Context, in *dynamodb.PutResourcePolicyInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutResourcePolicyOutput, error)
	DeleteResourcePolicy(ctx context.Context, in *dynamodb.DeleteResourcePolicyInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteResourcePolicyOutput, error)
	RestoreTableToPointInTime(ctx context.Context, in *dynamodb.RestoreTableToPointInTimeInput, opts ...func(*dynamodb.Options)) (*dynamodb.RestoreTableToPointInTimeOutput, error)
	RestoreTableFromBackup(ctx context.Context, in *dynamodb.RestoreTableFromBackupInput, opts ...func(*dynamodb.Options)) (*dynamodb.RestoreTableFromBackupOutput, error)
	DescribeBackup(ctx context.Context, in *dynamodb.DescribeBackupInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeBackupOutput, error)
}

// newerSecondary are the answers of the newer features' reads.
type newerSecondary struct {
	PITRDays *int32
	Insights map[string]*insights // "" for the table, else the index name
	Policy   *policy
	Scaling  map[string]*scaling
}

// specUsesNewer says whether the spec manages a newer feature.
func specUsesNewer(spec *awsv1alpha1.DynamoDBTableSpec, feature string) bool {
	switch feature {
	case featureReplicas:
		return len(spec.Replicas) > 0
	case featureOnDemand:
		return spec.OnDemandThroughput != nil || anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return g.OnDemandThroughput != nil })
	case featureWarm:
		return spec.WarmThroughput != nil || anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return g.WarmThroughput != nil })
	case featureInsights:
		return spec.ContributorInsightsSpecification != nil ||
			anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return g.ContributorInsightsSpecification != nil })
	case featurePolicy:
		return spec.ResourcePolicy != nil
	case featureAutoScaling:
		return spec.AutoScaling != nil || anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return g.AutoScaling != nil })
	case featureRestore:
		return spec.RestoreFrom != nil
	}
	return false
}

func anyIndex(spec *awsv1alpha1.DynamoDBTableSpec, f func(awsv1alpha1.GlobalSecondaryIndex) bool) bool {
	for _, g := range spec.GlobalSecondaryIndexes {
		if f(g) {
			return true
		}
	}
	return false
}

func newerFeatureOf(kind StepKind) string {
	switch kind {
	case StepDeleteReplica, StepCreateReplica, StepUpdateReplica:
		return featureReplicas
	case StepOnDemand, StepIndexOnDemand:
		return featureOnDemand
	case StepWarm, StepIndexWarm:
		return featureWarm
	case StepDeregisterScaling, StepRegisterScaling, StepScalingPolicy:
		return featureAutoScaling
	case StepRecoveryPeriod:
		return featurePITR
	case StepInsights:
		return featureInsights
	case StepPutPolicy, StepDeletePolicy:
		return featurePolicy
	}
	return ""
}

// newerReads are the secondary reads of the newer features, scheduled like
// TTL's and tags': only for specs that use them (or, for what Tether
// removes when the spec drops it, while there is something to remove).
func (p *Provider) newerReads(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription, mem *memory) []secondaryRead {
	return []secondaryRead{
		{featureInsights, specUsesNewer(&obj.Spec, featureInsights), func() error { return p.readInsights(ctx, ep, obj, mem) }},
		{featurePolicy, specUsesNewer(&obj.Spec, featurePolicy) || obj.Status.ResourcePolicyRevisionID != "",
			func() error { return p.readPolicy(ctx, ep, aws.ToString(desc.TableArn), mem) }},
		{featureAutoScaling, specUsesNewer(&obj.Spec, featureAutoScaling) || len(obj.Status.ManagedScalableTargets) > 0,
			func() error { return p.readScaling(ctx, ep, obj, desc, mem) }},
	}
}

// secondaryRead is one read besides DescribeTable (see readSecondary).
type secondaryRead = struct {
	feature string
	needed  bool
	read    func() error
}

// applyNewerRead hands the planner what a newer feature's read found.
func applyNewerRead(feature string, mem *memory, have *table) {
	switch feature {
	case featureInsights:
		have.Insights = insightOf(mem.newer.Insights, "")
		for i := range have.GSIs {
			have.GSIs[i].Insights = insightOf(mem.newer.Insights, have.GSIs[i].Name)
		}
	case featurePolicy:
		have.Policy = mem.newer.Policy
	case featureAutoScaling:
		have.Scaling = mem.newer.Scaling
	}
}

// hideUnsupported hides from the planner what the endpoint cannot manage.
func hideUnsupported(feature string, have *table) {
	switch feature {
	case featureReplicas:
		have.Replicas = nil
	case featureOnDemand:
		have.OnDemand = nil
		for i := range have.GSIs {
			have.GSIs[i].OnDemand = nil
		}
	case featureWarm:
		have.Warm = nil
		for i := range have.GSIs {
			have.GSIs[i].Warm = nil
		}
	case featureInsights:
		have.Insights = nil
		for i := range have.GSIs {
			have.GSIs[i].Insights = nil
		}
	case featurePolicy:
		have.Policy = nil
	case featureAutoScaling:
		have.Scaling = nil
	}
}

// newerStepLacks recognises DynamoDB Local's answers to fields it ignores:
// "Nothing to update" for a table's on-demand or warm throughput or a
// replica, and for an index's on-demand or warm throughput "No provisioned
// throughput specified for the global secondary index" (it only knows
// provisioned capacity there).
func newerStepLacks(step Step, err error) bool {
	if errorCode(err) != "ValidationException" {
		return false
	}
	switch step.Kind {
	case StepOnDemand, StepWarm, StepCreateReplica, StepUpdateReplica, StepDeleteReplica:
		return strings.Contains(err.Error(), "Nothing to update")
	case StepIndexOnDemand, StepIndexWarm:
		return strings.Contains(err.Error(), "No provisioned throughput specified for the global secondary index")
	}
	return false
}

// sendNewer makes the AWS call of a newer feature's step.
func (p *Provider) sendNewer(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, step Step) error {
	switch {
	case step.Insights != nil:
		_, err := ep.API.UpdateContributorInsights(ctx, step.Insights)
		return err
	case step.PutPolicy != nil || step.DeletePolicy != nil:
		return p.sendPolicy(ctx, ep, obj, step)
	case step.Register != nil || step.ScalingPolicy != nil || step.Deregister != nil:
		return p.sendScaling(ctx, ep, obj, step)
	}
	return fmt.Errorf("dynamodb: empty step %q", step.Description)
}

// errNoEndpoint stands for an API with no endpoint to call (Application
// Auto Scaling beside a local DynamoDB): handled like an unknown operation.
var errNoEndpoint = errors.New("no endpoint for this API")

// desireNewer completes the desired table with what depends on the status
// (what Tether added before and the spec dropped) and keeps the status's
// records of what Tether manages, as the tags' managedTagKeys.
func desireNewer(obj *awsv1alpha1.DynamoDBTable, region string, want, have *table) error {
	pol, err := desiredPolicy(obj)
	if err != nil {
		return providers.Terminal(ReasonInvalidSpec, err)
	}
	want.Policy = pol
	if have.Replicas != nil {
		have.Replicas = withoutRegion(have.Replicas, region)
		want.RemoveReplicas = obj.Status.ManagedReplicaRegions
		obj.Status.ManagedReplicaRegions = managedReplicaRegions(obj.Status.ManagedReplicaRegions, want.Replicas, have.Replicas)
	}
	if have.Scaling != nil {
		want.RemoveScaling = obj.Status.ManagedScalableTargets
		obj.Status.ManagedScalableTargets = managedScalingKeys(obj.Status.ManagedScalableTargets, want.Scaling, have.Scaling)
	}
	return nil
}
