package dynamodb

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// The resource policy's read and writes, minding that GetResourcePolicy
// is eventually consistent; what the policy is and how it is planned is the
// plan's (plan/policy.go).

// ReasonPolicyChanged: a policy change was refused because the policy is
// not the revision Tether read.
const ReasonPolicyChanged = "PolicyChanged"

// errNotYet says a read saw the state before Tether's own change
// (eventual consistency): nothing is concluded, the read is made again.
var errNotYet = errors.New("the answer does not show the last change yet")

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

// recordPolicy keeps status.resourcePolicyRevisionId: the revision of the
// spec's policy once the table has it, nothing once the policy Tether
// attached is gone or replaced by someone else's.
func recordPolicy(obj *awsv1alpha1.DynamoDBTable, want, have *plan.Policy) {
	if want == nil || have == nil {
		return
	}
	switch {
	case !want.Absent && !have.Absent && plan.SamePolicy(want, have):
		obj.Status.ResourcePolicyRevisionID = have.Revision
	case want.Absent && (have.Absent || have.Revision != want.Revision):
		obj.Status.ResourcePolicyRevisionID = ""
	}
}

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
		return providers.Waitf(access.BusyDelay, ReasonPolicyChanged,
			"the resource policy changed since Tether read it (%v); reading it again before changing it", access.Stable(err))
	}
	if err != nil {
		return err
	}
	mem.policyChange = &policyChange{revision: revision, at: time.Now()}
	obj.Status.ResourcePolicyRevisionID = revision
	return nil
}
