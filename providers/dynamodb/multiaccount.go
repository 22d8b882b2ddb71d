package dynamodb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Multi-account global tables: a table that joins another account's
// table as a replica (spec.globalTableSource). Before the CreateTable
// (after only the DescribeTable that found no table), the join is bounded
// as a restore source is (restore.go), on both sides:
//   - the joining side: the object's AWSAccount lists the source's account
//     in spec.tenancy.globalTables.sourceAccounts and selects the object's
//     namespace in joinNamespaces (the operator's own identity is trusted
//     with any source);
//   - the source side: when a DynamoDBTable holds the source (the one
//     tableRef names, or any that resolves to the ARN's account, Region
//     and table), its AWSAccount lists the joining account in
//     replicaAccounts and selects the joining namespace in
//     replicaNamespaces; a source held through the operator's own identity
//     is joined only from its own namespace. A tenant naming another
//     tenant's table is refused there, whatever its own AWSAccount allows.
//
// A refusal is GlobalTableSourceNotAllowed, and no CreateTable; it names
// the source only as the spec does, and why only where that tells nothing
// of another namespace's object or AWSAccount (joinNotAllowed). AWS's refusal
// of the join is GlobalTableJoinRefused, with AWS's words and the
// statements the source's owner must add; it is kept in memory
// (memory.joinRefused) and not sent again, whatever wakes the object,
// until the spec (generation) or the source named changes, AWS accepts a
// step on the source Tether manages (its stream, settings replication,
// policy: Tether's own count, sourceChanges), or joinRefusedDelay has
// passed (a source Tether does not manage is fixed in its account, which
// Tether does not watch). An endpoint that takes the
// join for a plain CreateTable (DynamoDB Local) gives a table that is no
// member of a global table: UnsupportedByEndpoint, never Ready.
//
// A member's policy is the spec's with the replication statements. With no
// spec.resourcePolicy, Tether writes them only on a table that has no
// policy or the one Tether put there (named.go); someone else's is never
// replaced: GlobalTablePolicyNotOwned prints the statements to add.

// Reasons of multi-account global tables.
const (
	ReasonGlobalTableSourceNotAllowed = "GlobalTableSourceNotAllowed"
	ReasonGlobalTableJoinRefused      = "GlobalTableJoinRefused"
	// ReasonGlobalTablePolicyNotOwned: a member's replication statements
	// would replace a policy Tether did not put there (the spec declares
	// none): the condition prints the statements its owner must add.
	ReasonGlobalTablePolicyNotOwned = "GlobalTablePolicyNotOwned"
	// reasonJoinWaiting: the join's check needs an account id not known
	// yet.
	reasonJoinWaiting = "GlobalTableJoinWaiting"
)

// callLeaveGlobalTable is a joined table's Disassociate, in flight until a
// read shows it left (inflight.go).
const callLeaveGlobalTable = "disassociate from its global table"

// joinRefusedDelay is how long a join AWS refused waits before it is sent
// again for the same spec: the fix is made in the source's account, which
// Tether does not watch.
const joinRefusedDelay = 5 * time.Minute

// joinSource is the table a joining object names, resolved.
type joinSource struct {
	arn     string
	account string
	// holders are the DynamoDBTables that hold it (none for a table
	// Tether does not manage).
	holders []*awsv1alpha1.DynamoDBTable
}

// selfArn is the ARN the object's table has (or will have) in its account
// and Region, as AWS spells it: the member the policies name.
func selfArn(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) string {
	partition, _ := access.PartitionOf(ep.Region)
	return plan.TableArn(partition, ep.Region, ep.AccountID, obj.ResolvedTableName())
}

// resolveJoinSource finds the source table's ARN and the objects that hold
// it, from the spec alone (never from a status).
func (p *Provider) resolveJoinSource(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (joinSource, error) {
	src := obj.Spec.GlobalTableSource
	if ns, refName, ok := SourceRef(obj); ok {
		// Another namespace's object is told of in no way (whether it
		// exists, its account, why it does not resolve): joinNotAllowed.
		own := ns == obj.Namespace
		holder := &awsv1alpha1.DynamoDBTable{}
		if err := p.opts.Reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: refName}, holder); err != nil {
			if !apierrors.IsNotFound(err) {
				return joinSource{}, err
			}
			if own {
				return joinSource{}, joinNotAllowed(obj, "it does not exist")
			}
			return joinSource{}, joinNotAllowed(obj, "")
		}
		t, err := p.resolve(ctx, holder)
		if err != nil {
			if own {
				return joinSource{}, joinNotAllowed(obj, fmt.Sprintf("its account cannot be resolved (%v)", err))
			}
			return joinSource{}, joinNotAllowed(obj, "")
		}
		_, account := p.clients.AccountOf(t.AWSAccount)
		if account == "" {
			return joinSource{}, accountNotKnownYet(obj)
		}
		partition, _ := access.PartitionOf(t.Region)
		return joinSource{arn: plan.TableArn(partition, t.Region, account, holder.ResolvedTableName()), account: account,
			holders: []*awsv1alpha1.DynamoDBTable{holder}}, nil
	}
	_, region, account, name, ok := plan.ArnParts(src.TableArn)
	if !ok {
		return joinSource{}, providers.Terminalf(access.ReasonInvalidSpec, "spec.globalTableSource.tableArn %s is not a table ARN", src.TableArn)
	}
	holders, err := p.holdersOf(ctx, obj, account, region, name)
	return joinSource{arn: src.TableArn, account: account, holders: holders}, err
}

