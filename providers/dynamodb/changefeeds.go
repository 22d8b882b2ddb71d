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

// AWSConfig is the AWS configuration of an identity in a region, for the
// services Tether calls beside DynamoDB (the change feed's SQS, STS): see
// access.Clients.AWSConfig.
func (p *Provider) AWSConfig(ctx context.Context, a *awsv1alpha1.AWSAccount, region, service string) (aws.Config, error) {
	return p.clients.AWSConfig(ctx, a, region, service)
}
