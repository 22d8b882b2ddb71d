package dynamodb

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Autoscaling declared on the table: for each capacity the spec puts under
// autoscaling, a scalable target (RegisterScalableTarget, min and max) and a
// target-tracking policy on DynamoDB's utilisation metric (PutScalingPolicy),
// in the dynamodb namespace of Application Auto Scaling
// (autoscaling/application/userguide/services-that-can-integrate-dynamodb.html).
// While a target owns a capacity, Tether stops correcting that capacity to
// provisionedThroughput: autoscaling moves it.

// ScalingAPI is the part of the Application Auto Scaling client the
// adapter uses.
type ScalingAPI interface {
	RegisterScalableTarget(ctx context.Context, in *applicationautoscaling.RegisterScalableTargetInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.RegisterScalableTargetOutput, error)
	DescribeScalableTargets(ctx context.Context, in *applicationautoscaling.DescribeScalableTargetsInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScalableTargetsOutput, error)
	DeregisterScalableTarget(ctx context.Context, in *applicationautoscaling.DeregisterScalableTargetInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DeregisterScalableTargetOutput, error)
	PutScalingPolicy(ctx context.Context, in *applicationautoscaling.PutScalingPolicyInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.PutScalingPolicyOutput, error)
	DescribeScalingPolicies(ctx context.Context, in *applicationautoscaling.DescribeScalingPoliciesInput, opts ...func(*applicationautoscaling.Options)) (*applicationautoscaling.DescribeScalingPoliciesOutput, error)
}

var _ ScalingAPI = (*applicationautoscaling.Client)(nil)

// newScalingAPI builds the Application Auto Scaling client of an endpoint:
// the same identity (credentials) and region as its DynamoDB client, the
// same retryer and the same account-and-region limiter, its calls counted
// under their own provider label.
//
// Where it goes: an AWSAccount's spec.endpoint stands for AWS as reached
// from here, so its Application Auto Scaling calls go there too (a proxy or
// model answers them; DynamoDB Local answers an unknown operation and
// autoScaling is listed unsupported). Otherwise the SDK's own resolution:
// AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING, AWS_ENDPOINT_URL, or AWS.
// Beside a DynamoDB endpoint set with AWS_ENDPOINT_URL_DYNAMODB alone
// (DynamoDB Local) there is none: nil, and autoScaling is unsupported there.
func (c *Clients) newScalingAPI(cfg aws.Config, accountEndpoint, account string, b *budget) ScalingAPI {
	if accountEndpoint == "" && os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "" &&
		os.Getenv("AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING") == "" && os.Getenv("AWS_ENDPOINT_URL") == "" {
		return nil
	}
	return applicationautoscaling.NewFromConfig(cfg, func(o *applicationautoscaling.Options) {
		if accountEndpoint != "" {
			o.BaseEndpoint = aws.String(accountEndpoint)
		}
		o.Retryer = c.retryer()
		o.APIOptions = append(o.APIOptions, limitEveryAttempt(b), countEveryAttempt("applicationautoscaling", account, cfg.Region))
	})
}

// scaling is one capacity's autoscaling, keyed in a table by scalingKey.
type scaling struct {
	Min, Max int32
	Target   int32 // percent
	// ScaleIn and ScaleOut are cooldowns in seconds; nil is not managed
	// (desired) or not reported (observed).
	ScaleIn, ScaleOut *int32
	// Registered and HasPolicy: the scalable target and Tether's
	// target-tracking policy exist (observed only).
	Registered, HasPolicy bool
}

// scalingKey names a capacity: "table/read", "index/<name>/write"; these
// are also the entries of status.managedScalableTargets.
func scalingKey(index, dimension string) string {
	if index == "" {
		return "table/" + dimension
	}
	return "index/" + index + "/" + dimension
}

// scalingTarget is a key's ResourceId and ScalableDimension.
func scalingTarget(table, key string) (resource string, dimension aastypes.ScalableDimension) {
	parts := strings.Split(key, "/")
	capacity := map[string]string{"read": "ReadCapacityUnits", "write": "WriteCapacityUnits"}[parts[len(parts)-1]]
	if parts[0] == "index" {
		return "table/" + table + "/index/" + parts[1], aastypes.ScalableDimension("dynamodb:index:" + capacity)
	}
	return "table/" + table, aastypes.ScalableDimension("dynamodb:table:" + capacity)
}