// holdersOf are the DynamoDBTables of any namespace, obj aside, that
// resolve to the table name in that account and Region. It fails closed: a
// table of that name that does not resolve may hold the source, and its
// AWSAccount's consent cannot be asked (a refusal), and one whose account
// id is not known yet (AccountOf answers "" until STS has) is waited for.
func (p *Provider) holdersOf(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, account, region, name string) ([]*awsv1alpha1.DynamoDBTable, error) {
	var list awsv1alpha1.DynamoDBTableList
	if err := p.opts.Reader.List(ctx, &list, client.MatchingFields{IndexTableName: name}); err != nil {
		return nil, err
	}
	var out []*awsv1alpha1.DynamoDBTable
	for i := range list.Items {
		c := &list.Items[i]
		if c.UID == obj.UID || c.ResolvedTableName() != name {
			continue
		}
		t, err := p.resolve(ctx, c)
		if err != nil {
			// Its namespace, name and error are told only to its own
			// namespace: it may be another tenant's.
			if c.Namespace == obj.Namespace {
				return nil, joinNotAllowed(obj, fmt.Sprintf("DynamoDBTable %s/%s, of that table name, does not resolve (%v), and may hold it, "+
					"so whether the source's side lets this table join cannot be asked", c.Namespace, c.Name, err))
			}
			return nil, joinNotAllowed(obj, "")
		}
		if t.Region != region {
			continue
		}
		_, id := p.clients.AccountOf(t.AWSAccount)
		if id == "" {
			return nil, accountNotKnownYet(obj)
		}
		if id == account {
			out = append(out, c)
		}
	}
	return out, nil
}

// accountNotKnownYet is the wait of a join whose check needs an AWS account
// id Tether does not know yet (an AWSAccount's, or the operator's own, until
// STS answers): a wait, never an admission.
func accountNotKnownYet(obj *awsv1alpha1.DynamoDBTable) error {
	return providers.Pendingf(accountNotKnownDelay, reasonJoinWaiting,
		"the join of spec.globalTableSource waits: an AWS account id it must be checked against is not known yet (STS has not answered); nothing is created meanwhile")
}

// accountNotKnownDelay is how long a join waits for an account id.
const accountNotKnownDelay = 15 * time.Second

// checkJoin resolves obj's source and refuses a join either side's
// AWSAccount does not allow. It makes no AWS call.
func (p *Provider) checkJoin(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (joinSource, error) {
	// This side first, which needs nothing of the source.
	ns := &corev1.Namespace{}
	if err := p.opts.Reader.Get(ctx, client.ObjectKey{Name: obj.Namespace}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			// Fail closed: without its namespace, neither side's
			// namespace selector can admit the join.
			return joinSource{}, joinNotAllowed(obj, fmt.Sprintf("this table's namespace %s is not found, and neither side's namespace selector can be asked", obj.Namespace))
		}
		return joinSource{}, err
	}
	if !trustsFully(ep) && !selects(tenancyOf(ep).GlobalTables.JoinNamespaces, ns) {
		return joinSource{}, joinNotAllowed(obj, fmt.Sprintf("AWSAccount %s does not let namespace %s join a global table (its spec.tenancy.globalTables.joinNamespaces)",
			ep.Identity, obj.Namespace))
	}
	src, err := p.resolveJoinSource(ctx, obj)
	if err != nil {
		return src, err
	}
	// The source's account is told only when the tenant wrote it (in the
	// ARN) or the source is its own namespace's object.
	refNS, _, byRef := SourceRef(obj)
	told := !byRef || refNS == obj.Namespace
	tell := func(why string) error {
		if told {
			return joinNotAllowed(obj, why)
		}
		return joinNotAllowed(obj, "")
	}
	if src.account == ep.AccountID {
		return src, tell(fmt.Sprintf("it is in this table's own account %s, and each replica of a multi-account global table is in an account of its own", ep.AccountID))
	}
	if !trustsFully(ep) && !slices.Contains(tenancyOf(ep).GlobalTables.SourceAccounts, src.account) {
		return src, tell(fmt.Sprintf("AWSAccount %s does not let its tables join tables of account %s (its spec.tenancy.globalTables.sourceAccounts)",
			ep.Identity, src.account))
	}
	for _, h := range src.holders {
		if why := p.sourceRefuses(ctx, h, ep.AccountID, ns); why != "" {
			// The holder's namespace, name and AWSAccount are told only
			// to its own namespace.
			if h.Namespace == obj.Namespace {
				return src, joinNotAllowed(obj, why)
			}
			return src, joinNotAllowed(obj, "")
		}
	}
	return src, nil
}

