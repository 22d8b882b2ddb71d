package dynamodb

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// ChangeFeeds tells the adapter which tables a healthy change feed covers
// (providers/dynamodb/changefeed): those are read every safety interval
// instead of every poll interval, and at once when AWS reports a change.
type ChangeFeeds interface {
	// Cover returns how long the table key, of identity (an AWSAccount's
	// name, "" for the operator's own), may go between looks while its
	// feed is healthy, and remembers key so as to wake it should the feed
	// fail; false while no healthy feed covers identity.
	Cover(identity string, key types.NamespacedName) (time.Duration, bool)
	// Sent tells the feed of identity that AWS accepted Tether's call
	// (UpdateTable, TagResource, ...) about a table (account id, "" when
	// not known, region, name), begun at began: its event should come back
	// through the feed, which shows that events reach the queue.
	Sent(identity, call, account, region, table string, began time.Time)
}

var _ providers.Resyncer[*awsv1alpha1.DynamoDBTable] = (*Provider)(nil)

// ResyncInterval is the safety interval of the table's change feed while
// the feed is healthy. A table not yet seen, or whose
// tether.dev/poll-interval annotation asks for an interval of its own, is
// polled.
func (p *Provider) ResyncInterval(obj *awsv1alpha1.DynamoDBTable) (time.Duration, bool) {
	if p.opts.ChangeFeeds == nil || obj.Status.TableArn == "" {
		return 0, false
	}
	if _, asked := obj.Annotations[commonv1alpha1.AnnotationPollInterval]; asked {
		return 0, false
	}
	return p.opts.ChangeFeeds.Cover(obj.Status.Account, client.ObjectKeyFromObject(obj))
}

// ChangedOutside tells the adapter that AWS reported a change to the table
// of the object uid: its next look reads again what the spec uses besides
// DescribeTable (TTL, backups, tags, ...), which it would otherwise reuse
// for up to the secondary-read interval. A change Tether made is no such
// change: it reads those again after its own writes.
func (p *Provider) ChangedOutside(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changedOutside[uid] = struct{}{}
}

// readAgainIfChangedOutside forgets the object's secondary answers when a
// change was reported since its last look.
func (p *Provider) readAgainIfChangedOutside(obj *awsv1alpha1.DynamoDBTable) {
	p.mu.Lock()
	_, changed := p.changedOutside[obj.UID]
	delete(p.changedOutside, obj.UID)
	p.mu.Unlock()
	if changed {
		p.memoryOf(obj).forgetAllSecondary()
	}
}

// lookInterval is how long obj goes between looks when nothing happens.
func (p *Provider) lookInterval(obj *awsv1alpha1.DynamoDBTable) time.Duration {
	if d, ok := p.ResyncInterval(obj); ok {
		return d
	}
	poll, _ := commonv1alpha1.PollInterval(obj.Annotations, p.opts.PollInterval)
	return poll
}

// AWSConfig is the AWS configuration of an identity in a region, for the
// services Tether calls beside DynamoDB (the change feed's SQS, STS): the
// operator's own (a nil account), or an AWSAccount's session, the same
// credentials its tables' calls use. Its calls are counted in
// tether_external_calls_total under service.
func (p *Provider) AWSConfig(ctx context.Context, a *awsv1alpha1.AWSAccount, region, service string) (aws.Config, error) {
	c := p.clients
	c.mu.Lock()
	defer c.mu.Unlock()
	base, err := c.baseConfigLocked(ctx)
	if err != nil {
		return aws.Config{}, err
	}
	cfg := base.Copy()
	if region != "" {
		cfg.Region = region
	}
	if a != nil {
		s, err := c.sessionLocked(base, a)
		if err != nil {
			return aws.Config{}, err
		}
		cfg.Credentials = s.creds
	}
	account, _ := c.accountOf(a)
	cfg.APIOptions = append(cfg.APIOptions, countEveryAttempt(service, account, cfg.Region))
	return cfg, nil
}

// SessionName is the session name Tether assumes an AWSAccount's role
// with: its spec's, else "tether-<name>". CloudTrail records Tether's
// calls under it.
func SessionName(a *awsv1alpha1.AWSAccount) string {
	if s := a.Spec.AssumeRole.SessionName; s != "" {
		return s
	}
	return defaultSessionName(a.Name)
}
