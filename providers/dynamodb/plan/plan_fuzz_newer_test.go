package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/apimachinery/pkg/runtime"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// FuzzPlan's part for the newer features: what the generator adds to the
// spec and to what AWS reports, the legality rules of their steps (each the
// rule the model endpoint internal/ddbgap enforces, with the same source),
// and what AWS does for them in applyPlan.

var fuzzRegions = []string{"eu-west-1", "us-west-2", "ap-south-1"}

var fuzzPolicies = []string{
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"dynamodb:GetItem","Resource":"*"}]}`,
	`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"dynamodb:DeleteTable","Resource":"*"}]}`,
}

// fuzzNewer is what the newer features add to one case.
type fuzzNewer struct {
	removeReplicas, removeScaling []string
	removePolicy                  string // a revision Tether attached; the spec has no policy
	secondary                     Reads
}

func (s *fuzzSource) optCap() *int64 {
	switch s.intn(4) {
	case 1:
		return aws.Int64(-1)
	case 2, 3:
		return aws.Int64(int64(s.intn(3) + 1))
	}
	return nil
}

func (s *fuzzSource) optWarm() *awsv1alpha1.WarmThroughput {
	v := func() *int64 {
		if n := s.intn(4); n > 0 {
			return aws.Int64([]int64{0, 1000, 12000, 20000}[n])
		}
		return nil
	}
	w := &awsv1alpha1.WarmThroughput{ReadUnitsPerSecond: v(), WriteUnitsPerSecond: v()}
	if w.ReadUnitsPerSecond == nil && w.WriteUnitsPerSecond == nil {
		return nil
	}
	return w
}

func (s *fuzzSource) optInsights() *awsv1alpha1.ContributorInsightsSpecification {
	if !s.bool() {
		return nil
	}
	return &awsv1alpha1.ContributorInsightsSpecification{Enabled: s.bool(), Mode: s.pick("", awsv1alpha1.ContributorInsightsThrottled, awsv1alpha1.ContributorInsightsAccessedAndThrottled)}
}

func (s *fuzzSource) optScaling() *awsv1alpha1.ScalingPolicy {
	if !s.bool() {
		return nil
	}
	minC := int32(1 + s.intn(3))
	return &awsv1alpha1.ScalingPolicy{MinCapacity: minC, MaxCapacity: minC + int32(s.intn(3)), TargetUtilization: int32(20 + 10*s.intn(8))}
}

// newer adds the newer features to a spec the API server accepts (the CEL
// rules of dynamodbtable_types.go hold), to what DynamoDB describes, and to
// the secondary reads. Every choice past the end of the input is a zero: the
// committed corpus keeps its meaning, without the newer features.
func (s *fuzzSource) newer(spec *awsv1alpha1.DynamoDBTableSpec, d *types.TableDescription) *fuzzNewer {
	n := &fuzzNewer{}
	ppr := spec.BillingMode == awsv1alpha1.BillingModePayPerRequest
	if ppr && s.bool() {
		spec.OnDemandThroughput = &awsv1alpha1.OnDemandThroughput{MaxReadRequestUnits: s.optCap(), MaxWriteRequestUnits: s.optCap()}
	}
	spec.WarmThroughput = s.optWarm()
	spec.ContributorInsightsSpecification = s.optInsights()
	if !ppr && s.bool() {
		spec.AutoScaling = &awsv1alpha1.AutoScaling{Read: s.optScaling(), Write: s.optScaling()}
	}
	for i := range spec.GlobalSecondaryIndexes {
		g := &spec.GlobalSecondaryIndexes[i]
		if ppr && s.bool() {
			g.OnDemandThroughput = &awsv1alpha1.OnDemandThroughput{MaxReadRequestUnits: s.optCap(), MaxWriteRequestUnits: s.optCap()}
		}
		g.WarmThroughput = s.optWarm()
		g.ContributorInsightsSpecification = s.optInsights()
		if !ppr && s.bool() {
			g.AutoScaling = &awsv1alpha1.AutoScaling{Read: s.optScaling(), Write: s.optScaling()}
		}
	}
	if p := spec.PointInTimeRecoverySpecification; p != nil && p.PointInTimeRecoveryEnabled && s.bool() {
		p.RecoveryPeriodInDays = aws.Int32(int32(1 + s.intn(35)))
	}
	switch s.intn(4) {
	case 1, 2:
		spec.ResourcePolicy = &runtime.RawExtension{Raw: []byte(fuzzPolicies[s.intn(2)])}
	case 3:
		n.removePolicy = s.pick("r1", "r2")
	}
	for _, region := range fuzzRegions {
		if !s.bool() {
			continue
		}
		r := awsv1alpha1.Replica{RegionName: region, KMSMasterKeyID: s.pick("", "k1", "alias/a"), TableClassOverride: s.pick("", "STANDARD_INFREQUENT_ACCESS")}
		if s.bool() {
			if ppr {
				r.OnDemandThroughputOverride = &awsv1alpha1.ReadRequestOverride{MaxReadRequestUnits: int64(1 + s.intn(3))}
			} else {
				r.ProvisionedThroughputOverride = &awsv1alpha1.ReadCapacityOverride{ReadCapacityUnits: int64(1 + s.intn(3))}
			}
		}
		if len(spec.GlobalSecondaryIndexes) > 0 && s.bool() {
			r.GlobalSecondaryIndexes = []awsv1alpha1.ReplicaIndex{{IndexName: spec.GlobalSecondaryIndexes[0].IndexName}}
			if ppr {
				r.GlobalSecondaryIndexes[0].OnDemandThroughputOverride = &awsv1alpha1.ReadRequestOverride{MaxReadRequestUnits: 2}
			} else {
				r.GlobalSecondaryIndexes[0].ProvisionedThroughputOverride = &awsv1alpha1.ReadCapacityOverride{ReadCapacityUnits: 2}
			}
		}
		spec.Replicas = append(spec.Replicas, r)
	}
	if len(spec.Replicas) > 0 {
		// CEL: replicas need the stream, and write autoscaling on a
		// PROVISIONED table and each of its indexes.
		spec.StreamSpecification = &awsv1alpha1.StreamSpecification{StreamViewType: "NEW_AND_OLD_IMAGES"}
		if !ppr {
			if spec.AutoScaling == nil {
				spec.AutoScaling = &awsv1alpha1.AutoScaling{}
			}
			if spec.AutoScaling.Write == nil {
				spec.AutoScaling.Write = &awsv1alpha1.ScalingPolicy{MinCapacity: 1, MaxCapacity: 4, TargetUtilization: 70}
			}
			for i := range spec.GlobalSecondaryIndexes {
				g := &spec.GlobalSecondaryIndexes[i]
				if g.AutoScaling == nil {
					g.AutoScaling = &awsv1alpha1.AutoScaling{}
				}
				if g.AutoScaling.Write == nil {
					g.AutoScaling.Write = &awsv1alpha1.ScalingPolicy{MinCapacity: 1, MaxCapacity: 4, TargetUtilization: 70}
				}
			}
		}
	}
	if spec.AutoScaling != nil && spec.AutoScaling.Read == nil && spec.AutoScaling.Write == nil {
		spec.AutoScaling = nil
	}

	// What DynamoDB reports.
	odt := func() *types.OnDemandThroughput {
		if s.intn(3) == 0 {
			return nil
		}
		return &types.OnDemandThroughput{MaxReadRequestUnits: s.optCap(), MaxWriteRequestUnits: s.optCap()}
	}
	warmValue := func() *int64 { return aws.Int64([]int64{1000, 4000, 12000, 20000, 30000}[s.intn(5)]) }
	d.OnDemandThroughput = odt()
	if s.intn(4) > 0 {
		d.WarmThroughput = &types.TableWarmThroughputDescription{ReadUnitsPerSecond: warmValue(), WriteUnitsPerSecond: warmValue(),
			Status: types.TableStatus(s.pick("ACTIVE", "ACTIVE", "UPDATING"))}
	}
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].OnDemandThroughput = odt()
		if s.intn(4) > 0 {
			d.GlobalSecondaryIndexes[i].WarmThroughput = &types.GlobalSecondaryIndexWarmThroughputDescription{
				ReadUnitsPerSecond: warmValue(), WriteUnitsPerSecond: warmValue(), Status: types.IndexStatus(s.pick("ACTIVE", "ACTIVE", "UPDATING"))}
		}
	}
	for _, region := range fuzzRegions {
		if !s.bool() {
			continue
		}
		r := types.ReplicaDescription{RegionName: aws.String(region),
			ReplicaStatus: types.ReplicaStatus(s.pick("ACTIVE", "ACTIVE", "ACTIVE", "CREATING", "UPDATING", "DELETING", "CREATION_FAILED", "REGION_DISABLED"))}
		if s.bool() {
			r.KMSMasterKeyId = aws.String("arn:aws:kms:" + region + ":111122223333:key/" + s.pick("k1", "k2"))
		}
		if s.bool() {
			r.OnDemandThroughputOverride = &types.OnDemandThroughputOverride{MaxReadRequestUnits: aws.Int64(int64(1 + s.intn(3)))}
		}
		if s.bool() {
			r.ProvisionedThroughputOverride = &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(int64(1 + s.intn(3)))}
		}
		d.Replicas = append(d.Replicas, r)
	}
	for _, region := range fuzzRegions {
		if s.intn(3) == 0 {
			n.removeReplicas = append(n.removeReplicas, region)
		}
	}

	// The secondary reads: known whenever the spec uses the feature (the
	// provider reads them then), sometimes known otherwise.
	sec := &n.secondary
	if s.bool() {
		sec.PITRDays = aws.Int32(int32(1 + s.intn(35)))
	}
	if Uses(spec, FeatureInsights) || s.bool() {
		sec.Insights = map[string]*Insights{}
		for _, name := range append([]string{""}, indexNamesOfDesc(d)...) {
			if s.bool() {
				sec.Insights[name] = &Insights{Status: s.pick("ENABLED", "ENABLING", "DISABLED", "DISABLING", "FAILED"),
					Mode: s.pick("", awsv1alpha1.ContributorInsightsThrottled, awsv1alpha1.ContributorInsightsAccessedAndThrottled)}
			}
		}
	}
	if spec.ResourcePolicy != nil || n.removePolicy != "" || s.bool() {
		sec.Policy = &Policy{Absent: true}
		if i := s.intn(3); i > 0 {
			sec.Policy = ParsedPolicy(fuzzPolicies[i-1], s.pick("r1", "r2"))
		}
	}
	if Uses(spec, FeatureAutoScaling) || s.bool() {
		sec.Scaling = map[string]*Scaling{}
		keys := []string{"table/read", "table/write"}
		for _, name := range indexNamesOfDesc(d) {
			keys = append(keys, scalingKey(name, "read"), scalingKey(name, "write"))
		}
		for _, k := range keys {
			if s.bool() {
				minC := int32(1 + s.intn(3))
				sec.Scaling[k] = &Scaling{Registered: true, Min: minC, Max: minC + int32(s.intn(3)), HasPolicy: s.bool(), Target: int32(20 + 10*s.intn(8))}
			}
			if s.intn(3) == 0 {
				n.removeScaling = append(n.removeScaling, k)
			}
		}
	}
	return n
}

func indexNamesOfDesc(d *types.TableDescription) []string {
	var out []string
	for _, g := range d.GlobalSecondaryIndexes {
		out = append(out, aws.ToString(g.IndexName))
	}
	return out
}

// apply puts the case's secondary reads and removals into the tables.
func (n *fuzzNewer) apply(want, have *Table) {
	have.PITRDays = n.secondary.PITRDays
	Adopt(FeatureInsights, &n.secondary, have)
	have.Policy, have.Scaling = n.secondary.Policy, n.secondary.Scaling
	want.RemoveReplicas, want.RemoveScaling = n.removeReplicas, n.removeScaling
	if n.removePolicy != "" && want.Policy == nil {
		want.Policy = &Policy{Absent: true, Revision: n.removePolicy}
	}
}

// newerCheck holds what the newer features' rules need as the steps go.
type newerCheck struct {
	want     *Table
	stream   string
	warm     map[string][2]int64 // "" for the table
	replicas map[string]string   // Region -> status
	scaling  map[string]bool     // registered; nil: not known
	policy   map[string]bool     // a target-tracking policy is there
	// strong and witnesses: the table is STRONG, with these witnesses
	// (plan_fuzz_mrsc_test.go); kinesis its destinations, nil when not
	// read (plan_fuzz_kinesis_test.go).
	strong    bool
	witnesses map[string]bool
	kinesis   Kinesis
}

func newNewerCheck(want, have *Table) *newerCheck {
	c := &newerCheck{want: want, stream: have.Stream, warm: map[string][2]int64{}, replicas: map[string]string{}}
	if have.Warm != nil {
		c.warm[""] = [2]int64{aws.ToInt64(have.Warm.Read), aws.ToInt64(have.Warm.Write)}
	}
	for _, ix := range have.GSIs {
		if ix.Warm != nil {
			c.warm[ix.Name] = [2]int64{aws.ToInt64(ix.Warm.Read), aws.ToInt64(ix.Warm.Write)}
		}
	}
	for r, rep := range have.Replicas {
		c.replicas[r] = rep.Status
	}
	c.strong, c.witnesses, c.kinesis = have.isStrong(), map[string]bool{}, maps.Clone(have.Kinesis)
	for w := range have.Witnesses {
		c.witnesses[w] = true
	}
	if have.Scaling != nil {
		c.scaling, c.policy = map[string]bool{}, map[string]bool{}
		for k, s := range have.Scaling {
			c.scaling[k], c.policy[k] = s.Registered, s.HasPolicy
		}
	}
	return c
}

// check applies the newer features' rules to one step, given the billing
// mode and the indexes before it, then records what the step changes.
func (c *newerCheck) check(fail func(string, ...any), s Step, mode string, indexes map[string]Index) {
	checkStepRegion(fail, s)
	switch {
	case isKinesisStep(s):
		c.checkKinesis(fail, s)
	case s.Table != nil:
		c.checkTable(fail, s.Table, mode, indexes)
	case s.Backups != nil:
		if days := s.Backups.PointInTimeRecoverySpecification.RecoveryPeriodInDays; days != nil {
			// RecoveryPeriodInDays 1..35, with recovery on (API PointInTimeRecoverySpecification).
			if *days < 1 || *days > 35 || !aws.ToBool(s.Backups.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled) {
				fail("recovery period %d with enabled=%v", *days, aws.ToBool(s.Backups.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled))
			}
		}
	case s.Insights != nil:
		if ix := aws.ToString(s.Insights.IndexName); ix != "" {
			if _, ok := indexes[ix]; !ok {
				fail("contributor insights for index %s, which does not exist", ix)
			}
		}
		if s.Insights.ContributorInsightsAction == "" {
			fail("contributor insights without an action")
		}
		// An ENABLE without a mode reverts to ACCESSED_AND_THROTTLED_KEYS
		// (ACK dynamodb-controller docs/api-quirks/table-subresources.md):
		// every ENABLE names one, the spec's where it has one.
		if s.Insights.ContributorInsightsAction == types.ContributorInsightsActionEnable {
			want := c.want.Insights
			if ix := aws.ToString(s.Insights.IndexName); ix != "" {
				w, _ := c.want.index(ix)
				want = w.Insights
			}
			switch {
			case s.Insights.ContributorInsightsMode == "":
				fail("an ENABLE without a mode")
			case want != nil && want.Mode != "" && string(s.Insights.ContributorInsightsMode) != want.Mode:
				fail("ENABLE with mode %s, the spec says %s", s.Insights.ContributorInsightsMode, want.Mode)
			}
		}
	case s.PutPolicy != nil:
		var doc any
		if json.Unmarshal([]byte(aws.ToString(s.PutPolicy.Policy)), &doc) != nil || len(aws.ToString(s.PutPolicy.Policy)) > maxPolicyBytes {
			fail("policy is not a JSON document of at most 20 KB")
		}
		if aws.ToString(s.PutPolicy.ExpectedRevisionId) == "" {
			fail("PutResourcePolicy without ExpectedRevisionId")
		}
	case s.DeletePolicy != nil:
		if aws.ToString(s.DeletePolicy.ExpectedRevisionId) == "" {
			fail("DeleteResourcePolicy without ExpectedRevisionId: it could remove someone else's policy")
		}
	case s.Register != nil:
		k := c.key(fail, aws.ToString(s.Register.ResourceId), s.Register.ScalableDimension, indexes)
		// Only a PROVISIONED capacity scales (developerguide AutoScaling.html).
		if mode != awsv1alpha1.BillingModeProvisioned {
			fail("registers %s on a %s table", k, mode)
		}
		if aws.ToInt32(s.Register.MinCapacity) < 1 || aws.ToInt32(s.Register.MinCapacity) > aws.ToInt32(s.Register.MaxCapacity) {
			fail("scalable target %s with min %d, max %d", k, aws.ToInt32(s.Register.MinCapacity), aws.ToInt32(s.Register.MaxCapacity))
		}
		if c.scaling == nil {
			c.scaling, c.policy = map[string]bool{}, map[string]bool{}
		}
		c.scaling[k] = true
	case s.ScalingPolicy != nil:
		k := c.key(fail, aws.ToString(s.ScalingPolicy.ResourceId), s.ScalingPolicy.ScalableDimension, indexes)
		// A policy needs its target (API ObjectNotFoundException).
		if !c.scaling[k] {
			fail("scaling policy for %s, which is not registered", k)
		}
		cfg := s.ScalingPolicy.TargetTrackingScalingPolicyConfiguration
		metric := aastypes.MetricTypeDynamoDBReadCapacityUtilization
		if strings.HasSuffix(k, "/write") {
			metric = aastypes.MetricTypeDynamoDBWriteCapacityUtilization
		}
		if cfg == nil || cfg.PredefinedMetricSpecification == nil || cfg.PredefinedMetricSpecification.PredefinedMetricType != metric ||
			s.ScalingPolicy.PolicyType != aastypes.PolicyTypeTargetTrackingScaling {
			fail("scaling policy for %s is not target tracking on %s", k, metric)
		}
		c.policy[k] = true
	case s.Deregister != nil:
		k := c.key(fail, aws.ToString(s.Deregister.ResourceId), s.Deregister.ScalableDimension, nil)
		if !c.scaling[k] {
			fail("deregisters %s, which is not registered", k)
		}
		if !slices.Contains(c.want.RemoveScaling, k) || c.want.Scaling[k] != nil {
			fail("deregisters %s, which Tether does not manage or the spec still scales", k)
		}
		delete(c.scaling, k)
	}
}

func (c *newerCheck) key(fail func(string, ...any), resource string, dimension aastypes.ScalableDimension, indexes map[string]Index) string {
	k, ok := ScalingKeyOf("fuzz-table", resource, dimension)
	if !ok {
		fail("scalable target %s of another table", resource)
	}
	if ix := indexOfKey(k); ix != "" && indexes != nil {
		if _, ok := indexes[ix]; !ok {
			fail("scalable target of index %s, which does not exist", ix)
		}
	}
	return k
}

func (c *newerCheck) checkTable(fail func(string, ...any), in *dynamodb.UpdateTableInput, mode string, indexes map[string]Index) {
	if c.checkStrong(fail, in) {
		return
	}
	newMode := mode
	if in.BillingMode != "" {
		newMode = string(in.BillingMode)
	}
	alone := func(what string) {
		if in.BillingMode != "" || in.ProvisionedThroughput != nil || in.StreamSpecification != nil || in.DeletionProtectionEnabled != nil ||
			in.DisassociationProtectionEnabled != nil ||
			in.TableClass != "" || in.SSESpecification != nil || len(in.AttributeDefinitions) > 0 {
			fail("%s combined with another change", what)
		}
	}
	if len(in.ReplicaUpdates) > 0 {
		c.checkReplica(fail, in, mode, indexes)
		alone("a replica update")
		if len(in.GlobalSecondaryIndexUpdates) > 0 || in.OnDemandThroughput != nil || in.WarmThroughput != nil {
			fail("a replica update combined with another change")
		}
	}
	c.checkDisassociationProtection(fail, in)
	if in.OnDemandThroughput != nil {
		alone("on-demand limits")
		if c.want.OnDemand == nil {
			fail("on-demand limits the spec does not manage")
		}
		// Not on PROVISIONED (go-to-k/cdkd #1441).
		if newMode != awsv1alpha1.BillingModePayPerRequest {
			fail("on-demand limits on a %s table", newMode)
		}
	}
	if w := in.WarmThroughput; w != nil {
		alone("warm throughput")
		if c.want.Warm == nil {
			fail("warm throughput the spec does not manage")
		}
		c.raiseWarm(fail, "", w)
	}
	gsiNewer := 0
	for _, u := range in.GlobalSecondaryIndexUpdates {
		up := u.Update
		if up == nil || (up.OnDemandThroughput == nil && up.WarmThroughput == nil) {
			continue
		}
		gsiNewer++
		name := aws.ToString(up.IndexName)
		if _, ok := indexes[name]; !ok {
			fail("limits or warm throughput for index %s, which does not exist", name)
		}
		if up.ProvisionedThroughput != nil || len(in.GlobalSecondaryIndexUpdates) != 1 {
			fail("index %s's limits or warm throughput combined with another change", name)
		}
		alone("an index's limits or warm throughput")
		if up.OnDemandThroughput != nil && newMode != awsv1alpha1.BillingModePayPerRequest {
			fail("on-demand limits on index %s of a %s table", name, newMode)
		}
		if up.WarmThroughput != nil {
			c.raiseWarm(fail, name, up.WarmThroughput)
		}
	}
	if s := in.StreamSpecification; s != nil {
		c.stream = ""
		if aws.ToBool(s.StreamEnabled) {
			c.stream = string(s.StreamViewType)
		}
	}
}

// raiseWarm: "You can increase the warm throughput value" only
// (developerguide/update-warm-throughput.html), and a value that does not
// change is no update.
func (c *newerCheck) raiseWarm(fail func(string, ...any), name string, w *types.WarmThroughput) {
	have := c.warm[name]
	if w.ReadUnitsPerSecond == nil && w.WriteUnitsPerSecond == nil {
		fail("empty warm throughput for %q", name)
	}
	if w.ReadUnitsPerSecond != nil {
		if *w.ReadUnitsPerSecond <= have[0] {
			fail("warm reads of %q to %d, not above %d", name, *w.ReadUnitsPerSecond, have[0])
		}
		have[0] = *w.ReadUnitsPerSecond
	}
	if w.WriteUnitsPerSecond != nil {
		if *w.WriteUnitsPerSecond <= have[1] {
			fail("warm writes of %q to %d, not above %d", name, *w.WriteUnitsPerSecond, have[1])
		}
		have[1] = *w.WriteUnitsPerSecond
	}
	c.warm[name] = have
}

// checkReplica: one replica action per call (API UpdateGlobalTable's advice,
// ACK hooks_replica_updates.go); a new replica needs the NEW_AND_OLD_IMAGES
// stream and on-demand capacity or write autoscaling on the table and every
// index (developerguide V2globaltables_reqs_bestpractices.html).
func (c *newerCheck) checkReplica(fail func(string, ...any), in *dynamodb.UpdateTableInput, mode string, indexes map[string]Index) {
	if len(in.ReplicaUpdates) != 1 {
		fail("%d replica actions in one call", len(in.ReplicaUpdates))
	}
	u := in.ReplicaUpdates[0]
	n := 0
	for _, set := range []bool{u.Create != nil, u.Update != nil, u.Delete != nil, u.Disassociate != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		fail("a replica update with %d actions", n)
	}
	switch {
	case u.Create != nil:
		region := aws.ToString(u.Create.RegionName)
		if _, ok := c.replicas[region]; ok {
			fail("creates replica %s, which exists", region)
		}
		if c.stream != "NEW_AND_OLD_IMAGES" {
			fail("creates replica %s while the stream is %q", region, c.stream)
		}
		if mode == awsv1alpha1.BillingModeProvisioned && c.scaling != nil {
			missing := !c.scaling["table/write"]
			for name := range indexes {
				missing = missing || !c.scaling[scalingKey(name, "write")]
			}
			if missing {
				fail("creates replica %s of a PROVISIONED table without write autoscaling everywhere (%v)", region, c.scaling)
			}
		}
		if _, wanted := c.want.Replicas[region]; !wanted {
			fail("creates replica %s, which the spec does not name", region)
		}
		c.replicas[region] = "ACTIVE"
	case u.Update != nil:
		region := aws.ToString(u.Update.RegionName)
		if c.replicas[region] != "ACTIVE" {
			fail("updates replica %s, which is %q", region, c.replicas[region])
		}
	case u.Delete != nil:
		region := aws.ToString(u.Delete.RegionName)
		if _, ok := c.replicas[region]; !ok || c.replicas[region] == "DELETING" {
			fail("deletes replica %s, which is not there", region)
		}
		if _, wanted := c.want.Replicas[region]; wanted || !slices.Contains(c.want.RemoveReplicas, region) {
			fail("deletes replica %s, which the spec names or Tether did not add", region)
		}
		if _, keep := c.want.Disassociate[region]; keep {
			fail("deletes replica %s, which the spec keeps as a table of its own", region)
		}
		delete(c.replicas, region)
	case u.Disassociate != nil:
		c.checkDisassociate(fail, u.Disassociate)
	}
}

// applyNewer does to the model what AWS does for the newer features' steps.
func applyNewer(tb *Table, s Step) {
	switch {
	case isKinesisStep(s):
		applyKinesis(tb, s)
	case s.Insights != nil:
		in := &Insights{Enabled: s.Insights.ContributorInsightsAction == types.ContributorInsightsActionEnable, Status: "DISABLED"}
		if in.Enabled {
			in.Status, in.Mode = "ENABLED", orDefault(string(s.Insights.ContributorInsightsMode), awsv1alpha1.ContributorInsightsAccessedAndThrottled)
		}
		if ix := aws.ToString(s.Insights.IndexName); ix != "" {
			for i := range tb.GSIs {
				if tb.GSIs[i].Name == ix {
					tb.GSIs[i].Insights = in
				}
			}
		} else {
			tb.Insights = in
		}
	case s.PutPolicy != nil:
		tb.Policy = ParsedPolicy(aws.ToString(s.PutPolicy.Policy), "r-new")
	case s.DeletePolicy != nil:
		tb.Policy = &Policy{Absent: true}
	case s.Register != nil:
		k, _ := ScalingKeyOf("fuzz-table", aws.ToString(s.Register.ResourceId), s.Register.ScalableDimension)
		tb.Scaling = maps.Clone(tb.Scaling)
		old := tb.Scaling[k]
		next := Scaling{Registered: true, Min: aws.ToInt32(s.Register.MinCapacity), Max: aws.ToInt32(s.Register.MaxCapacity)}
		if old != nil {
			next.HasPolicy, next.Target, next.ScaleIn, next.ScaleOut = old.HasPolicy, old.Target, old.ScaleIn, old.ScaleOut
		}
		tb.Scaling[k] = &next
	case s.ScalingPolicy != nil:
		k, _ := ScalingKeyOf("fuzz-table", aws.ToString(s.ScalingPolicy.ResourceId), s.ScalingPolicy.ScalableDimension)
		tb.Scaling = maps.Clone(tb.Scaling)
		next := *tb.Scaling[k]
		c := s.ScalingPolicy.TargetTrackingScalingPolicyConfiguration
		next.HasPolicy, next.Target, next.ScaleIn, next.ScaleOut = true, int32(aws.ToFloat64(c.TargetValue)), c.ScaleInCooldown, c.ScaleOutCooldown
		tb.Scaling[k] = &next
	case s.Deregister != nil:
		k, _ := ScalingKeyOf("fuzz-table", aws.ToString(s.Deregister.ResourceId), s.Deregister.ScalableDimension)
		tb.Scaling = maps.Clone(tb.Scaling)
		delete(tb.Scaling, k)
	}
}

// applyNewerTable does to the model what AWS does for the newer parts of an
// UpdateTable.
func applyNewerTable(tb *Table, in *dynamodb.UpdateTableInput) {
	if in.BillingMode != "" && tb.OnDemand != nil {
		// A switch drops the limits (go-to-k/cdkd #3403).
		tb.OnDemand = awsOnDemand(nil)
		for i := range tb.GSIs {
			tb.GSIs[i].OnDemand = awsOnDemand(nil)
		}
	}
	if in.OnDemandThroughput != nil {
		tb.OnDemand = tb.OnDemand.applied(in.OnDemandThroughput)
	}
	if in.WarmThroughput != nil {
		tb.Warm = tb.Warm.raised(in.WarmThroughput)
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		for i := range tb.GSIs {
			ix := &tb.GSIs[i]
			switch {
			case u.Update != nil && ix.Name == aws.ToString(u.Update.IndexName):
				if u.Update.OnDemandThroughput != nil {
					ix.OnDemand = ix.OnDemand.applied(u.Update.OnDemandThroughput)
				}
				if u.Update.WarmThroughput != nil {
					ix.Warm = ix.Warm.raised(u.Update.WarmThroughput)
				}
			case u.Create != nil && ix.Name == aws.ToString(u.Create.IndexName):
				ix.OnDemand = awsOnDemand(u.Create.OnDemandThroughput)
				w := u.Create.WarmThroughput
				if w == nil {
					w = &types.WarmThroughput{}
				}
				ix.Warm = awsWarm(w.ReadUnitsPerSecond, w.WriteUnitsPerSecond, "ACTIVE")
			}
		}
	}
	for _, u := range in.ReplicaUpdates {
		tb.Replicas = maps.Clone(tb.Replicas)
		switch {
		case u.Create != nil:
			region := aws.ToString(u.Create.RegionName)
			tb.Replicas[region] = reportedReplica(region, u.Create.KMSMasterKeyId, u.Create.TableClassOverride,
				u.Create.ProvisionedThroughputOverride, u.Create.OnDemandThroughputOverride, u.Create.GlobalSecondaryIndexes)
		case u.Update != nil:
			region := aws.ToString(u.Update.RegionName)
			tb.Replicas[region] = reportedReplica(region, u.Update.KMSMasterKeyId, u.Update.TableClassOverride,
				u.Update.ProvisionedThroughputOverride, u.Update.OnDemandThroughputOverride, u.Update.GlobalSecondaryIndexes)
		case u.Delete != nil:
			delete(tb.Replicas, aws.ToString(u.Delete.RegionName))
		case u.Disassociate != nil:
			delete(tb.Replicas, aws.ToString(u.Disassociate.RegionName))
		}
	}
	applyStrongTable(tb, in)
}

// reportedReplica is a replica as DescribeTable reports it after an action:
// AWS gives the KMS key back as an ARN.
func reportedReplica(region string, kms *string, class types.TableClass, pt *types.ProvisionedThroughputOverride,
	odt *types.OnDemandThroughputOverride, gsis []types.ReplicaGlobalSecondaryIndex) Replica {
	r := Replica{Status: "ACTIVE", TableClass: string(class)}
	if k := aws.ToString(kms); k != "" {
		r.KMSKey = k
		if !strings.HasPrefix(k, "arn:") {
			r.KMSKey = fmt.Sprintf("arn:aws:kms:%s:111122223333:key/%s", region, k)
		}
	}
	if pt != nil {
		r.ReadCapacity = pt.ReadCapacityUnits
	}
	if odt != nil {
		r.MaxReads = odt.MaxReadRequestUnits
	}
	for _, g := range gsis {
		if r.Indexes == nil {
			r.Indexes = map[string]ReplicaIndex{}
		}
		ri := ReplicaIndex{}
		if g.ProvisionedThroughputOverride != nil {
			ri.ReadCapacity = g.ProvisionedThroughputOverride.ReadCapacityUnits
		}
		if g.OnDemandThroughputOverride != nil {
			ri.MaxReads = g.OnDemandThroughputOverride.MaxReadRequestUnits
		}
		r.Indexes[aws.ToString(g.IndexName)] = ri
	}
	return r
}