// joinNotAllowed refuses obj's join, naming the source only as the tenant
// wrote it (spec.globalTableSource's tableRef or ARN), never the ARN it
// resolves to; why is "" when telling it would tell of another namespace's
// object or AWSAccount (whether the object exists, its account, why it
// does not resolve, who holds the ARN).
func joinNotAllowed(obj *awsv1alpha1.DynamoDBTable, why string) error {
	if why == "" {
		why = "it does not exist, cannot be checked, or the AWSAccounts do not admit the join (this table's AWSAccount's " +
			"spec.tenancy.globalTables.sourceAccounts and joinNamespaces; the source's AWSAccount's spec.tenancy.globalTables.replicaAccounts " +
			"and replicaNamespaces); ask the source's owners which"
	}
	return refusal(ReasonGlobalTableSourceNotAllowed, "spec.globalTableSource names %s, which this table is not allowed to join: %s; nothing is created",
		sourceAsWritten(obj), why)
}

// sourceAsWritten is the source as obj's spec names it.
func sourceAsWritten(obj *awsv1alpha1.DynamoDBTable) string {
	if ns, name, ok := SourceRef(obj); ok {
		return fmt.Sprintf("DynamoDBTable %s/%s (tableRef)", ns, name)
	}
	return obj.Spec.GlobalTableSource.TableArn
}

// sourceRefuses says why the AWSAccount of holder, which holds the source,
// does not let the joining account (joiner) and namespace join, "" when it does.
func (p *Provider) sourceRefuses(ctx context.Context, holder *awsv1alpha1.DynamoDBTable, joiner string, ns *corev1.Namespace) string {
	t, err := p.resolve(ctx, holder)
	if err != nil {
		return fmt.Sprintf("its holder, DynamoDBTable %s/%s, does not resolve (%v)", holder.Namespace, holder.Name, err)
	}
	if t.AWSAccount == nil {
		if holder.Namespace == ns.Name {
			return ""
		}
		return fmt.Sprintf("DynamoDBTable %s/%s holds it through the operator's own identity, which lets only its own namespace join it",
			holder.Namespace, holder.Name)
	}
	gt := t.AWSAccount.Spec.Tenancy.GlobalTables
	if !slices.Contains(gt.ReplicaAccounts, joiner) {
		return fmt.Sprintf("DynamoDBTable %s/%s holds it, and its AWSAccount %s does not let account %s join its tables (its spec.tenancy.globalTables.replicaAccounts)",
			holder.Namespace, holder.Name, t.Account, joiner)
	}
	if !selects(gt.ReplicaNamespaces, ns) {
		return fmt.Sprintf("DynamoDBTable %s/%s holds it, and its AWSAccount %s does not let namespace %s join its tables (its spec.tenancy.globalTables.replicaNamespaces)",
			holder.Namespace, holder.Name, t.Account, ns.Name)
	}
	return ""
}

// joinPolicy is the policy the joining table carries: the spec's, with the
// statements that let the replication service replicate between it and
// every member Tether knows of (the source and the joiners it admits,
// joinedMembers), as AWS checks on the join.
func (p *Provider) joinPolicy(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, src joinSource) (*plan.Policy, []string, error) {
	spec, err := plan.SpecPolicy(obj.Spec.ResourcePolicy)
	if err != nil {
		return nil, nil, providers.Terminal(access.ReasonInvalidSpec, err)
	}
	joiners, _, err := p.admittedJoiners(ctx, src.arn, src.account, src.holders)
	if err != nil {
		return nil, nil, err
	}
	members := append([]string{src.arn, selfArn(ep, obj)}, joiners...)
	pol, err := plan.MemberPolicy(spec, plan.ReplicationStatements(selfArn(ep, obj), members, nil))
	return pol, members, err
}

