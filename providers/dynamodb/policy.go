package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"k8s.io/apimachinery/pkg/runtime"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// ReasonPolicyChanged: a policy change was refused because the policy is
// not the revision Tether read.
const ReasonPolicyChanged = "PolicyChanged"

// policy is a table's resource-based policy, compared as parsed JSON: AWS
// may give back the document with other whitespace or key order (ACK
// compares it parsed too).
type policy struct {
	Doc  any
	Text string // compact JSON, as sent (desired)
	// Revision is AWS's revision id (observed), or on a desired removal the
	// revision Tether attached (status.resourcePolicyRevisionId).
	Revision string
	// Absent: observed, the table has no policy; desired, remove the one
	// Tether attached.
	Absent bool
}

// maxPolicyBytes is PutResourcePolicy's limit: "The maximum size supported
// for a resource-based policy document is 20 KB. DynamoDB counts
// whitespaces" (API PutResourcePolicy); Tether sends the compact form.
const maxPolicyBytes = 20 * 1024

// policyChange is Tether's last change of the policy.
type policyChange struct {
	revision string // "" after a delete
	anyDoc   bool   // after CreateTable with a policy: its revision is not known
	at       time.Time
}

// errNotYet says a secondary read saw the state before Tether's own change
// (eventual consistency): nothing is concluded, the read is made again.
var errNotYet = errors.New("the answer does not show the last change yet")

// specPolicy parses the spec's document.
func specPolicy(raw *runtime.RawExtension) (*policy, error) {
	if raw == nil {
		return nil, nil
	}
	var doc any
	if err := json.Unmarshal(raw.Raw, &doc); err != nil {
		return nil, fmt.Errorf("spec.resourcePolicy is not a JSON document: %w", err)
	}
	text, _ := json.Marshal(doc)
	if len(text) > maxPolicyBytes {
		return nil, fmt.Errorf("spec.resourcePolicy is %d bytes as compact JSON; DynamoDB takes at most %d", len(text), maxPolicyBytes)
	}
	return &policy{Doc: doc, Text: string(text)}, nil
}

func parsedPolicy(text, revision string) *policy {
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		doc = text // compared as text; differs from any document the spec can hold
	}
	return &policy{Doc: doc, Text: text, Revision: revision}
}

// readPolicy reads the policy, minding GetResourcePolicy's eventual
// consistency: "immediately after a PutResourcePolicy request, DynamoDB might
// return your previous policy ... or the PolicyNotFoundException",
// immediately after DeleteResourcePolicy "might still return the deleted
// policy", and after a CreateTable with a policy "might return a
// ResourceNotFoundException or a PolicyNotFoundException" (API
// GetResourcePolicy). An answer that does not show Tether's own change yet,
// within settleWindow, is errNotYet.
func (p *Provider) readPolicy(ctx context.Context, ep *endpoint, arn string, mem *memory) error {
	out, err := ep.API.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	var got *policy
	switch {
	case errorCode(err) == "PolicyNotFoundException":
		got = &policy{Absent: true}
	case isNotFound(err) && mem.policyChange != nil && time.Since(mem.policyChange.at) < settleWindow:
		return errNotYet
	case err != nil:
		return err
	default:
		got = parsedPolicy(aws.ToString(out.Policy), aws.ToString(out.RevisionId))
	}
	if c := mem.policyChange; c != nil && time.Since(c.at) < settleWindow {
		consistent := got.Revision == c.revision || (c.anyDoc && !got.Absent)
		if !consistent {
			return errNotYet
		}
	}
	mem.policyChange = nil
	mem.newer.Policy = got
	return nil
}

// updatePolicy attaches the spec's policy when the table has none or
// another, and removes the one Tether attached when the spec dropped it.
// ExpectedRevisionId makes either fail, rather than overwrite, when someone
// changed the policy since Tether read it (API PutResourcePolicy).
func (p *planner) updatePolicy() {
	want, cur := p.want.Policy, p.cur.Policy
	if want == nil || cur == nil {
		return
	}
	if want.Absent {
		if !cur.Absent && cur.Revision == want.Revision {
			p.add(Step{Kind: StepDeletePolicy, Description: "remove the resource policy Tether attached",
				DeletePolicy: &dynamodb.DeleteResourcePolicyInput{ExpectedRevisionId: aws.String(cur.Revision)}})
			p.cur.Policy = &policy{Absent: true}
		}
		return
	}
	if !cur.Absent && samePolicy(want, cur) {
		return
	}
	expected := "NO_POLICY"
	if !cur.Absent {
		expected = cur.Revision
	}
	p.add(Step{Kind: StepPutPolicy, Description: "attach the resource policy",
		PutPolicy: &dynamodb.PutResourcePolicyInput{Policy: aws.String(want.Text), ExpectedRevisionId: aws.String(expected)}})
	p.cur.Policy = &policy{Doc: want.Doc, Text: want.Text}
}

func samePolicy(a, b *policy) bool { return reflect.DeepEqual(a.Doc, b.Doc) }

// desiredPolicy is the spec's policy, or the removal of the one Tether
// attached (recorded in the status) when the spec has none.
func desiredPolicy(obj *awsv1alpha1.DynamoDBTable) (*policy, error) {
	want, err := specPolicy(obj.Spec.ResourcePolicy)
	if err != nil || want != nil {
		return want, err
	}
	if rev := obj.Status.ResourcePolicyRevisionID; rev != "" {
		return &policy{Absent: true, Revision: rev}, nil
	}
	return nil, nil
}

// recordPolicy keeps status.resourcePolicyRevisionId: the revision of the
// spec's policy once the table has it, nothing once the policy Tether
// attached is gone or replaced by someone else's.
func recordPolicy(obj *awsv1alpha1.DynamoDBTable, want, have *policy) {
	if want == nil || have == nil {
		return
	}
	switch {
	case !want.Absent && !have.Absent && samePolicy(want, have):
		obj.Status.ResourcePolicyRevisionID = have.Revision
	case want.Absent && (have.Absent || have.Revision != want.Revision):
		obj.Status.ResourcePolicyRevisionID = ""
	}
}

// sendPolicy puts or deletes the policy. Its answer is what Tether takes as
// the policy until a read shows it (see readPolicy). A revision mismatch
// (PolicyNotFoundException) means someone changed the policy since Tether
// read it: it is read again before anything else is sent.
func (p *Provider) sendPolicy(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, step Step) error {
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
			mem.newer.Policy = parsedPolicy(aws.ToString(in.Policy), revision)
		}
	} else {
		c := *step.DeletePolicy
		c.ResourceArn = arn
		if _, err = ep.API.DeleteResourcePolicy(ctx, &c); err == nil {
			mem.newer.Policy = &policy{Absent: true}
		}
	}
	if errorCode(err) == "PolicyNotFoundException" {
		delete(mem.secondaryAt, featurePolicy)
		return providers.Waitf(busyDelay, ReasonPolicyChanged,
			"the resource policy changed since Tether read it (%v); reading it again before changing it", stable(err))
	}
	if err != nil {
		return err
	}
	mem.policyChange = &policyChange{revision: revision, at: time.Now()}
	obj.Status.ResourcePolicyRevisionID = revision
	return nil
}
