package dynamodb

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Features an endpoint may lack, named as the spec fields that use them.
const (
	featureTTL        = "timeToLiveSpecification"
	featurePITR       = "pointInTimeRecoverySpecification"
	featureTags       = "tags"
	featureTableClass = "tableClass"
	featureSSE        = "sseSpecification"
)

// secondaryReads are the answers of the calls besides DescribeTable.
type secondaryReads struct {
	TTL  *ttl
	PITR *bool
	Tags map[string]string
}

func featureOf(kind StepKind) string {
	switch kind {
	case StepTimeToLive:
		return featureTTL
	case StepPointInTimeRecover:
		return featurePITR
	case StepTags, StepUntag:
		return featureTags
	case StepTableClass:
		return featureTableClass
	case StepSSE:
		return featureSSE
	}
	return newerFeatureOf(kind)
}

// specUses says whether the spec manages a feature.
func specUses(spec *awsv1alpha1.DynamoDBTableSpec, feature string) bool {
	switch feature {
	case featureTTL:
		return spec.TimeToLiveSpecification != nil
	case featurePITR:
		return spec.PointInTimeRecoverySpecification != nil
	case featureTags:
		return len(spec.Tags) > 0
	case featureTableClass:
		return spec.TableClass != ""
	case featureSSE:
		return spec.SSESpecification != nil
	}
	return specUsesNewer(spec, feature)
}

// readSecondary fills in TTL, point-in-time recovery and tags, each only
// when the spec uses it, the endpoint has the API, and the last answer is
// older than SecondaryReadInterval or stale because the adapter changed it
// since. Tether's owner tags alone are no reason to read tags: CreateTable
// applies them, and they are read only to prove ownership of a table whose
// identity is not on record (carriesOwnerTag). Tags Tether applied before
// and the spec dropped are read once more, to remove them.
func (p *Provider) readSecondary(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription, have *table) error {
	mem := p.memoryOf(obj)
	name := aws.String(obj.ResolvedTableName())
	reads := []secondaryRead{
		{featureTTL, specUses(&obj.Spec, featureTTL), func() error {
			out, err := ep.API.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: name})
			if err == nil {
				d := out.TimeToLiveDescription
				mem.secondary.TTL = &ttl{}
				if d != nil {
					mem.secondary.TTL = &ttl{Attribute: aws.ToString(d.AttributeName), Status: string(d.TimeToLiveStatus)}
				}
			}
			return err
		}},
		{featurePITR, specUses(&obj.Spec, featurePITR), func() error {
			out, err := ep.API.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: name})
			if err == nil {
				mem.secondary.PITR = aws.Bool(pitrOn(out.ContinuousBackupsDescription))
				mem.newer.PITRDays = pitrDays(out.ContinuousBackupsDescription)
			}
			return err
		}},
		{featureTags, p.usesTags(ep, obj) || len(obj.Status.ManagedTagKeys) > 0, func() error {
			tags, err := listTags(ctx, ep.API, aws.ToString(desc.TableArn))
			if err == nil {
				mem.secondary.Tags = tags
			}
			return err
		}},
	}
	reads = append(reads, p.newerReads(ctx, ep, obj, desc, mem)...)
	for _, r := range reads {
		if !r.needed || p.lacks(ep, r.feature) {
			continue
		}
		if at, ok := mem.secondaryAt[r.feature]; !ok || p.opts.SecondaryReadInterval < 0 || time.Since(at) >= p.opts.SecondaryReadInterval {
			err := p.probeCall(ep, r.feature, r.read)
			if errors.Is(err, errLacksFeature) || errors.Is(err, errNotYet) {
				continue
			}
			if isUnknownOperation(err) {
				p.markUnsupported(ep, obj, r.feature, err)
				continue
			}
			if err != nil {
				return classify(err)
			}
			mem.secondaryAt[r.feature] = time.Now()
		}
		switch r.feature {
		case featureTTL:
			have.TTL = mem.secondary.TTL
		case featurePITR:
			have.PITR, have.PITRDays = mem.secondary.PITR, mem.newer.PITRDays
		case featureTags:
			have.Tags = mem.secondary.Tags
		default:
			applyNewerRead(r.feature, mem, have)
		}
	}
	return nil
}

func pitrOn(d *types.ContinuousBackupsDescription) bool {
	if d == nil || d.PointInTimeRecoveryDescription == nil {
		return false
	}
	s := d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus
	return s == types.PointInTimeRecoveryStatusEnabled || s == "ENABLING"
}

func listTags(ctx context.Context, api API, arn string) (map[string]string, error) {
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

// afterSent updates what the adapter knows of a feature it just changed.
// Tags are eventually consistent on AWS (ListTagsOfResource may not show a
// new tag for a while): re-reading them at once would resend the same tags
// and trip the stall breaker, so the cached tags take the change instead,
// and the next real read is at the usual interval. Other features are read
// again at the next Observe.
func (m *memory) afterSent(step Step) {
	switch {
	case step.Tags != nil && m.secondary.Tags != nil:
		for _, t := range step.Tags {
			m.secondary.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	case step.UntagKeys != nil && m.secondary.Tags != nil:
		for _, k := range step.UntagKeys {
			delete(m.secondary.Tags, k)
		}
	case step.Register != nil || step.ScalingPolicy != nil || step.Deregister != nil:
		// sendScaling updated the cached read (see there).
	default:
		delete(m.secondaryAt, featureOf(step.Kind))
	}
}

func (m *memory) forgetAllSecondary() {
	m.secondaryAt = map[string]time.Time{}
}

// lacks says whether the endpoint is known not to implement a feature.
func (p *Provider) lacks(ep *endpoint, feature string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unsupported[ep.Key][feature]
}

// markUnsupported remembers, per endpoint, an API it lacks, so the adapter
// stops calling it (no hot loop), and says so once per object that uses it.
func (p *Provider) markUnsupported(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, feature string, err error) {
	p.recordLacking(ep, feature)
	p.warnUnsupported(ep, obj, feature, err)
}

// recordLacking remembers that an endpoint lacks a feature's API.
func (p *Provider) recordLacking(ep *endpoint, feature string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.unsupported[ep.Key] == nil {
		p.unsupported[ep.Key] = map[string]bool{}
	}
	p.unsupported[ep.Key][feature] = true
}

func (p *Provider) warnUnsupported(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, feature string, err error) {
	mem := p.memoryOf(obj)
	if !p.uses(ep, obj, feature) || mem.warned[feature] {
		return
	}
	mem.warned[feature] = true
	why := "it lacks the API"
	if err != nil {
		why = stable(err).Error() // without the request id, which no event may carry
	}
	p.event(obj, corev1.EventTypeWarning, "FeatureUnsupported", "Observe",
		"the DynamoDB endpoint for %s does not support %s (%s); it is left out and the rest of the table is managed",
		ep.Region, leftOut(obj, feature), why)
}

// skipUnsupported hides what the endpoint cannot manage from the planner
// and lists it in the status.
func (p *Provider) skipUnsupported(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, have *table) {
	var lacking []string
	for _, f := range append([]string{featureTTL, featurePITR, featureTags, featureTableClass, featureSSE}, newerFeatures...) {
		if !p.lacks(ep, f) {
			continue
		}
		switch f {
		case featureTableClass:
			have.TableClass = ""
		case featureSSE:
			have.SSE = nil
		default:
			hideUnsupported(f, have)
		}
		if p.uses(ep, obj, f) {
			lacking = append(lacking, f)
			p.warnUnsupported(ep, obj, f, nil)
		}
	}
	slices.Sort(lacking)
	obj.Status.UnsupportedFeatures = lacking
}
