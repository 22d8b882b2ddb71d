package dynamodb

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// The reads besides DescribeTable: each feature with an API of its own is
// read with it into the plan's model (plan.Reads), kept in the object's
// memory and reused until it is due again.

// errNotYet says a read saw the state before Tether's own change
// (eventual consistency): nothing is concluded, the read is made again.
var errNotYet = errors.New("the answer does not show the last change yet")

// featureRead is one read besides DescribeTable (see readSecondary).
type featureRead struct {
	feature string
	needed  bool
	read    func() error
	// inFlux, when set, says whether the answer shows a change AWS is
	// still applying: the next look reads it again, whatever the interval.
	inFlux func() bool
}

func describeTable(ctx context.Context, api access.API, name string) (*types.TableDescription, error) {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	return out.Table, nil
}

// readSecondary fills in what the features read with calls of their own,
// each only when the spec uses it (or, for what Tether removes when the
// spec drops it, while there is something to remove), the endpoint has the
// API, and the last answer is older than SecondaryReadInterval or stale
// because the adapter changed it since. Tether's owner tags alone are no
// reason to read tags: CreateTable applies them, and they are read only to
// prove ownership of a table whose identity is not on record (ownerTagOf).
// Tags Tether applied before and the spec dropped are read once more, to
// remove them.
func (p *Provider) readSecondary(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription, have *plan.Table) error {
	mem := p.memoryOf(obj)
	for _, r := range p.reads(ctx, ep, obj, desc, mem) {
		if !r.needed || p.clients.Lacks(ep, r.feature) {
			continue
		}
		if at, ok := mem.readAt[r.feature]; !ok || p.opts.SecondaryReadInterval < 0 || time.Since(at) >= p.opts.SecondaryReadInterval {
			err := p.clients.Probe(ep, r.feature, r.read)
			if errors.Is(err, access.ErrLacksFeature) || errors.Is(err, errNotYet) {
				continue
			}
			if access.IsUnknownOperation(err) {
				p.markUnsupported(ep, obj, r.feature, err)
				continue
			}
			if err != nil {
				return access.Classify(err)
			}
			mem.readAt[r.feature] = time.Now()
			if r.inFlux != nil && r.inFlux() {
				mem.readAgain(r.feature)
			}
		}
		plan.Adopt(r.feature, &mem.reads, have)
	}
	return nil
}

// reads are the features' reads, in the order they are made.
func (p *Provider) reads(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription, mem *memory) []featureRead {
	name := aws.String(obj.ResolvedTableName())
	return []featureRead{
		{feature: plan.FeatureTTL, needed: plan.Uses(&obj.Spec, plan.FeatureTTL), read: func() error {
			out, err := ep.API.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: name})
			if err == nil {
				mem.reads.TTL = plan.ObservedTTL(out.TimeToLiveDescription)
			}
			return err
		}},
		{feature: plan.FeaturePITR, needed: plan.Uses(&obj.Spec, plan.FeaturePITR), read: func() error {
			out, err := ep.API.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: name})
			if err == nil {
				mem.reads.PITR, mem.reads.PITRDays = plan.ObservedPITR(out.ContinuousBackupsDescription)
			}
			return err
		}},
		{feature: plan.FeatureTags, needed: p.usesTags(ep, obj) || len(obj.Status.ManagedTagKeys) > 0, read: func() error {
			tags, err := listTags(ctx, ep.API, aws.ToString(desc.TableArn))
			if err == nil {
				mem.reads.Tags = tags
			}
			return err
		}},
		{feature: plan.FeatureInsights, needed: plan.Uses(&obj.Spec, plan.FeatureInsights), read: func() error {
			return readInsights(ctx, ep, obj, mem)
		}, inFlux: func() bool { return plan.InsightsInFlux(mem.reads.Insights) }},
		{feature: plan.FeatureKinesis, needed: usesKinesis(obj), read: func() error {
			return readKinesis(ctx, ep, obj, mem)
		}, inFlux: func() bool { return plan.KinesisInFlux(mem.reads.Kinesis) }},
		{feature: plan.FeaturePolicy, needed: plan.Uses(&obj.Spec, plan.FeaturePolicy) || obj.Status.ResourcePolicyRevisionID != "" || mem.replicationPolicy, read: func() error {
			return readPolicy(ctx, ep, aws.ToString(desc.TableArn), mem)
		}},
		{feature: plan.FeatureAutoScaling, needed: plan.Uses(&obj.Spec, plan.FeatureAutoScaling) || len(obj.Status.ManagedScalableTargets) > 0, read: func() error {
			return readScaling(ctx, ep, obj, desc, mem)
		}},
	}
}

func listTags(ctx context.Context, api access.API, arn string) (map[string]string, error) {
	tags := map[string]string{}
	var next *string
	for {
		out, err := api.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn), NextToken: next})
		if err != nil {
			return nil, err
		}
		for _, t := range out.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		if out.NextToken == nil {
			return tags, nil
		}
		next = out.NextToken
	}
}