// createByJoin makes the table by joining its source.
func (p *Provider) createByJoin(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (*types.TableDescription, error) {
	src, err := p.checkJoin(ctx, ep, obj)
	if err != nil {
		return nil, err
	}
	pol, members, err := p.joinPolicy(ctx, ep, obj, src)
	if err != nil {
		return nil, err
	}
	obj.Status.GlobalTableSourceArn = src.arn // shown only: joinedSource reads Tether's record
	mem := p.memoryOf(obj)
	changes := p.sourceChangesOf(src.arn)
	if r := mem.joinRefused; r != nil && r.generation == obj.Generation && r.source == src.arn && r.sourceChanges == changes {
		if left := joinRefusedDelay - time.Since(r.at); left > 0 {
			// Any wake-up (the source's or an annotation's change, an
			// AWSAccount's) lands here: the refusal stands, unsent.
			return nil, providers.RetryAfter(left, ReasonGlobalTableJoinRefused, r.err)
		}
	}
	p.joins.mark(ep.TableKey(obj.ResolvedTableName()), joinRecord{UID: string(obj.UID), source: src.arn})
	in := plan.JoinTableInput(obj.ResolvedTableName(), src.arn, pol, p.wantedTags(ep, obj))
	out, err := ep.API.CreateTable(ctx, in)
	if err == nil {
		mem.joinRefused = nil
		return out.TableDescription, nil
	}
	err = joinRefused(ep, obj, src, members, err)
	if ra, ok := providers.AsRetryAfter(err); ok && ra.Reason == ReasonGlobalTableJoinRefused {
		mem.joinRefused = &joinRefusal{generation: obj.Generation, source: src.arn, sourceChanges: changes, at: time.Now(), err: ra.Err}
	}
	return nil, err
}

// joinRefused is what a refused join says: an endpoint that wanted a key
// schema took it for a plain CreateTable (it knows no joins); otherwise
// AWS's words and, for the source's owner, the statements its policy
// needs.
func joinRefused(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, src joinSource, members []string, err error) error {
	code, stable := access.ErrorCode(err), access.Stable(err)
	switch {
	case code == "ValidationException" && strings.Contains(strings.ToLower(stable.Error()), "key schema"):
		return providers.Terminalf(ReasonUnsupportedByEndpoint, "the DynamoDB endpoint for %s took the join for a plain CreateTable "+
			"(%v): it does not know GlobalTableSourceArn (multi-account global tables); no table is created in its place", ep.Region, stable)
	case code == "ValidationException", code == "AccessDeniedException", code == "ResourceNotFoundException":
		// Every member Tether knows of, the joiner among them: AWS checks
		// each member's statements on each join.
		need := plan.StatementsText(plan.ReplicationStatements(src.arn, members, []string{ep.AccountID}))
		return providers.RetryAfter(joinRefusedDelay, ReasonGlobalTableJoinRefused, fmt.Errorf(
			"AWS refused to join %s (%v); its owner must stream NEW_AND_OLD_IMAGES, enable settings replication and carry these "+
				"statements in its resource policy, and every other member the same replication statement on itself, naming the same members "+
				"(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html): %s",
			src.arn, stable, need))
	}
	return err
}

// replication is what a member of a multi-account global table asks of
// its desired table.
type replication struct {
	// joined: the table joined another account's table, which decides
	// what settings replication synchronises.
	joined bool
	// settingsSent: AWS accepted Tether's enabling of settings
	// replication on this source (noteSettingsReplicationSent).
	settingsSent bool
	// statements are the replication statements its policy carries, nil
	// when none: a joined table's for itself and its source, a source's for
	// itself and the joiners both sides' AWSAccounts allow.
	statements []any
	// ownsPolicy says whether the policy revision is one Tether put on the
	// table for the object (its own record, named.go), never the status.
	ownsPolicy func(revision string) bool
	// self is the table's ARN.
	self string
	// sourceUnknown: a joined table whose source is known neither from
	// Tether's record nor from the spec (joinedSource): no policy change is
	// planned for it.
	sourceUnknown bool
}

// replicationOf is obj's part in a multi-account global table, from the
// spec and the objects that join it (joinedSource). It notes whether the
// policy must be read.
func (p *Provider) replicationOf(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (replication, error) {
	self := selfArn(ep, obj)
	r := replication{self: self}
	mem := p.memoryOf(obj)
	mem.joinedSource = ""
	if plan.Joins(&obj.Spec) {
		r.joined = true
		src := p.joinedSource(ctx, ep, obj)
		members, ok := p.joinedMembers(ctx, obj, src)
		if src != "" && ok {
			// Every member Tether knows of, as the source's policy names
			// them: AWS checks each member's statements on each join.
			r.statements = plan.ReplicationStatements(self, members, nil)
			mem.joinedSource = src
		} else {
			r.sourceUnknown = true
		}
	} else {
		arns, accounts, err := p.sourceMembers(ctx, ep, obj)
		if err != nil {
			return r, err
		}
		if len(arns) > 0 {
			r.statements = plan.ReplicationStatements(self, arns, accounts)
		}
	}
	key := ep.TableKey(obj.ResolvedTableName())
	r.ownsPolicy = func(revision string) bool { return p.named.isOf(key, namedPolicy, revision, obj.UID) }
	mem.replicationPolicy = r.statements != nil
	r.settingsSent = mem.settingsReplicationSent
	return r, nil
}

// joinedSource is the source a joined table's policy names: the one the
// join was sent with, in Tether's own record (joinRecords); without one
// (the manager restarted since), the spec's, resolved as at the join; ""
// when neither is known (a tableRef whose holder cannot be resolved, say),
// and then the policy is left as it is (replication.apply). The status's
// globalTableSourceArn is never read: anyone who may patch the status
// subresource could name any table there and steer the policy Tether
// writes.
func (p *Provider) joinedSource(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) string {
	if r := p.joins.of(ep.TableKey(obj.ResolvedTableName())); r.UID == string(obj.UID) && r.source != "" {
		return r.source
	}
	if src, err := p.resolveJoinSource(ctx, obj); err == nil && src.account != "" {
		return src.arn
	}
	return ""
}

// apply makes the desired table a member's: a joined table takes what
// the source decides; a source streams NEW_AND_OLD_IMAGES and has settings
// replication enabled, which the join needs; either's policy is the spec's with the replication
// statements (once it is read: have.Policy).
func (r replication) apply(obj *awsv1alpha1.DynamoDBTable, want, have *plan.Table) error {
	if r.joined {
		plan.FromSource(want, have)
		if r.sourceUnknown {
			want.Policy = nil // neither added to nor removed: what it names is not known
			return nil
		}
	}
	if r.statements == nil {
		r.dropProvenStatements(obj, want, have)
		return nil
	}
	if !r.joined {
		plan.AsSource(want)
		if r.settingsSent && have.SettingsReplication == "" {
			// A regional table reports no mode (ACK dynamodb-controller
			// docs/api-quirks/table-global-tables.md): the call AWS
			// accepted stands, and is not sent again.
			have.SettingsReplication = want.SettingsReplication
		}
	}
	if have.Policy == nil {
		return nil
	}
	spec, err := plan.SpecPolicy(obj.Spec.ResourcePolicy)
	if err != nil {
		return providers.Terminal(access.ReasonInvalidSpec, err)
	}
	pol, err := plan.MemberPolicy(spec, r.statements)
	if err != nil {
		return providers.Terminal(access.ReasonInvalidSpec, err)
	}
	if cur := have.Policy; spec == nil && !cur.Absent && !plan.SamePolicy(pol, cur) && (r.ownsPolicy == nil || !r.ownsPolicy(cur.Revision)) &&
		!plan.OnlyReplicationStatements(r.self, cur) {
		// Someone else's policy, and the spec declares none: writing the
		// statements would replace it whole (PutResourcePolicy takes the
		// whole document), and its removal with the last member would
		// delete it. It is left as it is, and its owner told what to add.
		want.Policy = nil
		return providers.RetryAfter(joinRefusedDelay, ReasonGlobalTablePolicyNotOwned, fmt.Errorf(
			"table %s has a resource policy Tether did not put there, and spec.resourcePolicy declares none: Tether does not replace it; "+
				"for the members of its multi-account global table to replicate, its owner adds these statements to it (or declares the whole "+
				"policy in spec.resourcePolicy, to which Tether adds them) "+
				"(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html): %s",
			obj.ResolvedTableName(), plan.StatementsText(r.statements)))
	}
	want.Policy = pol
	return nil
}

// dropProvenStatements removes, from a table that is no member (any more)
// and whose spec declares no policy, a policy that is exactly Tether's
// replication statements for it (plan.OnlyReplicationStatements): the
// last joiner went while Tether's in-memory record of the revision it
// wrote was lost (a restart), and the statements would otherwise stay. A
// policy Tether's record knows is removed by desire already; any other is
// left as it is.
func (r replication) dropProvenStatements(obj *awsv1alpha1.DynamoDBTable, want, have *plan.Table) {
	cur := have.Policy
	if r.joined || obj.Spec.ResourcePolicy != nil || cur == nil || want.Policy != nil || !plan.OnlyReplicationStatements(r.self, cur) {
		return
	}
	want.Policy = &plan.Policy{Absent: true, Revision: cur.Revision}
}

// admittedJoiners are the tables that join the source table sourceArn (of
// account sourceAccount; holders are the DynamoDBTables that hold it, none
// for a table Tether does not manage), both sides' AWSAccounts allowing it:
// their ARNs and accounts, from the specs alone (never from a status). A
// joiner that is not allowed is left out, and refused on its own side
// (checkJoin). A joiner that is being deleted stays in until its object is
// gone: Tether lets go of it only once its table is deleted or has left
// (delete.go, leaveKeeping), and until then it is still a member that
// replicates through the policies and the source's stream.
func (p *Provider) admittedJoiners(ctx context.Context, sourceArn, sourceAccount string, holders []*awsv1alpha1.DynamoDBTable) (arns, accounts []string, err error) {
	if p.opts.Reader == nil {
		return nil, nil, nil
	}
	_, _, _, name, ok := plan.ArnParts(sourceArn)
	if !ok {
		return nil, nil, nil
	}
	keys := []string{name}
	for _, h := range holders {
		keys = append(keys, refIndexKey(h.Namespace, h.Name))
	}
	candidates, err := listJoining(ctx, p.opts.Reader, keys, holders)
	if err != nil {
		return nil, nil, err
	}
	for _, j := range candidates {
		if !NamesSource(j, sourceArn, holders) {
			continue
		}
		t, err := p.resolve(ctx, j)
		if err != nil {
			continue
		}
		_, account := p.clients.AccountOf(t.AWSAccount)
		ns := &corev1.Namespace{}
		if account == "" {
			// Left out, its ARN would drop from every member's policy:
			// the policies wait for its account id instead.
			return nil, nil, providers.Pendingf(accountNotKnownDelay, reasonJoinWaiting,
				"the members of the global table of %s are not all known yet: an AWS account id is not (STS has not answered); no policy changes meanwhile", sourceArn)
		}
		if err := p.opts.Reader.Get(ctx, client.ObjectKey{Name: j.Namespace}, ns); err != nil || account == sourceAccount {
			continue
		}
		if t.AWSAccount != nil {
			gt := t.AWSAccount.Spec.Tenancy.GlobalTables
			if !slices.Contains(gt.SourceAccounts, sourceAccount) || !selects(gt.JoinNamespaces, ns) {
				continue
			}
		}
		if slices.ContainsFunc(holders, func(h *awsv1alpha1.DynamoDBTable) bool { return p.sourceRefuses(ctx, h, account, ns) != "" }) {
			continue
		}
		partition, _ := access.PartitionOf(t.Region)
		arns = append(arns, plan.TableArn(partition, t.Region, account, j.ResolvedTableName()))
		accounts = append(accounts, account)
	}
	return arns, accounts, nil
}

// sourceMembers are the members of obj's global table Tether knows of, obj
// being a source others join: the joiners both sides admit. Its own
// AWSAccount admitting no account, none may join it.
func (p *Provider) sourceMembers(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) (arns, accounts []string, err error) {
	if a := ep.AWSAccount; a != nil && len(a.Spec.Tenancy.GlobalTables.ReplicaAccounts) == 0 {
		return nil, nil, nil // no table may join it: nothing to list
	}
	return p.admittedJoiners(ctx, selfArn(ep, obj), ep.AccountID, []*awsv1alpha1.DynamoDBTable{obj})
}

// joinedMembers are the members of the global table obj joined (its
// source sourceArn), Tether knows of: the source and every joiner of it
// both sides admit, obj among them, as the source's own policy names them
// (sourceMembers), for AWS checks on each join that every member's policy
// names every member
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html).
// The source's holders are found from the spec as at the join; when they
// cannot be, ok is false and the members are not known.
func (p *Provider) joinedMembers(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, sourceArn string) (arns []string, ok bool) {
	_, region, account, name, valid := plan.ArnParts(sourceArn)
	if !valid {
		return nil, false
	}
	var holders []*awsv1alpha1.DynamoDBTable
	if src, err := p.resolveJoinSource(ctx, obj); err == nil && src.arn == sourceArn {
		holders = src.holders
	} else if hs, err := p.holdersOf(ctx, obj, account, region, name); err == nil {
		holders = hs
	} else {
		return nil, false
	}
	joiners, _, err := p.admittedJoiners(ctx, sourceArn, account, holders)
	if err != nil {
		return nil, false
	}
	return append([]string{sourceArn}, joiners...), true
}

func refIndexKey(namespace, name string) string { return "ref:" + namespace + "/" + name }

// JoinersOf are the DynamoDBTables that may join obj's table: those whose
// globalTableSource names obj, or a table of obj's table name (whoever uses
// them checks which: NamesSource), obj aside, found by IndexTableName.
func JoinersOf(ctx context.Context, r client.Reader, obj *awsv1alpha1.DynamoDBTable) ([]*awsv1alpha1.DynamoDBTable, error) {
	return listJoining(ctx, r, []string{obj.ResolvedTableName(), refIndexKey(obj.Namespace, obj.Name)}, []*awsv1alpha1.DynamoDBTable{obj})
}

// SiblingsOf are the DynamoDBTables that may join the same source as obj
// (by the same tableRef, or a tableArn of the same table name: a wider set,
// whoever uses them checks which), obj aside: the other members of its
// global table, whose policies name it.
func SiblingsOf(ctx context.Context, r client.Reader, obj *awsv1alpha1.DynamoDBTable) ([]*awsv1alpha1.DynamoDBTable, error) {
	key := joinIndexKey(obj)
	if key == "" {
		return nil, nil
	}
	return listJoining(ctx, r, []string{key}, []*awsv1alpha1.DynamoDBTable{obj})
}

// listJoining are the DynamoDBTables with a globalTableSource under any of
// the IndexTableName keys, except the objects skip: copies, that callers
// may change. The cache's own objects are read in place and only the
// joiners copied: every table's passes and status changes ask this, and
// most tables are joined by none, so copying each table the index finds
// (itself, at least) was most of what a pass allocated at 1,000 tables.
func listJoining(ctx context.Context, r client.Reader, keys []string, skip []*awsv1alpha1.DynamoDBTable) ([]*awsv1alpha1.DynamoDBTable, error) {
	var out []*awsv1alpha1.DynamoDBTable
	seen := map[string]bool{}
	for _, o := range skip {
		seen[string(o.UID)] = true
	}
	for _, key := range keys {
		var list awsv1alpha1.DynamoDBTableList
		if err := r.List(ctx, &list, client.MatchingFields{IndexTableName: key}, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
		for i := range list.Items {
			j := &list.Items[i]
			if j.Spec.GlobalTableSource != nil && !seen[string(j.UID)] {
				seen[string(j.UID)] = true
				out = append(out, j.DeepCopy())
			}
		}
	}
	return out, nil
}

// SourceRef is the DynamoDBTable a spec.globalTableSource.tableRef names
// (its namespace defaulting to the joiner's); ok is false for a source
// named by ARN, or none. It is the one reading of which object a tableRef
// names.
func SourceRef(joiner *awsv1alpha1.DynamoDBTable) (namespace, name string, ok bool) {
	src := joiner.Spec.GlobalTableSource
	if src == nil || src.TableRef == nil {
		return "", "", false
	}
	ns := src.TableRef.Namespace
	if ns == "" {
		ns = joiner.Namespace
	}
	return ns, src.TableRef.Name, true
}

// NamesSource says whether joiner's spec.globalTableSource names the source
// table sourceArn: by tableRef, one of its holders (the DynamoDBTables that
// hold it); by tableArn, that very ARN. With sourceArn "" (not known), a
// tableArn is taken to name a table of holder's table name (a wider set).
func NamesSource(joiner *awsv1alpha1.DynamoDBTable, sourceArn string, holders []*awsv1alpha1.DynamoDBTable) bool {
	src := joiner.Spec.GlobalTableSource
	if src == nil {
		return false
	}
	if ns, name, ok := SourceRef(joiner); ok {
		return slices.ContainsFunc(holders, func(h *awsv1alpha1.DynamoDBTable) bool { return h.Namespace == ns && h.Name == name })
	}
	if sourceArn != "" {
		return src.TableArn == sourceArn
	}
	_, _, _, name, ok := plan.ArnParts(src.TableArn)
	return ok && slices.ContainsFunc(holders, func(h *awsv1alpha1.DynamoDBTable) bool { return h.ResolvedTableName() == name })
}

// immutableView is the table as ImmutableMismatch compares it with the
// spec: a joined table's local secondary indexes are the source's, always
// synchronised (AWS CDK's GlobalTableSettingsReplicationMode reference),
// and its spec cannot declare them, so they are left out; its key schema
// is still compared (the spec must declare the source's).
func immutableView(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) *types.TableDescription {
	if !plan.Joins(&obj.Spec) {
		return d
	}
	c := *d
	c.LocalSecondaryIndexes = nil
	return &c
}

// ReasonGlobalTableNotMember: a table whose spec joins a global table is
// no member of one (any more): it, or its source, left (a disassociation
// outside Tether dissolves a global table of two members,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-disassociate.html).
const ReasonGlobalTableNotMember = "GlobalTableNotMember"

// notJoined is the wait of a joined table that is no member of a global
// table, its reason and words. It is UnsupportedByEndpoint only where
// Tether's own record shows the endpoint made a plain table of the join it
// sent (its join record, in this process, and the table never seen a
// member since): any other table left its global table, or the global
// table was dissolved (its other member left), which a plain table is too;
// that is what it says. A member seen is remembered (memory.joinedSeen).
func (p *Provider) notJoined(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (reason, why string, ok bool) {
	if !plan.Joins(&obj.Spec) {
		return "", "", false
	}
	mem := p.memoryOf(obj)
	if plan.JoinedMember(d) {
		mem.joinedSeen = true
		return "", "", false
	}
	if d.TableStatus != types.TableStatusActive {
		return "", "", false
	}
	name := aws.ToString(d.TableName)
	if r := p.joins.of(ep.TableKey(obj.ResolvedTableName())); r.UID == string(obj.UID) && !mem.joinedSeen {
		return ReasonUnsupportedByEndpoint, fmt.Sprintf("table %s was created by joining %s, yet the DynamoDB endpoint for %s reports it as no member of a global table "+
			"(no GlobalTableVersion, no Replicas): it does not support multi-account global tables, and the table is a plain, empty one; "+
			"Tether does not call it Ready", name, r.source, ep.Region), true
	}
	return ReasonGlobalTableNotMember, fmt.Sprintf("table %s is no member of a global table (DynamoDB reports no GlobalTableVersion and no Replicas), "+
		"though spec.globalTableSource joins one: it left, or its global table was dissolved (a disassociation outside Tether, of it or of the "+
		"other member of a global table of two); a table that exists cannot join again (only CreateTable joins), so Tether does not call it Ready: "+
		"to keep it as a table of its own, delete the object with deletionPolicy: Retain (or globalTableSource.onDelete: Disassociate) and "+
		"manage it by an object without globalTableSource; to have it join anew, delete the table", name), true
}

// leaveKeeping is the delete of a joined table whose spec says onDelete:
// Disassociate: it leaves its global table by UpdateTable ReplicaUpdates
// Disassociate, RegionName its own Region, sent there with its own
// credentials (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-disassociate.html),
// and stays a table of its own that Tether lets go of. done is true once a
// read shows it is no member (the object may go); until then err says why
// the delete waits. AWS's refusal (its disassociation protection on, say)
// is named and not sent again for the object's generation; nor is a
// Disassociate AWS accepted: a table ACTIVE and still a member once the
// call settled is a failure (GlobalTableLeaveFailed, naming the replicas'
// statuses). The table is never deleted instead. handled is false for any
// other table.
func (p *Provider) leaveKeeping(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (handled bool, err error) {
	src := obj.Spec.GlobalTableSource
	if src == nil || src.OnDelete != awsv1alpha1.GlobalTableOnDeleteDisassociate {
		return false, nil
	}
	name, key, now := obj.ResolvedTableName(), ep.TableKey(obj.ResolvedTableName()), time.Now()
	if !plan.JoinedMember(d) {
		p.released(ep, obj)
		return true, nil
	}
	if _, ok := p.flights.inFlight(key, callLeaveGlobalTable, now); ok || d.TableStatus != types.TableStatusActive {
		return true, providers.Pendingf(p.opts.TransitionPoll, reasonDeleting,
			"table %s is leaving its global table; DynamoDB still lists the other members", name)
	}
	if aws.ToBool(d.DisassociationProtectionEnabled) {
		return true, p.lowerDisassociationProtection(ctx, ep, obj)
	}
	mem := p.memoryOf(obj)
	if r := mem.leaveRefused; r != nil && r.generation == obj.Generation {
		return true, leaveRefusedError(name, r.words)
	}
	if s := mem.leaveSent; s != nil && s.generation == obj.Generation {
		// AWS accepted the Disassociate, the settle window has passed, and
		// the table is ACTIVE and still a member: it failed. Sending it
		// again would only repeat it; the object's spec changing does.
		return true, providers.RetryAfter(time.Minute, reasonLeaveFailed, fmt.Errorf(
			"AWS accepted the disassociation of table %s from its global table, yet the table is ACTIVE and still a member (replicas: %s): "+
				"the disassociation failed; it is not sent again, nor is the table deleted instead, until the object's spec changes",
			name, membersStatuses(d.Replicas)))
	}
	_, err = ep.API.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
			RegionName: aws.String(ep.Region), DisassociationMode: types.DisassociationModeWaitForReplication}}}})
	if access.ErrorCode(err) == "ValidationException" {
		mem.leaveRefused = &leaveAnswer{generation: obj.Generation, words: access.Stable(err).Error()}
		return true, leaveRefusedError(name, mem.leaveRefused.words)
	}
	if err != nil {
		return true, access.Classify(err)
	}
	mem.leaveSent = &leaveAnswer{generation: obj.Generation}
	p.flights.accepted(key, flight{call: callLeaveGlobalTable, subject: callLeaveGlobalTable, at: now, settle: p.opts.SettleWindow})
	return true, providers.Pendingf(time.Second, reasonDeleting, "table %s is leaving its global table, to stay in %s as a table of its own", name, ep.Region)
}

