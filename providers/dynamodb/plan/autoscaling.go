package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Autoscaling declared on the table: for each capacity the spec puts under
// autoscaling, a scalable target (RegisterScalableTarget, min and max) and a
// target-tracking policy on DynamoDB's utilisation metric (PutScalingPolicy),
// in the dynamodb namespace of Application Auto Scaling
// (autoscaling/application/userguide/services-that-can-integrate-dynamodb.html).
// While a target owns a capacity, Tether stops correcting that capacity to
// provisionedThroughput: autoscaling moves it.

// FeatureAutoScaling names autoscaling where an endpoint may lack it.
const FeatureAutoScaling = "autoScaling"

// Kinds of the autoscaling steps.
const (
	stepDeregisterScaling StepKind = "DeregisterScaling"
	stepRegisterScaling   StepKind = "RegisterScaling"
	stepScalingPolicy     StepKind = "ScalingPolicy"
)

func init() {
	register(&feature{
		name:  FeatureAutoScaling,
		kinds: []StepKind{stepDeregisterScaling, stepRegisterScaling, stepScalingPolicy},
		uses: func(spec *awsv1alpha1.DynamoDBTableSpec) bool {
			return spec.AutoScaling != nil || anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return g.AutoScaling != nil })
		},
		desire: func(s source, want *Table) { want.Scaling = specScaling(s.DynamoDBTableSpec) },
		adopt:  func(r *Reads, have *Table) { have.Scaling = r.Scaling },
		hide:   func(have *Table) { have.Scaling = nil },
		passes: []pass{
			{atYieldToAutoScaling, (*planner).yieldToAutoScaling},
			{atDeregisterScaling, (*planner).deregisterScaling},
			{atRegisterScaling, (*planner).registerScaling},
		},
	})
}

// scalingKey names a capacity: "table/read", "index/<name>/write"; these
// are also the entries of status.managedScalableTargets.
func scalingKey(index, dimension string) string {
	if index == "" {
		return "table/" + dimension
	}
	return "index/" + index + "/" + dimension
}

// ScalingTarget is a key's ResourceId and ScalableDimension.
func ScalingTarget(table, key string) (resource string, dimension aastypes.ScalableDimension) {
	parts := strings.Split(key, "/")
	capacity := map[string]string{"read": "ReadCapacityUnits", "write": "WriteCapacityUnits"}[parts[len(parts)-1]]
	if parts[0] == "index" {
		return "table/" + table + "/index/" + parts[1], aastypes.ScalableDimension("dynamodb:index:" + capacity)
	}
	return "table/" + table, aastypes.ScalableDimension("dynamodb:table:" + capacity)
}

// ScalingKeyOf is the inverse of ScalingTarget.
func ScalingKeyOf(table, resource string, dimension aastypes.ScalableDimension) (string, bool) {
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

// ScalingPolicyName is Tether's target-tracking policy of a capacity.
func ScalingPolicyName(table, key string) string { return "tether:" + table + ":" + key }

func specScaling(spec *awsv1alpha1.DynamoDBTableSpec) map[string]*Scaling {
	out := map[string]*Scaling{}
	add := func(index string, a *awsv1alpha1.AutoScaling) {
		if a == nil {
			return
		}
		for dimension, s := range map[string]*awsv1alpha1.ScalingPolicy{"read": a.Read, "write": a.Write} {
			if s != nil {
				out[scalingKey(index, dimension)] = &Scaling{Min: s.MinCapacity, Max: s.MaxCapacity, Target: s.TargetUtilization,
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

// ScaledKeys are the capacities the spec scales, sorted.
func ScaledKeys(spec *awsv1alpha1.DynamoDBTableSpec) []string {
	return slices.Sorted(maps.Keys(specScaling(spec)))
}

// ObservedScaling is what DescribeScalableTargets and
// DescribeScalingPolicies answered for the table's capacities: a
// capacity's target, and Tether's target-tracking policy on it.
func ObservedScaling(table string, targets []aastypes.ScalableTarget, policies []aastypes.ScalingPolicy) map[string]*Scaling {
	read := map[string]*Scaling{}
	for _, t := range targets {
		if k, ok := ScalingKeyOf(table, aws.ToString(t.ResourceId), t.ScalableDimension); ok {
			read[k] = &Scaling{Min: aws.ToInt32(t.MinCapacity), Max: aws.ToInt32(t.MaxCapacity), Registered: true}
		}
	}
	for _, pol := range policies {
		k, ok := ScalingKeyOf(table, aws.ToString(pol.ResourceId), pol.ScalableDimension)
		c := pol.TargetTrackingScalingPolicyConfiguration
		if !ok || read[k] == nil || c == nil || aws.ToString(pol.PolicyName) != ScalingPolicyName(table, k) {
			continue
		}
		read[k].HasPolicy = true
		read[k].Target = int32(aws.ToFloat64(c.TargetValue))
		read[k].ScaleIn, read[k].ScaleOut = c.ScaleInCooldown, c.ScaleOutCooldown
	}
	return read
}

// ManagedScalingKeys are the capacities Tether manages the autoscaling of:
// those it managed before that are still registered (a capacity the spec
// dropped is deregistered next), plus those the spec scales that are.
func ManagedScalingKeys(before []string, want, read map[string]*Scaling) []string {
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

func yielded(want, cur *Throughput, owned map[string]*Scaling, index string) *Throughput {
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
		resource, dimension := ScalingTarget(p.name, k)
		p.add(Step{Kind: stepDeregisterScaling, Description: "stop autoscaling " + describeKey(k),
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
			have = &Scaling{}
		}
		next := *have
		resource, dimension := ScalingTarget(p.name, k)
		if !have.Registered || have.Min != want.Min || have.Max != want.Max {
			p.add(Step{Kind: stepRegisterScaling, Description: fmt.Sprintf("autoscale %s between %d and %d", describeKey(k), want.Min, want.Max),
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
			p.add(Step{Kind: stepScalingPolicy, Description: fmt.Sprintf("keep %s at %d%% utilisation", describeKey(k), want.Target),
				ScalingPolicy: &applicationautoscaling.PutScalingPolicyInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb,
					ResourceId: aws.String(resource), ScalableDimension: dimension, PolicyName: aws.String(ScalingPolicyName(p.name, k)),
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
