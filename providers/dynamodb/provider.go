package dynamodb

import (
	"context"
	"sync"
	"time"

	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// Options tune the adapter.
type Options struct {
	Clients access.ClientOptions
	// SecondaryReadInterval is how long the answers of DescribeTimeToLive,
	// DescribeContinuousBackups, ListTagsOfResource and the newer features'
	// reads (reads.go) are reused between polls. They are read only for
	// features the spec uses, and again right after the adapter changed
	// them. Default 10 minutes; 0 keeps the default, a negative value reads
	// them on every poll.
	SecondaryReadInterval time.Duration
	// SettleWindow is how long a call AWS accepted may go unseen by reads
	// before a read that does not show it decides (inflight.go). Default
	// one minute; negative: every read decides at once.
	SettleWindow time.Duration
	// TransitionPoll is how often a table in CREATING, UPDATING or DELETING
	// (or with an index in flux) is looked at again. Default 5 seconds.
	TransitionPoll time.Duration
	// Recorder, when set, receives events the reconciler cannot know about
	// (a table re-created after an out-of-band delete, an endpoint that lacks
	// an API).
	Recorder events.EventRecorder
	// Reader, when set, is used to find other DynamoDBTables naming the same
	// table (Conflict), AWSAccounts and Namespaces. The manager's cached
	// client is the right one.
	Reader client.Reader
	// Writer creates and patches the ConfigMaps of spec.writeOutputsTo.
	Writer client.Writer
	// RequireAccount refuses tables outside OperatorNamespace that name no
	// AWSAccount (neither spec.accountRef nor their namespace's default):
	// the operator's own identity, which is trusted with everything
	// (tenancy.go), is then used only for the operator's namespace.
	RequireAccount bool
	// OperatorNamespace is the namespace the operator runs in.
	OperatorNamespace string
	// DefaultTags are tags every table gets, under its spec's tags; the
	// values may hold the placeholders {{.Namespace}}, {{.Name}},
	// {{.Account}} (the AWSAccount's name), {{.AccountID}} and {{.Region}}
	// (see ParseDefaultTags).
	DefaultTags map[string]string
	// PollInterval is the kind's default poll interval (the
	// tether.dev/poll-interval annotation overrides it per object), to know
	// what each account and region's limiter is asked for. Default 2 minutes.
	PollInterval time.Duration
	// ChangeFeeds, when set, says which tables a healthy change feed
	// covers (changefeeds.go).
	ChangeFeeds ChangeFeeds
}

// ChangeFeeds tells the adapter which tables a healthy change feed covers
// (providers/dynamodb/changefeed): those are read every safety interval
// instead of every poll interval, and at once when AWS reports a change.
type ChangeFeeds interface {
	// Cover returns how long the table key, of identity (an AWSAccount's
	// name, "" for the operator's own), may go between looks while its
	// feed is healthy, and remembers key so as to wake it should the feed
	// fail; false while no healthy feed covers identity.
	Cover(identity string, key apitypes.NamespacedName) (time.Duration, bool)
	// Sending: the feeds are told of each write AWS accepted (access.Feeds).
	access.Feeds
}

// The defaults of Options, and of the manager's flags (controllers.DefaultConfig).
const (
	DefaultSecondaryReadInterval = 10 * time.Minute
	DefaultPollInterval          = 2 * time.Minute
)

// Provider is the DynamoDBTable adapter: its connect stage (Connect) and
// what it remembers between passes (memory.go, inflight.go).
type Provider struct {
	clients     *access.Clients
	opts        Options
	defaultTags defaultTags

	objects  memories      // by object UID
	owners   ownerRecords  // whose tables are whose, by Tether's own record (ownership.go)
	restores restoreStarts // the restores Tether began, by table
	imports  importRecords // the imports Tether began, by table (import.go)
	joins    joinRecords   // the joins Tether sent, by table (multiaccount.go)
	replicas addedReplicas // the replicas Tether added, by table (replicas.go)
	named    namedOnTables // what each spec named on its table (named.go)
	flights  flightLog     // the calls AWS accepted, by table

	// changedOutside are the objects whose table AWS reported changed
	// since their last look (changefeeds.go).
	mu             sync.Mutex
	changedOutside map[apitypes.UID]struct{}
	// sourceChanges count, by table ARN, the steps AWS accepted on a
	// source of a multi-account global table (multiaccount.go): a join
	// AWS refused is sent again once its source changed so.
	sourceChanges map[string]int
}

// New returns the adapter.
func New(opts Options) *Provider {
	if opts.TransitionPoll <= 0 {
		opts.TransitionPoll = access.BusyDelay
	}
	if opts.SettleWindow == 0 {
		opts.SettleWindow = settleWindow
	}
	if opts.SecondaryReadInterval == 0 {
		opts.SecondaryReadInterval = DefaultSecondaryReadInterval
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	tags, err := ParseDefaultTags(opts.DefaultTags)
	if err != nil {
		// The manager validates its flags with ParseDefaultTags first.
		panic(err)
	}
	var feeds access.Feeds
	if opts.ChangeFeeds != nil {
		feeds = opts.ChangeFeeds
	}
	return &Provider{
		clients:        access.NewClients(opts.Clients, feeds),
		opts:           opts,
		defaultTags:    tags,
		changedOutside: map[apitypes.UID]struct{}{},
	}
}

var _ providers.Pauser[*awsv1alpha1.DynamoDBTable] = (*Provider)(nil)

// Paused takes a paused object out of its limiter's demand: it is not
// polled while paused.
func (p *Provider) Paused(_ context.Context, obj *awsv1alpha1.DynamoDBTable) {
	p.clients.DropDemand(obj.UID)
}

// memoryOf is what the adapter remembers of obj.
func (p *Provider) memoryOf(obj *awsv1alpha1.DynamoDBTable) *memory { return p.objects.of(obj.UID) }

// forget drops what the adapter remembers of obj: it is deleted, released
// or no longer managed.
func (p *Provider) forget(obj *awsv1alpha1.DynamoDBTable) {
	p.clients.DropDemand(obj.UID)
	p.objects.forget(obj.UID)
}

func (p *Provider) event(obj client.Object, eventType, reason, action, note string, args ...any) {
	if p.opts.Recorder != nil {
		p.opts.Recorder.Eventf(obj, nil, eventType, reason, action, note, args...)
	}
}

// released forgets what Tether recorded of obj's table: obj no longer
// manages it (deleted, gone, or never its).
func (p *Provider) released(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) {
	key := ep.TableKey(obj.ResolvedTableName())
	if p.owners.of(key).UID == string(obj.UID) {
		p.owners.mark(key, ownerRecord{})
	}
	if p.restores.of(key).UID == string(obj.UID) {
		p.restores.mark(key, restoreStart{})
	}
	if p.imports.of(key).UID == string(obj.UID) {
		p.imports.mark(key, importRecord{})
	}
	if p.joins.of(key).UID == string(obj.UID) {
		p.joins.mark(key, joinRecord{})
	}
	p.replicas.forget(key, obj.UID)
	p.named.forget(key, obj.UID)
	p.forget(obj)
}