// reasonLeaveFailed: AWS accepted a joined table's Disassociate, and the
// table is still a member once it settled.
const reasonLeaveFailed = "GlobalTableLeaveFailed"

// leaveRefusedError is AWS's refusal of a joined table's Disassociate, kept
// for the object's generation (memory.leaveRefused): not sent again until
// the spec changes.
func leaveRefusedError(name, words string) error {
	return providers.RetryAfter(deletionProtectedDelay, plan.ReasonDisassociationRefused, fmt.Errorf(
		"AWS refused to disassociate table %s from its global table (%s): its own disassociation protection must be off "+
			"(spec.disassociationProtectionEnabled: false) and it must be ACTIVE; it is not sent again until the spec changes, "+
			"and the table is not deleted instead (globalTableSource.onDelete: Disassociate)", name, words))
}

// membersStatuses are the replicas' Regions and statuses, as DescribeTable
// reports them.
func membersStatuses(replicas []types.ReplicaDescription) string {
	var out []string
	for _, r := range replicas {
		out = append(out, fmt.Sprintf("%s %s", aws.ToString(r.RegionName), r.ReplicaStatus))
	}
	return strings.Join(out, ", ")
}

// lowerDisassociationProtection turns the table's own disassociation
// protection off before it leaves, only when the spec says so, as
// lowerDeletionProtection does for deletion protection; otherwise the
// delete waits and says why.
func (p *Provider) lowerDisassociationProtection(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	name := obj.ResolvedTableName()
	if dp := obj.Spec.DisassociationProtectionEnabled; dp == nil || *dp {
		return providers.RetryAfter(deletionProtectedDelay, plan.ReasonDisassociationRefused, fmt.Errorf(
			"table %s is to leave its global table (globalTableSource.onDelete: Disassociate), and its disassociation protection is on, "+
				"which AWS refuses it for: set spec.disassociationProtectionEnabled: false (or turn it off in AWS) to let it go on; "+
				"it is not deleted instead", name))
	}
	_, err := ep.API.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DisassociationProtectionEnabled: aws.Bool(false)})
	if err != nil {
		return access.Classify(err)
	}
	return providers.Pendingf(time.Second, reasonDeleting, "turned disassociation protection off on table %s, as the spec says, to leave its global table", name)
}

