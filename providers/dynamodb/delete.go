package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// Delete deletes only a table this object owns (Connect has let go of a
// retained one and of one another object manages), returns nil only once
// DescribeTable no longer finds it, and never hangs silently: deletion
// protection is reported as DeletionProtected.
func (c *tableConn) Delete(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) error {
	p, ep := c.p, c.ep
	ctx, err := ep.TakeTurn(ctx, obj.UID, deleteCalls(obj))
	if err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	d, err := describeTable(ctx, ep.API, name)
	if access.IsNotFound(err) {
		p.flights.forget(ep.TableKey(name))
		p.released(ep, obj)
		return nil
	}
	if err != nil {
		return access.Classify(err)
	}
	how, _, err := p.owns(ctx, ep, obj, d)
	if err != nil {
		return err
	}
	if how == notOwned {
		p.released(ep, obj) // never delete what Tether did not create
		return nil
	}
	if (how == ownedByAdoption || obj.Status.Adopted) && obj.Annotations[awsv1alpha1.AnnotationDeleteAdopted] != "true" {
		p.event(obj, corev1.EventTypeNormal, "LeftInPlace", "Delete", "table %s was adopted, not created by Tether: it is left in place "+
			"(annotate the object %s: \"true\" to have it deleted with the object)", name, awsv1alpha1.AnnotationDeleteAdopted)
		p.released(ep, obj)
		return nil
	}
	if f, ok := p.flights.inFlight(ep.TableKey(name), callDeleteTable, time.Now()); ok && d.TableStatus != types.TableStatusDeleting {
		w := f.notYetSeen(reasonDeleting, "the DeleteTable of table "+name, time.Now())
		return &providers.PendingError{Reason: w.reason, Message: w.message, For: p.opts.TransitionPoll}
	}
	switch d.TableStatus {
	case types.TableStatusDeleting:
		return providers.Pendingf(p.opts.TransitionPoll, reasonDeleting, "DynamoDB is deleting table %s", name)
	case types.TableStatusCreating, types.TableStatusUpdating:
		return providers.Pendingf(p.opts.TransitionPoll, access.ReasonTableBusy, "waiting for table %s to leave %s before deleting it", name, d.TableStatus)
	}
	if handled, err := p.leaveKeeping(ctx, ep, obj, d); handled { // multiaccount.go
		return err
	}
	if aws.ToBool(d.DeletionProtectionEnabled) {
		return p.lowerDeletionProtection(ctx, ep, obj)
	}
	if done, err := p.removeReplicasFirst(ctx, ep, obj, d); !done {
		return err
	}
	if err := deregisterScalingOf(ctx, ep, obj); err != nil {
		return err
	}
	if _, err := ep.API.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil && !access.IsNotFound(err) {
		return access.Classify(err)
	}
	p.flights.accepted(ep.TableKey(name), p.tableFlight(callDeleteTable, time.Now()))
	return providers.Pendingf(time.Second, reasonDeleting, "deleting table %s", name)
}

// lowerDeletionProtection turns protection off only when the spec says so
// explicitly; otherwise the delete waits, slowly, and says why. It is not
// terminal: protection may also be turned off in the console.
func (p *Provider) lowerDeletionProtection(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	name := obj.ResolvedTableName()
	if dp := obj.Spec.DeletionProtectionEnabled; dp == nil || *dp {
		return providers.RetryAfter(deletionProtectedDelay, reasonDeletionProtected, fmt.Errorf(
			"table %s has deletion protection on, so it is not deleted: set spec.deletionProtectionEnabled: false "+
				"(or turn it off in AWS) to let the delete go on, or set spec.deletionPolicy: Retain to keep the table", name))
	}
	_, err := ep.API.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
	if err != nil {
		return access.Classify(err)
	}
	return providers.Pendingf(time.Second, reasonDeleting, "turned deletion protection off on table %s, as the spec says, to delete it", name)
}

// deleteCalls is what a delete pass is expected to make on its limiter: a
// DescribeTable, and a DeleteTable unless the last pass found the table
// going already (or sent the DeleteTable).
func deleteCalls(obj *awsv1alpha1.DynamoDBTable) int {
	if c := meta.FindStatusCondition(obj.Status.Conditions, commonv1alpha1.Synced); c != nil && c.Reason == reasonDeleting {
		return 1
	}
	return 2
}

// DescribeDelete says what deleting obj did to its table, for the Deleted
// event (providers.DeleteDescriber).
func (p *Provider) DescribeDelete(obj *awsv1alpha1.DynamoDBTable) string {
	name := obj.ResolvedTableName()
	if ready := meta.FindStatusCondition(obj.Status.Conditions, commonv1alpha1.Ready); ready != nil && ready.Reason == providers.ReasonConflict {
		return fmt.Sprintf("let go of table %s; another DynamoDBTable manages it", name)
	}
	if obj.Spec.DeletionPolicy == awsv1alpha1.DeletionPolicyRetain {
		return fmt.Sprintf("let go of table %s; it stays in DynamoDB (deletionPolicy: Retain)", name)
	}
	if left := describeLeave(obj); left != "" {
		return left
	}
	return fmt.Sprintf("deleted table %s", name)
}