// scalingKeyOf is the inverse of scalingTarget.
func scalingKeyOf(table, resource string, dimension aastypes.ScalableDimension) (string, bool) {
	d := "read"
	if strings.HasSuffix(string(dimension), "WriteCapacityUnits") {
		d = "write"
	}
	switch {
	case resource == "table/"+table:
		return scalingKey("", d), true
	case strings.HasPrefix(resource, "table/"+table+"/index/"):
		return scalingKey(strings.TrimPrefix(resource, "table/"+table+"/index/"), d), true
	}
	return "", false
}

// policyName is Tether's target-tracking policy of a capacity.
func policyName(table, key string) string { return "tether:" + table + ":" + key }

func specScaling(spec *awsv1alpha1.DynamoDBTableSpec) map[string]*scaling {
	out := map[string]*scaling{}
	add := func(index string, a *awsv1alpha1.AutoScaling) {
		if a == nil {
			return
		}
		for dimension, s := range map[string]*awsv1alpha1.ScalingPolicy{"read": a.Read, "write": a.Write} {
			if s != nil {
				out[scalingKey(index, dimension)] = &scaling{Min: s.MinCapacity, Max: s.MaxCapacity, Target: s.TargetUtilization,
					ScaleIn: s.ScaleInCooldownSeconds, ScaleOut: s.ScaleOutCooldownSeconds}
			}
		}
	}
	add("", spec.AutoScaling)
	for _, g := range spec.GlobalSecondaryIndexes {
		add(g.IndexName, g.AutoScaling)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readScaling reads the scalable targets and Tether's policies of every
// capacity the spec scales or Tether registered: two calls, whatever the
// number of indexes.
func (p *Provider) readScaling(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription, mem *memory) error {
	if ep.Scaling == nil {
		return errNoEndpoint
	}
	table := aws.ToString(desc.TableName)
	keys := slices.Sorted(maps.Keys(specScaling(&obj.Spec)))
	for _, k := range obj.Status.ManagedScalableTargets {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var resources, names []string
	for _, k := range keys {
		resource, _ := scalingTarget(table, k)
		if !slices.Contains(resources, resource) {
			resources = append(resources, resource)
		}
		names = append(names, policyName(table, k))
	}
	read := map[string]*scaling{}
	targets, err := listScalableTargets(ctx, ep.Scaling, resources)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if k, ok := scalingKeyOf(table, aws.ToString(t.ResourceId), t.ScalableDimension); ok {
			read[k] = &scaling{Min: aws.ToInt32(t.MinCapacity), Max: aws.ToInt32(t.MaxCapacity), Registered: true}
		}
	}
	policies, err := listScalingPolicies(ctx, ep.Scaling, names)
	if err != nil {
		return err
	}
	for _, pol := range policies {
		k, ok := scalingKeyOf(table, aws.ToString(pol.ResourceId), pol.ScalableDimension)
		c := pol.TargetTrackingScalingPolicyConfiguration
		if !ok || read[k] == nil || c == nil || aws.ToString(pol.PolicyName) != policyName(table, k) {
			continue
		}
		read[k].HasPolicy = true
		read[k].Target = int32(aws.ToFloat64(c.TargetValue))
		read[k].ScaleIn, read[k].ScaleOut = c.ScaleInCooldown, c.ScaleOutCooldown
	}
	mem.newer.Scaling = read
	return nil
}

func listScalableTargets(ctx context.Context, api ScalingAPI, resources []string) ([]aastypes.ScalableTarget, error) {
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

func listScalingPolicies(ctx context.Context, api ScalingAPI, names []string) ([]aastypes.ScalingPolicy, error) {
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

// yieldToAutoScaling makes the capacities autoscaling owns desired as they
// are: the diff then never corrects them. Only a capacity that exists
// (PROVISIONED on both sides) is yielded; a switch to PROVISIONED and a
// new index still start from provisionedThroughput. Where autoscaling is
// not known (an endpoint without Application Auto Scaling), the capacity
// is managed as before: to provisionedThroughput.
func (p *planner) yieldToAutoScaling() {
	if len(p.want.Scaling) == 0 || p.cur.Scaling == nil || p.want.BillingMode != awsv1alpha1.BillingModeProvisioned ||
		p.cur.BillingMode != awsv1alpha1.BillingModeProvisioned {
		return
	}
	want := p.want.clone()
	want.Throughput = yielded(want.Throughput, p.cur.Throughput, want.Scaling, "")
	for i, ix := range want.GSIs {
		if cur, ok := p.cur.index(ix.Name); ok {
			want.GSIs[i].Throughput = yielded(ix.Throughput, cur.Throughput, want.Scaling, ix.Name)
		}
	}
	p.want = want
}

func yielded(want, cur *throughput, owned map[string]*scaling, index string) *throughput {
	if want == nil || cur == nil {
		return want
	}
	out := *want
	if owned[scalingKey(index, "read")] != nil && cur.Read >= 1 {
		out.Read = cur.Read
	}
	if owned[scalingKey(index, "write")] != nil && cur.Write >= 1 {
		out.Write = cur.Write
	}
	return &out
}

// deregisterScaling removes the targets Tether registered that the spec no
// longer scales, before a switch to PAY_PER_REQUEST. Deregistering also
// deletes the target's policies (API DeregisterScalableTarget).
func (p *planner) deregisterScaling() {
	if p.cur.Scaling == nil {
		return
	}
	for _, k := range slices.Sorted(slices.Values(p.want.RemoveScaling)) {
		if p.want.Scaling[k] != nil || p.cur.Scaling[k] == nil || !p.cur.Scaling[k].Registered {
			continue
		}
		resource, dimension := scalingTarget(p.name, k)
		p.add(Step{Kind: StepDeregisterScaling, Description: "stop autoscaling " + describeKey(k),
			Deregister: &applicationautoscaling.DeregisterScalableTargetInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
				ResourceId: aws.String(resource), ScalableDimension: dimension}})
		p.cur.Scaling = maps.Clone(p.cur.Scaling)
		delete(p.cur.Scaling, k)
	}
}

// registerScaling registers each scaled capacity (or corrects its bounds),
// then puts its target-tracking policy: a policy needs its target ("this
// exception is thrown if the scalable target ... does not exist", API
// ObjectNotFoundException). Only capacities of a PROVISIONED table, and of
// indexes that exist, can be registered.
func (p *planner) registerScaling() {
	if p.cur.Scaling == nil || p.cur.BillingMode != awsv1alpha1.BillingModeProvisioned {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(p.want.Scaling)) {
		if index := indexOfKey(k); index != "" {
			if _, ok := p.cur.index(index); !ok {
				continue
			}
		}
		want, have := p.want.Scaling[k], p.cur.Scaling[k]
		if have == nil {
			have = &scaling{}
		}
		next := *have
		resource, dimension := scalingTarget(p.name, k)
		if !have.Registered || have.Min != want.Min || have.Max != want.Max {
			p.add(Step{Kind: StepRegisterScaling, Description: fmt.Sprintf("autoscale %s between %d and %d", describeKey(k), want.Min, want.Max),
				Register: &applicationautoscaling.RegisterScalableTargetInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
					ResourceId: aws.String(resource), ScalableDimension: dimension,
					MinCapacity: aws.Int32(want.Min), MaxCapacity: aws.Int32(want.Max)}})
			next.Registered, next.Min, next.Max = true, want.Min, want.Max
		}
		if !have.HasPolicy || have.Target != want.Target || !sameCooldown(want.ScaleIn, have.ScaleIn) || !sameCooldown(want.ScaleOut, have.ScaleOut) {
			metric := aastypes.MetricTypeDynamoDBReadCapacityUtilization
			if strings.HasSuffix(k, "/write") {
				metric = aastypes.MetricTypeDynamoDBWriteCapacityUtilization
			}
			p.add(Step{Kind: StepScalingPolicy, Description: fmt.Sprintf("keep %s at %d%% utilisation", describeKey(k), want.Target),
				ScalingPolicy: &applicationautoscaling.PutScalingPolicyInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
					ResourceId: aws.String(resource), ScalableDimension: dimension, PolicyName: aws.String(policyName(p.name, k)),
					PolicyType: aastypes.PolicyTypeTargetTrackingScaling,
					TargetTrackingScalingPolicyConfiguration: &aastypes.TargetTrackingScalingPolicyConfiguration{
						TargetValue:                   aws.Float64(float64(want.Target)),
						PredefinedMetricSpecification: &aastypes.PredefinedMetricSpecification{PredefinedMetricType: metric},
						ScaleInCooldown:               want.ScaleIn, ScaleOutCooldown: want.ScaleOut}}})
			next.HasPolicy, next.Target, next.ScaleIn, next.ScaleOut = true, want.Target, want.ScaleIn, want.ScaleOut
		}
		p.cur.Scaling = maps.Clone(p.cur.Scaling)
		p.cur.Scaling[k] = &next
	}
}

// sameCooldown: a cooldown the spec leaves out is AWS's business.
func sameCooldown(want, have *int32) bool { return want == nil || aws.ToInt32(have) == *want }

func indexOfKey(k string) string {
	if parts := strings.Split(k, "/"); parts[0] == "index" {
		return parts[1]
	}
	return ""
}

func describeKey(k string) string {
	parts := strings.Split(k, "/")
	if parts[0] == "index" {
		return fmt.Sprintf("index %s %s capacity", parts[1], parts[2])
	}
	return "table " + parts[1] + " capacity"
}

// sendScaling makes an Application Auto Scaling call. What it changed is
// taken as read: a new target may take a moment to show in
// DescribeScalableTargets ("there might be a brief delay until the operation
// achieves eventual consistency", API RegisterScalableTarget), and
// registering again meanwhile would look like a stalled step.
func (p *Provider) sendScaling(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, step Step) error {
	if ep.Scaling == nil {
		return errNoEndpoint
	}
	table := obj.ResolvedTableName()
	var err error
	var resource string
	var dimension aastypes.ScalableDimension
	switch {
	case step.Register != nil:
		_, err = ep.Scaling.RegisterScalableTarget(ctx, step.Register)
		resource, dimension = aws.ToString(step.Register.ResourceId), step.Register.ScalableDimension
	case step.ScalingPolicy != nil:
		_, err = ep.Scaling.PutScalingPolicy(ctx, step.ScalingPolicy)
		resource, dimension = aws.ToString(step.ScalingPolicy.ResourceId), step.ScalingPolicy.ScalableDimension
	default:
		_, err = ep.Scaling.DeregisterScalableTarget(ctx, step.Deregister)
		resource, dimension = aws.ToString(step.Deregister.ResourceId), step.Deregister.ScalableDimension
	}
	if err != nil {
		return err
	}
	mem := p.memoryOf(obj)
	k, _ := scalingKeyOf(table, resource, dimension)
	cached := maps.Clone(mem.newer.Scaling)
	if cached == nil {
		cached = map[string]*scaling{}
	}
	s := scaling{}
	if c := cached[k]; c != nil {
		s = *c
	}
	switch {
	case step.Register != nil:
		s.Registered, s.Min, s.Max = true, aws.ToInt32(step.Register.MinCapacity), aws.ToInt32(step.Register.MaxCapacity)
	case step.ScalingPolicy != nil:
		c := step.ScalingPolicy.TargetTrackingScalingPolicyConfiguration
		s.HasPolicy, s.Target, s.ScaleIn, s.ScaleOut = true, int32(aws.ToFloat64(c.TargetValue)), c.ScaleInCooldown, c.ScaleOutCooldown
	default:
		delete(cached, k)
		mem.newer.Scaling = cached
		obj.Status.ManagedScalableTargets = slices.DeleteFunc(slices.Clone(obj.Status.ManagedScalableTargets), func(x string) bool { return x == k })
		return nil
	}
	cached[k] = &s
	mem.newer.Scaling = cached
	if !slices.Contains(obj.Status.ManagedScalableTargets, k) {
		obj.Status.ManagedScalableTargets = append(slices.Clone(obj.Status.ManagedScalableTargets), k)
		slices.Sort(obj.Status.ManagedScalableTargets)
	}
	return nil
}

// managedScalingKeys are the capacities Tether manages the autoscaling of:
// those it managed before that are still registered (a capacity the spec
// dropped is deregistered next), plus those the spec scales that are.
func managedScalingKeys(before []string, want, read map[string]*scaling) []string {
	var keys []string
	for _, k := range before {
		if read[k] != nil && read[k].Registered {
			keys = append(keys, k)
		}
	}
	for k := range want {
		if read[k] != nil && read[k].Registered && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// deregisterScalingOf deregisters, before the table is deleted, the
// scalable targets Tether registered for it (status.managedScalableTargets),
// which deletes their policies too (API DeregisterScalableTarget). AWS
// keeps both after a table is deleted ("you do not automatically remove any
// associated scalable targets, scaling policies, or CloudWatch alarms", API
// ReplicationGroupUpdate), and a later table of the same name would be
// scaled by a policy nobody manages. A target already gone is done.
func (p *Provider) deregisterScalingOf(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if ep.Scaling == nil {
		return nil
	}
	table := obj.ResolvedTableName()
	for _, k := range slices.Clone(obj.Status.ManagedScalableTargets) {
		resource, dimension := scalingTarget(table, k)
		_, err := ep.Scaling.DeregisterScalableTarget(ctx, &applicationautoscaling.DeregisterScalableTargetInput{
			ServiceNamespace: aastypes.ServiceNamespaceDynamodb, ResourceId: aws.String(resource), ScalableDimension: dimension})
		if err != nil && errorCode(err) != "ObjectNotFoundException" {
			return classify(err)
		}
		obj.Status.ManagedScalableTargets = slices.DeleteFunc(obj.Status.ManagedScalableTargets, func(x string) bool { return x == k })
	}
	return nil
}
