package dynamodb

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// StepKind names what one update step changes.
type StepKind string

// Step kinds, in the order the planner emits them. The order follows AWS's
// rules: indexes go before a billing switch (which must carry the throughput
// of every index left), a changed stream view type needs the old stream off
// first, and index creates come one per call.
const (
	StepDeleteIndex        StepKind = "DeleteIndex"
	StepSwitchBilling      StepKind = "SwitchBilling"
	StepThroughput         StepKind = "Throughput"
	StepStream             StepKind = "Stream"
	StepCreateIndex        StepKind = "CreateIndex"
	StepTimeToLive         StepKind = "TimeToLive"
	StepPointInTimeRecover StepKind = "PointInTimeRecovery"
	StepDeletionProtection StepKind = "DeletionProtection"
	StepTableClass         StepKind = "TableClass"
	StepSSE                StepKind = "SSE"
	StepTags               StepKind = "Tags"
	StepUntag              StepKind = "Untag"
)

// Step is one AWS call that moves the table towards the spec. Exactly one
// of the inputs is set (Tags lacks the ARN, filled in when it is sent).
type Step struct {
	Kind        StepKind
	Description string
	Table       *dynamodb.UpdateTableInput
	TTL         *dynamodb.UpdateTimeToLiveInput
	Backups     *dynamodb.UpdateContinuousBackupsInput
	Tags        []types.Tag
	UntagKeys   []string
	// Inputs of the newer features' steps. PutPolicy and DeletePolicy lack
	// the ARN, filled in when sent.
	Insights      *dynamodb.UpdateContributorInsightsInput
	PutPolicy     *dynamodb.PutResourcePolicyInput
	DeletePolicy  *dynamodb.DeleteResourcePolicyInput
	Register      *applicationautoscaling.RegisterScalableTargetInput
	ScalingPolicy *applicationautoscaling.PutScalingPolicyInput
	Deregister    *applicationautoscaling.DeregisterScalableTargetInput
}

// Plan is the ordered list of steps from what AWS reports to the spec. Only
// the first step is ever sent: the plan is computed again from a fresh
// DescribeTable before the next one, so every step sent is legal for the
// table as it is then.
type Plan struct {
	Steps []Step
	// Blocked explains a change the adapter will not make on its own (an
	// index replacement without the annotation); "" when there is none.
	Blocked string
	// busy is what AWS is still doing to the table ("" when idle): the
	// table is not Ready until it is done. gate is what of it holds which
	// steps.
	busy string
	gate stepGate
}

// String is the pending plan in one line, for conditions and events: the
// step sent next, then the ones after it.
func (p *Plan) String() string {
	var b strings.Builder
	if len(p.Steps) > 0 {
		b.WriteString(p.Steps[0].Description)
	}
	if len(p.Steps) > 1 {
		b.WriteString(" (then: " + strings.Join(p.Descriptions()[1:], "; ") + ")")
	}
	if p.Blocked != "" {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("blocked: " + p.Blocked)
	}
	return b.String()
}

// StallKey is the step sent next: the generic stall breaker counts how often
// the same step was sent for a generation with the table never showing it,
// whatever the steps after it say.
func (p *Plan) StallKey() string {
	if len(p.Steps) > 0 {
		return p.Steps[0].Description
	}
	return p.String()
}

var _ providers.StallKeyer = (*Plan)(nil)

// Descriptions lists the steps, for status.pendingPlan.
func (p *Plan) Descriptions() []string {
	out := make([]string, 0, len(p.Steps))
	for _, s := range p.Steps {
		out = append(out, s.Description)
	}
	return out
}

// Empty says whether the table matches the spec.
func (p *Plan) Empty() bool { return len(p.Steps) == 0 && p.Blocked == "" }

type planOptions struct {
	// AllowIndexReplacement lets the planner delete and re-create an index
	// whose key schema or projection changed.
	AllowIndexReplacement bool
}

// planner builds a plan while simulating each step on cur, so that later
// steps are planned against the table as the earlier ones leave it.
type planner struct {
	name string
	want *table
	cur  *table
	opts planOptions
	plan Plan
}

// plan computes the steps that take have to want. It is pure: it reads
// nothing and calls nothing.
func plan(tableName string, want, have *table, opts planOptions) *Plan {
	p := &planner{name: tableName, want: want, cur: have.clone(), opts: opts}
	p.yieldToAutoScaling()
	p.deleteReplicas()
	p.deleteIndexes()
	p.deregisterScaling()
	p.switchBilling()
	p.updateThroughput()
	p.updateStream()
	p.createIndexes()
	p.updateOnDemand()
	p.updateWarm()
	p.registerScaling()
	p.addReplicas()
	p.updateTTL()
	p.updatePITR()
	p.updateRecoveryPeriod()
	p.updateDeletionProtection()
	p.updateTableClass()
	p.updateSSE()
	p.updateInsights()
	p.updatePolicy()
	p.updateTags()
	return &p.plan
}

