package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Update sends the first step of the plan Observe made, and only that one:
// the next pass plans again from what AWS then reports.
func (c *tableConn) Update(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, diff providers.Difference) error {
	p, ep := c.p, c.ep
	pl, ok := diff.(*plan.Plan)
	if !ok {
		return fmt.Errorf("dynamodb: unexpected difference %T", diff)
	}
	if len(pl.Steps) == 0 {
		if pl.Blocked != "" {
			reason := ReasonIndexReplacement
			if pl.BlockedReason != "" {
				reason = pl.BlockedReason
			}
			return providers.Terminalf(reason, "%s", pl.Blocked)
		}
		return nil
	}
	step := pl.Steps[0]
	if hold := pl.Holds(step); hold != "" {
		return providers.Pendingf(p.opts.TransitionPoll, access.ReasonTableBusy, "waiting: %s; pending: %s", hold, pl)
	}
	name := obj.ResolvedTableName()
	to, err := p.stepEndpoint(ctx, ep, step)
	if err != nil {
		return err
	}
	if err := p.send(ctx, to, obj, step); err != nil {
		p.clients.InvalidateCredentials(to, err)
		if refused := p.disassociationRefused(obj, step, err); refused != nil {
			return refused
		}
		if refused := strongRefused(step, err); refused != nil {
			return refused
		}
		if refused := multiKeysRefused(multiKeyIndexesOf(nil, &step), err); refused != nil {
			return refused
		}
		if refused := vectorIndexRefused(step, err); refused != nil {
			return refused
		}
		if feature, lacks := endpointLacks(step, err); lacks {
			p.markUnsupported(ep, obj, feature, err)
			return providers.Pendingf(time.Second, reasonFeatureUnsupported, "the endpoint does not support %s: %v", feature, access.Stable(err))
		}
		if w, refused := p.ttlRefused(ep, name, step, err, time.Now()); refused {
			return w
		}
		if alreadyDone(step, err) && p.flights.sentBefore(ep.TableKey(name), step.Description) {
			// The read that planned it was late: the step counts as sent
			// (the stall breaker bounds how often), and the next pass
			// reads again.
			p.memoryOf(obj).afterSent(step)
			return &providers.HandedError{For: p.opts.TransitionPoll, Reason: providers.ReasonUpdating,
				Message: fmt.Sprintf("DynamoDB answered that %s is done already (%v): reading the table again", step.Description, access.Stable(err))}
		}
		return access.Classify(err)
	}
	p.flights.accepted(ep.TableKey(name), p.stepFlight(step, time.Now()))
	p.strongMembersInFlight(ep, obj, step, time.Now())
	p.memoryOf(obj).afterSent(step)
	noteInsightsSent(p.memoryOf(obj), obj, step)
	noteKinesisSent(p.memoryOf(obj), obj, step)
	noteSettingsReplicationSent(p.memoryOf(obj), step)
	p.noteSourceChanged(ep, obj)
	p.recordAddedReplica(ep, obj, step)
	p.recordDisassociation(ep, obj, step)
	return nil
}

// send makes the AWS call of one step.
func (p *Provider) send(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, step plan.Step) error {
	var err error
	switch {
	case step.Table != nil:
		_, err = ep.API.UpdateTable(ctx, step.Table)
	case step.TTL != nil:
		_, err = ep.API.UpdateTimeToLive(ctx, step.TTL)
	case step.Backups != nil:
		_, err = ep.API.UpdateContinuousBackups(ctx, step.Backups)
	case step.Tags != nil:
		_, err = ep.API.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(obj.Status.TableArn), Tags: step.Tags})
	case step.UntagKeys != nil:
		_, err = ep.API.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(obj.Status.TableArn), TagKeys: step.UntagKeys})
	case step.Insights != nil:
		_, err = ep.API.UpdateContributorInsights(ctx, step.Insights)
	case step.KinesisEnable != nil:
		_, err = ep.API.EnableKinesisStreamingDestination(ctx, step.KinesisEnable)
	case step.KinesisUpdate != nil:
		_, err = ep.API.UpdateKinesisStreamingDestination(ctx, step.KinesisUpdate)
	case step.KinesisDisable != nil:
		_, err = ep.API.DisableKinesisStreamingDestination(ctx, step.KinesisDisable)
	case step.PutPolicy != nil || step.DeletePolicy != nil:
		err = p.sendPolicy(ctx, ep, obj, step)
	case step.Register != nil || step.ScalingPolicy != nil || step.Deregister != nil:
		err = p.sendScaling(ctx, ep, obj, step)
	default:
		err = fmt.Errorf("dynamodb: empty step %q", step.Description)
	}
	return err
}
