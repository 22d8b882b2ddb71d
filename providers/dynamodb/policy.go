package dynamodb

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// The resource policy's writes; its read is in reads.go, what the policy
// is and how it is planned the plan's (plan/policy.go).

// reasonPolicyChanged: a policy change was refused because the policy is
// not the revision Tether read.
const reasonPolicyChanged = "PolicyChanged"

// sendPolicy puts or deletes the policy. Its answer is what Tether takes as
// the policy until a read shows it (see readPolicy). A revision mismatch
// (PolicyNotFoundException) means someone changed the policy since Tether
// read it: it is read again before anything else is sent.
func (p *Provider) sendPolicy(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, step plan.Step) error {
	mem := p.memoryOf(obj)
	arn := aws.String(obj.Status.TableArn)
	var revision string
	var err error
	if in := step.PutPolicy; in != nil {
		c := *in
		c.ResourceArn = arn
		var out *dynamodb.PutResourcePolicyOutput
		if out, err = ep.API.PutResourcePolicy(ctx, &c); err == nil {
			revision = aws.ToString(out.RevisionId)
			mem.reads.Policy = plan.ParsedPolicy(aws.ToString(in.Policy), revision)
		}
	} else {
		c := *step.DeletePolicy
		c.ResourceArn = arn
		if _, err = ep.API.DeleteResourcePolicy(ctx, &c); err == nil {
			mem.reads.Policy = &plan.Policy{Absent: true}
		}
	}
	if access.ErrorCode(err) == "PolicyNotFoundException" {
		mem.readAgain(plan.FeaturePolicy)
		return providers.Pendingf(access.BusyDelay, reasonPolicyChanged,
			"the resource policy changed since Tether read it (%v); reading it again before changing it", access.Stable(err))
	}
	if err != nil {
		return err
	}
	mem.policyChange = &policyChange{revision: revision, at: time.Now()}
	obj.Status.ResourcePolicyRevisionID = revision
	p.named.note(ep.TableKey(obj.ResolvedTableName()), namedPolicy, revision, obj.UID)
	return nil
}