func (p *planner) add(s Step) { p.plan.Steps = append(p.plan.Steps, s) }

func (p *planner) updateTable() *dynamodb.UpdateTableInput {
	return &dynamodb.UpdateTableInput{TableName: aws.String(p.name)}
}

// deleteIndexes removes indexes the spec no longer has, and indexes whose
// shape changed when replacement is allowed.
func (p *planner) deleteIndexes() {
	var blocked []string
	for _, have := range slices.Clone(p.cur.GSIs) {
		want, kept := p.want.index(have.Name)
		if kept && want.sameShape(have) {
			continue
		}
		if kept && !p.opts.AllowIndexReplacement {
			blocked = append(blocked, fmt.Sprintf("%s changed its %s", have.Name, want.shapeChange(have)))
			continue
		}
		in := p.updateTable()
		in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{
			Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(have.Name)}}}
		desc := "delete index " + have.Name
		if kept {
			desc = fmt.Sprintf("delete index %s to re-create it with a new %s", have.Name, want.shapeChange(have))
		}
		p.add(Step{Kind: StepDeleteIndex, Description: desc, Table: in})
		p.cur.removeIndex(have.Name)
	}
	if len(blocked) > 0 {
		p.plan.Blocked = fmt.Sprintf("global secondary index %s, which DynamoDB cannot change in place; "+
			"annotate the object %s: \"true\" to delete and re-create it (queries on it fail meanwhile), or restore its previous definition",
			strings.Join(blocked, ", "), awsv1alpha1.AnnotationAllowIndexReplacement)
	}
}

// switchBilling changes the billing mode. A switch to PROVISIONED must carry
// the throughput of the table and of every index in the same call, except
// an index already reported at that capacity: AWS reports 0 on
// PAY_PER_REQUEST, but DynamoDB Local keeps the old values and rejects
// "the requested throughput value equals the current value".
func (p *planner) switchBilling() {
	if p.want.BillingMode == p.cur.BillingMode {
		return
	}
	in := p.updateTable()
	in.BillingMode = types.BillingMode(p.want.BillingMode)
	desc := "switch billing to " + p.want.BillingMode
	if p.want.BillingMode == awsv1alpha1.BillingModeProvisioned {
		in.ProvisionedThroughput = awsProvisioned(p.want.Throughput)
		p.cur.Throughput = p.want.Throughput
		for i, ix := range p.cur.GSIs {
			want, _ := p.want.index(ix.Name)
			p.cur.GSIs[i].Throughput = want.Throughput
			if ix.Reported != nil && want.Throughput != nil && *ix.Reported == *want.Throughput {
				continue
			}
			in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, types.GlobalSecondaryIndexUpdate{
				Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(ix.Name), ProvisionedThroughput: awsProvisioned(want.Throughput)}})
		}
		desc += fmt.Sprintf(" (table %s", p.want.Throughput)
		for _, ix := range p.cur.GSIs {
			desc += fmt.Sprintf(", index %s %s", ix.Name, ix.Throughput)
		}
		desc += ")"
	} else {
		p.cur.Throughput = nil
		for i := range p.cur.GSIs {
			p.cur.GSIs[i].Throughput = nil
		}
	}
	p.cur.BillingMode = p.want.BillingMode
	p.dropOnDemand()
	p.add(Step{Kind: StepSwitchBilling, Description: desc, Table: in})
}

// updateThroughput sends only the capacities that differ: AWS rejects an
// update that "will not change" anything.
func (p *planner) updateThroughput() {
	if p.want.BillingMode != awsv1alpha1.BillingModeProvisioned || p.cur.BillingMode != awsv1alpha1.BillingModeProvisioned {
		return
	}
	in := p.updateTable()
	var parts []string
	if p.want.Throughput != nil && !sameThroughput(p.want.Throughput, p.cur.Throughput) {
		in.ProvisionedThroughput = awsProvisioned(p.want.Throughput)
		parts = append(parts, "table "+p.want.Throughput.String())
		p.cur.Throughput = p.want.Throughput
	}
	for i, ix := range p.cur.GSIs {
		want, ok := p.want.index(ix.Name)
		if !ok || want.Throughput == nil || sameThroughput(want.Throughput, ix.Throughput) {
			continue
		}
		in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, types.GlobalSecondaryIndexUpdate{
			Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(ix.Name), ProvisionedThroughput: awsProvisioned(want.Throughput)}})
		parts = append(parts, fmt.Sprintf("index %s %s", ix.Name, want.Throughput))
		p.cur.GSIs[i].Throughput = want.Throughput
	}
	if len(parts) > 0 {
		p.add(Step{Kind: StepThroughput, Description: "set throughput " + strings.Join(parts, ", "), Table: in})
	}
}

