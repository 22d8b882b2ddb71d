package dynamodb

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// What an endpoint lacks: DynamoDB Local and dynalite have no tagging, no
// continuous backups, no Application Auto Scaling beside them, and ignore
// some of UpdateTable's fields. A feature whose API an endpoint lacks is
// left out for every table there (the access layer remembers it per
// endpoint, access.Clients.Lacks), the rest of the table is managed, and
// the status and one event per object say so.

// The features an endpoint may lack that are not the planner's: they
// create the table (restore.go, import.go).
const (
	featureRestore = "restoreFrom"
	featureImport  = "importFrom" // DynamoDB Local answers ImportTable UnknownOperationException
)

// optionalFeatures are the features an endpoint may lack, as
// status.unsupportedFeatures names them.
func optionalFeatures() []string { return append(plan.Optional(), featureRestore, featureImport) }

// usesTags says whether Tether manages tags on obj's table (and so reads
// them back): the spec has tags, or the operator or the AWSAccount has
// default tags.
func (p *Provider) usesTags(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) bool {
	return plan.Uses(&obj.Spec, plan.FeatureTags) || len(p.defaultTags) > 0 || len(tenancyOf(ep).Tags) > 0
}

// usesFeature says whether obj's table would have a feature: its spec asks for it,
// or, for tags, default tags do. What an endpoint lacks of it is what obj's
// status lists as left out.
func (p *Provider) usesFeature(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, feature string) bool {
	switch feature {
	case plan.FeatureTags:
		return p.usesTags(ep, obj)
	case featureRestore:
		return obj.Spec.RestoreFrom != nil
	case featureImport:
		return obj.Spec.ImportFrom != nil
	}
	return plan.Uses(&obj.Spec, feature)
}

// leftOut names a feature obj's table goes without: the spec's field, or
// the default tags for a spec without tags.
func leftOut(obj *awsv1alpha1.DynamoDBTable, feature string) string {
	if feature == plan.FeatureTags && len(obj.Spec.Tags) == 0 {
		return "tags (the default tags of the manager or the AWSAccount)"
	}
	return "spec." + feature
}

// unsupportedNote tells, in the Ready condition, which parts of the spec
// (or the manager's default tags) the endpoint cannot apply (DynamoDB Local
// has no tagging, for one).
func unsupportedNote(obj *awsv1alpha1.DynamoDBTable) string {
	if len(obj.Status.UnsupportedFeatures) == 0 {
		return ""
	}
	parts := make([]string, len(obj.Status.UnsupportedFeatures))
	for i, f := range obj.Status.UnsupportedFeatures {
		parts[i] = leftOut(obj, f)
	}
	return "the DynamoDB endpoint does not support " + strings.Join(parts, ", ") + ": left out, the rest of the table is managed"
}

// markUnsupported remembers, per endpoint, an API it lacks, so the adapter
// stops calling it (no hot loop), and says so once per object that uses it.
func (p *Provider) markUnsupported(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, feature string, err error) {
	p.clients.RecordLacking(ep, feature)
	p.warnUnsupported(ep, obj, feature, err)
}

func (p *Provider) warnUnsupported(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, feature string, err error) {
	mem := p.memoryOf(obj)
	if !p.usesFeature(ep, obj, feature) || mem.warned[feature] {
		return
	}
	mem.warned[feature] = true
	why := "it lacks the API"
	if err != nil {
		why = access.Stable(err).Error() // without the request id, which no event may carry
	}
	p.event(obj, corev1.EventTypeWarning, reasonFeatureUnsupported, "Observe",
		"the DynamoDB endpoint for %s does not support %s (%s); it is left out and the rest of the table is managed",
		ep.Region, leftOut(obj, feature), why)
}

// skipUnsupported hides what the endpoint cannot manage from the planner
// and lists it in the status.
func (p *Provider) skipUnsupported(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, have *plan.Table) {
	var lacking []string
	for _, f := range optionalFeatures() {
		if !p.clients.Lacks(ep, f) {
			continue
		}
		plan.Hide(f, have)
		if p.usesFeature(ep, obj, f) {
			lacking = append(lacking, f)
			p.warnUnsupported(ep, obj, f, nil)
		}
	}
	slices.Sort(lacking)
	obj.Status.UnsupportedFeatures = lacking
}

// endpointLacks recognises an endpoint that does not implement what a step
// needs: an unknown operation, or DynamoDB Local's answers to fields it
// ignores: "Nothing to update" for a table's class, SSE, on-demand or warm
// throughput or a replica, and for an index's on-demand or warm throughput
// "No provisioned throughput specified for the global secondary index" (it
// only knows provisioned capacity there).
func endpointLacks(step plan.Step, err error) (string, bool) {
	feature := plan.FeatureOf(step.Kind)
	if feature == "" {
		return "", false
	}
	if access.IsUnknownOperation(err) || ignoresField(step, err) {
		return feature, true
	}
	return "", false
}

// ignoresField recognises DynamoDB Local's refusals of a field it ignores.
func ignoresField(step plan.Step, err error) bool {
	if access.ErrorCode(err) != "ValidationException" {
		return false
	}
	switch step.Kind {
	case plan.StepTableClass, plan.StepSSE, plan.StepOnDemand, plan.StepWarm,
		plan.StepCreateReplica, plan.StepUpdateReplica, plan.StepDeleteReplica:
		return strings.Contains(err.Error(), "Nothing to update")
	case plan.StepIndexOnDemand, plan.StepIndexWarm:
		return strings.Contains(err.Error(), "No provisioned throughput specified for the global secondary index")
	}
	return false
}
