package dynamodb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Options tune the adapter.
type Options struct {
	Clients ClientOptions
	// SecondaryReadInterval is how long the answers of DescribeTimeToLive,
	// DescribeContinuousBackups, ListTagsOfResource and the newer features'
	// reads (features.go) are reused between polls. They are read only for features the spec uses, and again right
	// after the adapter changed them. Default 10 minutes; 0 keeps the
	// default, a negative value reads them on every poll.
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

// Provider is the DynamoDBTable adapter: its connect stage (Connect) and
// what it remembers between passes.
type Provider struct {
	clients     *Clients
	opts        Options
	defaultTags defaultTags

	mu          sync.Mutex
	objects     map[string]*memory         // by object UID
	created     map[string]creation        // account|region|table -> the object Tether created it for, and its identity
	flights     map[string]flights         // account|region|table -> the calls AWS accepted (inflight.go)
	unsupported map[string]map[string]bool // endpoint -> features it lacks
	probes      probes
	// changedOutside are the objects whose table AWS reported changed
	// since their last look (changefeeds.go).
	changedOutside map[apitypes.UID]struct{}
}

// New returns the adapter.
func New(opts Options) *Provider {
	if opts.TransitionPoll <= 0 {
		opts.TransitionPoll = busyDelay
	}
	if opts.SettleWindow == 0 {
		opts.SettleWindow = settleWindow
	}
	if opts.SecondaryReadInterval == 0 {
		opts.SecondaryReadInterval = 10 * time.Minute
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Minute
	}
	tags, err := ParseDefaultTags(opts.DefaultTags)
	if err != nil {
		// The manager validates its flags with ParseDefaultTags first.
		panic(err)
	}
	clients := NewClients(opts.Clients)
	clients.feeds = opts.ChangeFeeds
	return &Provider{
		clients:     clients,
		opts:        opts,
		defaultTags: tags,
		objects:     map[string]*memory{},
		created:     map[string]creation{},
		flights:     map[string]flights{},
		unsupported: map[string]map[string]bool{},

		changedOutside: map[apitypes.UID]struct{}{},
	}
}

// Observe reads the table (one DescribeTable, plus the secondary reads the
// spec needs when they are due) and plans what would make it match.
func (c *tableConn) Observe(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (providers.Observation, error) {
	p, ep := c.p, c.ep
	shown := obj.Status.EffectivePollInterval
	p.noteDemand(ep, obj)
	ctx, err := p.clients.takeTurn(ctx, ep, obj.UID, observeCalls(obj))
	if err != nil {
		// A pass that waits for its turn writes nothing to the API server:
		// the status shows the new interval from the next pass that runs.
		obj.Status.EffectivePollInterval = shown
		return providers.Observation{}, err
	}
	name := obj.ResolvedTableName()
	obj.Status.TableName = name
	p.readAgainIfChangedOutside(obj)
	desc, err := describeTable(ctx, ep.API, name)
	if isNotFound(err) {
		if f, ok := p.inFlight(ep, name, callCreateTable, time.Now()); ok {
			return p.waitFor(p.notYetSeen(f, providers.ReasonCreating, "the CreateTable of table "+name, time.Now())), nil
		}
		p.noteMissing(obj)
		return providers.Absent(), nil
	}
	if err != nil {
		p.clients.invalidateCredentials(ep, err)
		return providers.Observation{}, classify(err)
	}
	if err := p.checkOwnership(ctx, ep, obj, desc); err != nil {
		return providers.Observation{}, err
	}
	recordStatus(obj, desc)
	recordReplicas(obj, desc)
	p.forgetGoneReplicas(ep, obj, desc)
	recordTarget(obj, ep)

	switch desc.TableStatus {
	case types.TableStatusCreating:
		return p.transient(providers.ReasonCreating, "DynamoDB is creating the table"), nil
	case types.TableStatusDeleting:
		return p.transient(ReasonDeleting, "the table is being deleted (not by Tether); it will be re-created once it is gone"), nil
	case types.TableStatusActive, types.TableStatusUpdating:
		return p.compare(ctx, ep, obj, desc)
	default:
		return providers.Waiting(providers.Wait{Reason: ReasonInaccessible,
			Message: fmt.Sprintf("the table is %s; Tether cannot change it until AWS makes it ACTIVE", desc.TableStatus),
			For:     inaccessibleDelay}), nil
	}
}

// observeCalls is what a pass is expected to make on its limiter: one
// DescribeTable, and a CreateTable after it while no table is on record
// (its turn is priced before the DescribeTable says so). Secondary reads
// and writes are left to the budget's measure (turns.go).
func observeCalls(obj *awsv1alpha1.DynamoDBTable) int {
	if obj.Status.TableID == "" {
		return 2
	}
	return 1
}

// compare plans the way from the table as it is to the spec.
func (p *Provider) compare(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, desc *types.TableDescription) (providers.Observation, error) {
	if what := immutableMismatch(&obj.Spec, desc); what != "" {
		return providers.Observation{}, providers.Terminalf(ReasonImmutableMismatch,
			"the table's %s differs from the spec, and DynamoDB cannot change it after creation: "+
				"make the spec match the table, or delete the table to have it re-created", what)
	}
	have := observedTable(desc)
	if err := p.readSecondary(ctx, ep, obj, desc, have); err != nil {
		return providers.Observation{}, err
	}
	p.skipUnsupported(ep, obj, have)
	want := desiredTable(&obj.Spec, p.wantedTags(ep, obj))
	if have.Tags != nil {
		want.RemoveTags = obj.Status.ManagedTagKeys
		obj.Status.ManagedTagKeys = managedTagKeys(obj.Status.ManagedTagKeys, p.tagsToManage(ep, obj), have.Tags)
	}
	if err := desireNewer(obj, ep.Region, want, have); err != nil {
		return providers.Observation{}, err
	}
	if err := checkPolicyPrincipals(ep, obj, want.Policy); err != nil {
		return providers.Observation{}, err
	}
	pl := plan(aws.ToString(desc.TableName), want, have,
		planOptions{AllowIndexReplacement: obj.Annotations[awsv1alpha1.AnnotationAllowIndexReplacement] == "true"})
	pl.busy, pl.gate = have.busy(), have.gate()
	p.recordPlan(obj, pl)
	recordPolicy(obj, want.Policy, have.Policy)
	p.seenIn(ep, obj.ResolvedTableName(), pl)
	if w, held := p.heldByFlight(ep, obj, pl, time.Now()); held {
		return p.waitFor(w), nil
	}

	// A table whose index is still being built works, but is not yet what
	// the spec asks for: Ready waits for it.
	available := desc.TableStatus == types.TableStatusActive && pl.busy == ""
	outputsErr := p.writeOutputs(ctx, ep, obj)
	if broken := replicasNotWorking(want.Replicas, have.Replicas); pl.Empty() && available && broken != "" {
		return notAvailable(ReasonReplicaNotWorking, broken+": Tether cannot fix this by itself (see the replica's Region in AWS)", time.Minute), nil
	}
	if pl.Empty() && available && outputsErr != nil {
		return notAvailable(ReasonOutputsNotWritten, outputsErr.Error(), conflictDelay), nil
	}
	if pl.Empty() && available {
		obs := providers.Matches()
		obs.Message = joinNotes(unsupportedNote(obj), p.overriddenTags(ep, obj), p.stretchNote(obj))
		return obs, nil
	}
	if pl.Empty() {
		return p.transient(providers.ReasonUpdating, "DynamoDB is still applying the last change: "+pl.busy), nil
	}
	return providers.Differs(pl), nil
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

// transient is a wait for a transition AWS finishes by itself (CREATING,
// UPDATING, DELETING): nothing is sent meanwhile.
func (p *Provider) transient(reason, message string) providers.Observation {
	return providers.Waiting(providers.Wait{Reason: reason, Message: message, For: p.opts.TransitionPoll})
}

// notAvailable is a table that matches the spec and cannot be used as it
// should, for a reason Tether cannot fix by a write.
func notAvailable(reason, message string, recheck time.Duration) providers.Observation {
	obs := providers.Matches()
	obs.Available, obs.Reason, obs.Message, obs.RecheckAfter = false, reason, message, recheck
	return obs
}

// recordPlan shows the pending plan in the status.
func (p *Provider) recordPlan(obj *awsv1alpha1.DynamoDBTable, pl *Plan) {
	pending := pl.Descriptions()
	if pl.Blocked != "" {
		pending = append(pending, "blocked: "+pl.Blocked)
	}
	if pl.Empty() {
		if len(obj.Status.PendingPlan) > 0 || obj.Status.LastSyncTime == nil {
			now := metaNow()
			obj.Status.LastSyncTime = &now
		}
	}
	obj.Status.PendingPlan = pending
}

// Update sends the first step of the plan Observe made, and only that one:
// the next pass plans again from what AWS then reports.
func (c *tableConn) Update(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, diff providers.Difference) error {
	p, ep := c.p, c.ep
	pl, ok := diff.(*Plan)
	if !ok {
		return fmt.Errorf("dynamodb: unexpected difference %T", diff)
	}
	if len(pl.Steps) == 0 {
		if pl.Blocked != "" {
			return providers.Terminalf(ReasonIndexReplacement, "%s", pl.Blocked)
		}
		return nil
	}
	step := pl.Steps[0]
	if hold := pl.gate.holds(step); hold != "" {
		return providers.Waitf(p.opts.TransitionPoll, ReasonTableBusy, "waiting: %s; pending: %s", hold, pl)
	}
	name := obj.ResolvedTableName()
	if err := p.send(ctx, ep, obj, step); err != nil {
		p.clients.invalidateCredentials(ep, err)
		if feature, lacks := endpointLacks(step, err); lacks {
			p.markUnsupported(ep, obj, feature, err)
			return providers.Waitf(time.Second, "FeatureUnsupported", "the endpoint does not support %s: %v", feature, stable(err))
		}
		if w, refused := p.ttlRefused(ep, name, step, err, time.Now()); refused {
			return w
		}
		if alreadyDone(step, err) && p.sentBefore(ep, name, step.Description) {
			// The read that planned it was late: the step counts as sent
			// (the stall breaker bounds how often), and the next pass
			// reads again.
			p.memoryOf(obj).afterSent(step)
			return &providers.Wait{Sent: true, For: p.opts.TransitionPoll, Reason: providers.ReasonUpdating,
				Message: fmt.Sprintf("DynamoDB answered that %s is done already (%v): reading the table again", step.Description, stable(err))}
		}
		return classify(err)
	}
	p.accepted(ep, name, p.stepFlight(step, time.Now()))
	p.memoryOf(obj).afterSent(step)
	recordAddedReplica(obj, step)
	return nil
}

// send makes the AWS call of one step.
func (p *Provider) send(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, step Step) error {
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
	default:
		err = p.sendNewer(ctx, ep, obj, step)
	}
	return err
}

// endpointLacks recognises an endpoint that does not implement what a step
// needs: an unknown operation, or DynamoDB Local's "Nothing to update" for
// fields it ignores (table class, SSE).
func endpointLacks(step Step, err error) (string, bool) {
	feature := featureOf(step.Kind)
	if feature == "" {
		return "", false
	}
	if isUnknownOperation(err) {
		return feature, true
	}
	if errorCode(err) == "ValidationException" && strings.Contains(err.Error(), "Nothing to update") &&
		(step.Kind == StepTableClass || step.Kind == StepSSE) {
		return feature, true
	}
	if newerStepLacks(step, err) {
		return feature, true
	}
	return "", false
}

func describeTable(ctx context.Context, api API, name string) (*types.TableDescription, error) {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	return out.Table, nil
}

// noteMissing handles a table that is not there. If Tether had it before,
// it was deleted behind its back: say so before it is re-created.
func (p *Provider) noteMissing(obj *awsv1alpha1.DynamoDBTable) {
	if obj.Status.TableID != "" {
		p.event(obj, corev1.EventTypeWarning, "TableDeleted", "Observe",
			"table %s was deleted outside Tether; re-creating it from the spec", obj.ResolvedTableName())
	}
	obj.Status.TableID = ""
	obj.Status.Adopted = false
	obj.Status.AddedReplicaRegions = nil
	obj.Status.TableArn = ""
	obj.Status.TableStatus = ""
	obj.Status.LatestStreamArn = ""
	obj.Status.GlobalSecondaryIndexes = nil
	obj.Status.PendingPlan = nil
	mem := p.memoryOf(obj)
	mem.forgetAllSecondary()
	mem.createRefused = false
}

func (p *Provider) event(obj client.Object, eventType, reason, action, note string, args ...any) {
	if p.opts.Recorder != nil {
		p.opts.Recorder.Eventf(obj, nil, eventType, reason, action, note, args...)
	}
}

// managedTagKeys are the spec tags Tether has applied: the ones it managed
// before that are still on the table (a removed one is untagged next), plus
// the spec's tags now on the table.
func managedTagKeys(before []string, spec, onTable map[string]string) []string {
	var keys []string
	for _, k := range before {
		if _, ok := onTable[k]; ok {
			keys = append(keys, k)
		}
	}
	for k, v := range spec {
		if onTable[k] == v && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

var _ providers.Pauser[*awsv1alpha1.DynamoDBTable] = (*Provider)(nil)

// Paused takes a paused object out of its limiter's demand: it is not
// polled while paused.
func (p *Provider) Paused(_ context.Context, obj *awsv1alpha1.DynamoDBTable) {
	p.clients.dropDemand(obj.UID)
}