// updateStream turns the stream on or off. A different view type needs the
// old stream turned off first: AWS refuses to change it on an enabled stream.
func (p *planner) updateStream() {
	if p.want.Stream == p.cur.Stream {
		return
	}
	if p.cur.Stream != "" {
		in := p.updateTable()
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(false)}
		p.add(Step{Kind: StepStream, Description: "disable stream", Table: in})
		p.cur.Stream = ""
	}
	if p.want.Stream != "" {
		in := p.updateTable()
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(p.want.Stream)}
		p.add(Step{Kind: StepStream, Description: "enable stream " + p.want.Stream, Table: in})
		p.cur.Stream = p.want.Stream
	}
}

// createIndexes adds missing indexes one per call, in spec order.
func (p *planner) createIndexes() {
	for _, want := range p.want.GSIs {
		if _, ok := p.cur.index(want.Name); ok {
			continue
		}
		in := p.updateTable()
		in.AttributeDefinitions = p.attributeDefinitions(want.Keys)
		in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Create: createIndexAction(want)}}
		p.add(Step{Kind: StepCreateIndex, Description: "create index " + want.Name, Table: in})
		p.cur.GSIs = append(p.cur.GSIs, want)
	}
}

func (p *planner) attributeDefinitions(keys []key) []types.AttributeDefinition {
	out := make([]types.AttributeDefinition, 0, len(keys))
	for _, k := range keys {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(k.Name),
			AttributeType: types.ScalarAttributeType(p.want.AttributeTypes[k.Name])})
	}
	return out
}

func createIndexAction(ix index) *types.CreateGlobalSecondaryIndexAction {
	return &types.CreateGlobalSecondaryIndexAction{
		IndexName:             aws.String(ix.Name),
		KeySchema:             awsKeySchema(ix.Keys),
		Projection:            awsProjectionOf(ix.Projection),
		ProvisionedThroughput: awsProvisioned(ix.Throughput),
		OnDemandThroughput:    ix.OnDemand.createInput(),
		WarmThroughput:        ix.Warm.createInput(),
	}
}

// updateTTL: AWS turns TTL off only with the attribute name it is on for,
// so a new attribute name takes two steps.
func (p *planner) updateTTL() {
	want, cur := p.want.TTL, p.cur.TTL
	if want == nil || cur == nil {
		return
	}
	curOn := cur.enabled()
	if curOn && (!want.Enabled || cur.Attribute != want.Attribute) {
		p.add(p.ttlStep(cur.Attribute, false))
		curOn = false
	}
	if want.Enabled && !curOn {
		p.add(p.ttlStep(want.Attribute, true))
	}
	p.cur.TTL = &ttl{Attribute: want.Attribute, Enabled: want.Enabled}
}

func (p *planner) ttlStep(attribute string, enabled bool) Step {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	return Step{Kind: StepTimeToLive, Description: fmt.Sprintf("%s TTL on %s", verb, attribute),
		TTL: &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(p.name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attribute), Enabled: aws.Bool(enabled)}}}
}

func (p *planner) updatePITR() {
	if p.want.PITR == nil || p.cur.PITR == nil || *p.want.PITR == *p.cur.PITR {
		return
	}
	verb := map[bool]string{true: "enable", false: "disable"}[*p.want.PITR]
	in := &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: p.want.PITR}
	if *p.want.PITR {
		in.RecoveryPeriodInDays = p.want.PITRDays
		p.cur.PITRDays = p.want.PITRDays
	}
	p.add(Step{Kind: StepPointInTimeRecover, Description: verb + " point-in-time recovery",
		Backups: &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(p.name), PointInTimeRecoverySpecification: in}})
	p.cur.PITR = p.want.PITR
}

func (p *planner) updateDeletionProtection() {
	if p.want.DeletionProtection == nil || p.cur.DeletionProtection != nil && *p.want.DeletionProtection == *p.cur.DeletionProtection {
		return
	}
	in := p.updateTable()
	in.DeletionProtectionEnabled = p.want.DeletionProtection
	verb := map[bool]string{true: "enable", false: "disable"}[*p.want.DeletionProtection]
	p.add(Step{Kind: StepDeletionProtection, Description: verb + " deletion protection", Table: in})
	p.cur.DeletionProtection = p.want.DeletionProtection
}