// describeLeave is the Deleted event's words for a joined table kept as a
// table of its own, "" for any other.
func describeLeave(obj *awsv1alpha1.DynamoDBTable) string {
	if src := obj.Spec.GlobalTableSource; src != nil && src.OnDelete == awsv1alpha1.GlobalTableOnDeleteDisassociate {
		return fmt.Sprintf("table %s left its global table and stays, as a table of its own that Tether no longer manages "+
			"(globalTableSource.onDelete: Disassociate)", obj.ResolvedTableName())
	}
	return ""
}

// noteSourceChanged counts a step AWS accepted on obj's table while it is a
// source others join (its stream, settings replication, policy, ...).
//
// A step on a table that joined it counts for its source too: every
// member's policy is checked on a join, so a join AWS refused may pass once
// another member's policy changed.
func (p *Provider) noteSourceChanged(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) {
	mem := p.memoryOf(obj)
	source := selfArn(ep, obj)
	if plan.Joins(&obj.Spec) {
		source = mem.joinedSource
	}
	if source == "" || !mem.replicationPolicy {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sourceChanges == nil {
		p.sourceChanges = map[string]int{}
	}
	p.sourceChanges[source]++
}

// sourceChangesOf is how many steps AWS accepted on the source (by ARN)
// while it was one, in this process: Tether's own count, which no status
// reaches.
func (p *Provider) sourceChangesOf(arn string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sourceChanges[arn]
}

// noteSettingsReplicationSent remembers that AWS accepted the enabling of
// settings replication: a regional table does not report it, and the call
// is not sent again on that account (for this process's life; once more
// after a restart, which AWS takes as a no-op).
func noteSettingsReplicationSent(mem *memory, step plan.Step) {
	if step.Kind == plan.StepSettingsReplication {
		mem.settingsReplicationSent = true
	}
}