// readInsights lists the table's and its indexes' contributor insights,
// every page (a page may be empty and still have a NextToken), and asks
// DescribeContributorInsights why those that FAILED did: only it carries
// AWS's FailureException (API DescribeContributorInsights).
func readInsights(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, mem *memory) error {
	name := aws.String(obj.ResolvedTableName())
	var summaries []types.ContributorInsightsSummary
	var next *string
	for {
		out, err := ep.API.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{TableName: name, NextToken: next})
		if err != nil {
			return err
		}
		summaries = append(summaries, out.ContributorInsightsSummaries...)
		if out.NextToken == nil {
			break
		}
		next = out.NextToken
	}
	read := plan.ObservedInsights(summaries)
	for index, in := range read {
		if in.Status != string(types.ContributorInsightsStatusFailed) {
			continue
		}
		d := &dynamodb.DescribeContributorInsightsInput{TableName: name}
		if index != "" {
			d.IndexName = aws.String(index)
		}
		out, err := ep.API.DescribeContributorInsights(ctx, d)
		if err != nil {
			return err
		}
		if f := out.FailureException; f != nil {
			in.Failure = aws.ToString(f.ExceptionName) + ": " + aws.ToString(f.ExceptionDescription)
		}
	}
	mem.reads.Insights = read
	return nil
}

// readPolicy reads the policy, minding GetResourcePolicy's eventual
// consistency: "immediately after a PutResourcePolicy request, DynamoDB might
// return your previous policy ... or the PolicyNotFoundException",
// immediately after DeleteResourcePolicy "might still return the deleted
// policy", and after a CreateTable with a policy "might return a
// ResourceNotFoundException or a PolicyNotFoundException" (API
// GetResourcePolicy). An answer that does not show Tether's own change yet,
// within settleWindow, is errNotYet.
func readPolicy(ctx context.Context, ep *access.Endpoint, arn string, mem *memory) error {
	out, err := ep.API.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	var got *plan.Policy
	switch {
	case access.ErrorCode(err) == "PolicyNotFoundException":
		got = &plan.Policy{Absent: true}
	case access.IsNotFound(err) && mem.policyChange != nil && time.Since(mem.policyChange.at) < settleWindow:
		return errNotYet
	case err != nil:
		return err
	default:
		got = plan.ParsedPolicy(aws.ToString(out.Policy), aws.ToString(out.RevisionId))
	}
	if c := mem.policyChange; c != nil && time.Since(c.at) < settleWindow {
		consistent := got.Revision == c.revision || (c.anyDoc && !got.Absent)
		if !consistent {
			return errNotYet
		}
	}
	mem.policyChange = nil
	mem.reads.Policy = got
	return nil
}

// readScaling reads the scalable targets and Tether's policies of every
// capacity the spec scales or Tether registered: two calls, whatever the
// number of indexes.
func readScaling(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription, mem *memory) error {
	if ep.Scaling == nil {
		return access.ErrNoEndpoint
	}
	table := aws.ToString(desc.TableName)
	keys := plan.ScaledKeys(&obj.Spec)
	for _, k := range obj.Status.ManagedScalableTargets {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var resources, names []string
	for _, k := range keys {
		resource, _ := plan.ScalingTarget(table, k)
		if !slices.Contains(resources, resource) {
			resources = append(resources, resource)
		}
		names = append(names, plan.ScalingPolicyName(table, k))
	}
	targets, err := listScalableTargets(ctx, ep.Scaling, resources)
	if err != nil {
		return err
	}
	policies, err := listScalingPolicies(ctx, ep.Scaling, names)
	if err != nil {
		return err
	}
	mem.reads.Scaling = plan.ObservedScaling(table, targets, policies)
	return nil
}

func listScalableTargets(ctx context.Context, api access.ScalingAPI, resources []string) ([]aastypes.ScalableTarget, error) {
	var out []aastypes.ScalableTarget
	in := &applicationautoscaling.DescribeScalableTargetsInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb, ResourceIds: resources}
	for {
		page, err := api.DescribeScalableTargets(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, page.ScalableTargets...)
		if page.NextToken == nil {
			return out, nil
		}
		in.NextToken = page.NextToken
	}
}

func listScalingPolicies(ctx context.Context, api access.ScalingAPI, names []string) ([]aastypes.ScalingPolicy, error) {
	var out []aastypes.ScalingPolicy
	in := &applicationautoscaling.DescribeScalingPoliciesInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb, PolicyNames: names}
	for {
		page, err := api.DescribeScalingPolicies(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, page.ScalingPolicies...)
		if page.NextToken == nil {
			return out, nil
		}
		in.NextToken = page.NextToken
	}
}