func (p *planner) updateTableClass() {
	if p.want.TableClass == "" || p.cur.TableClass == "" || p.want.TableClass == p.cur.TableClass {
		return
	}
	in := p.updateTable()
	in.TableClass = types.TableClass(p.want.TableClass)
	p.add(Step{Kind: StepTableClass, Description: "set table class " + p.want.TableClass, Table: in})
	p.cur.TableClass = p.want.TableClass
}

func (p *planner) updateSSE() {
	want, cur := p.want.SSE, p.cur.SSE
	if want == nil || cur == nil || (want.Enabled == cur.Enabled && (!want.Enabled || kmsKeyMatches(want.KMSKey, cur.KMSKey))) {
		return
	}
	in := p.updateTable()
	in.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(want.Enabled)}
	desc := "use the AWS owned encryption key"
	if want.Enabled {
		in.SSESpecification.SSEType = types.SSETypeKms
		desc = "encrypt with the AWS managed KMS key"
		if want.KMSKey != "" {
			in.SSESpecification.KMSMasterKeyId = aws.String(want.KMSKey)
			desc = "encrypt with KMS key " + want.KMSKey
		}
	}
	p.add(Step{Kind: StepSSE, Description: desc, Table: in})
	p.cur.SSE = want
}

// kmsKeyMatches compares the key the spec names (id, ARN or alias) with the
// ARN AWS reports. An alias cannot be resolved without KMS, so it matches.
func kmsKeyMatches(want, haveARN string) bool {
	switch {
	case want == "" || strings.HasPrefix(want, "alias/") || strings.Contains(want, ":alias/"):
		return true
	case strings.HasPrefix(want, "arn:"):
		return want == haveARN
	default:
		return strings.HasSuffix(haveARN, "key/"+want)
	}
}

// updateTags adds or corrects the spec's tags (and Tether's owner tag).
// Tags the spec does not name are left alone: other tools tag tables too.
func (p *planner) updateTags() {
	if p.want.Tags == nil || p.cur.Tags == nil {
		return
	}
	var tags []types.Tag
	for _, k := range slices.Sorted(maps.Keys(p.want.Tags)) {
		if v, ok := p.cur.Tags[k]; !ok || v != p.want.Tags[k] {
			tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(p.want.Tags[k])})
			p.cur.Tags[k] = p.want.Tags[k]
		}
	}
	if len(tags) > 0 {
		p.add(Step{Kind: StepTags, Description: fmt.Sprintf("tag table (%d tags)", len(tags)), Tags: tags})
	}
	var untag []string
	for _, k := range p.want.RemoveTags {
		if _, wanted := p.want.Tags[k]; !wanted {
			if _, present := p.cur.Tags[k]; present {
				untag = append(untag, k)
				delete(p.cur.Tags, k)
			}
		}
	}
	if len(untag) > 0 {
		slices.Sort(untag)
		p.add(Step{Kind: StepUntag, Description: "untag table (" + strings.Join(untag, ", ") + ")", UntagKeys: untag})
	}
}

func (t ttl) enabled() bool {
	switch t.Status {
	case string(types.TimeToLiveStatusEnabled), string(types.TimeToLiveStatusEnabling):
		return true
	case "":
		return t.Enabled
	default:
		return false
	}
}

func sameThroughput(a, b *throughput) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func awsProvisioned(t *throughput) *types.ProvisionedThroughput {
	if t == nil {
		return nil
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.Read), WriteCapacityUnits: aws.Int64(t.Write)}
}

func awsKeySchema(keys []key) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, 0, len(keys))
	for _, k := range keys {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyType(k.Type)})
	}
	return out
}

func awsProjectionOf(p projection) *types.Projection {
	out := &types.Projection{ProjectionType: types.ProjectionType(p.Type)}
	if len(p.NonKey) > 0 {
		out.NonKeyAttributes = slices.Clone(p.NonKey)
	}
	return out
}

// clone copies what the planner mutates.
func (t *table) clone() *table {
	c := *t
	c.GSIs = slices.Clone(t.GSIs)
	if t.Tags != nil {
		c.Tags = maps.Clone(t.Tags)
	}
	c.Scaling, c.Replicas = maps.Clone(t.Scaling), maps.Clone(t.Replicas)
	return &c
}

func (t *table) removeIndex(name string) {
	t.GSIs = slices.DeleteFunc(t.GSIs, func(ix index) bool { return ix.Name == name })
}
