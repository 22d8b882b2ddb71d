package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// tableIdentity tells one table from another of the same name: AWS's
// TableId, or (DynamoDB Local has none) the ARN with the creation time.
func tableIdentity(d *types.TableDescription) string {
	if id := aws.ToString(d.TableId); id != "" {
		return id
	}
	created := ""
	if d.CreationDateTime != nil {
		created = d.CreationDateTime.UTC().Format(time.RFC3339Nano)
	}
	return aws.ToString(d.TableArn) + "@" + created
}

// ownership is how obj's claim to a table is proved.
type ownership int

const (
	notOwned ownership = iota
	// ownedByRecord: the table's identity is the one Tether recorded for
	// obj (in the status, or in this process's memory of its CreateTable).
	ownedByRecord
	// ownedByTag: the table carries obj's owner-uid tag.
	ownedByTag
	// ownedByRestore: obj's own restore made the table (restoredFor).
	ownedByRestore
	// ownedByAdoption: the table is someone else's and obj adopts it.
	ownedByAdoption
)

// owns says whether obj may manage the table, and by which proof.
// Ownership rests on proof, never on timing alone:
//   - the table's identity is the one Tether recorded for obj (from its own
//     CreateTable answer, or when it adopted the table), in the status or,
//     should that status write have been lost, in this process's memory;
//   - or the table carries obj's owner-uid tag, which Tether gives
//     CreateTable and a restored table right after the restore (read once,
//     only when nothing else proves ownership);
//   - or, carrying no owner tag, it was restored from obj's source, which
//     obj's namespace may read, after obj recorded that it was about to
//     create it (restoredFor);
//   - or obj asks to adopt it, and its AWSAccount lets its namespace adopt.
//
// A table that appeared between Observe and CreateTable (ResourceInUse) has
// none of these, so it is someone else's until the user says otherwise.
// why says, when the table is not owned, what refused an adoption.
func (p *Provider) owns(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (how ownership, why string, err error) {
	id := tableIdentity(d)
	if obj.Status.TableID != "" && obj.Status.TableID == id {
		return ownedByRecord, "", nil
	}
	if p.createdBy(ep, obj.ResolvedTableName()) == (creation{UID: string(obj.UID), TableID: id}) {
		return ownedByRecord, "", nil
	}
	owner, err := p.ownerTagOf(ctx, ep, obj, d)
	if err != nil {
		return notOwned, "", err
	}
	if owner == string(obj.UID) {
		return ownedByTag, "", nil
	}
	if owner == "" && restoredFor(obj, d) {
		// The create-started note is the user's to write too: the record
		// proves the table only where the namespace may read its source.
		switch err := p.checkRestoreSource(ctx, ep, obj); {
		case err == nil:
			return ownedByRestore, "", nil
		case !isRefusal(err, ReasonRestoreNotAllowed):
			return notOwned, "", err
		}
	}
	if obj.Annotations[awsv1alpha1.AnnotationAdopt] != "true" {
		return notOwned, "", nil
	}
	may, why, err := p.mayAdopt(ctx, ep, obj)
	if err != nil || !may {
		return notOwned, why, err
	}
	return ownedByAdoption, "", nil
}

// ownerTagOf reads the table's tags for Tether's owner-uid tag ("" when
// there is none, or the endpoint has no tagging). It is the one tag read a
// spec without tags ever costs, and only for a table whose identity Tether
// has not recorded.
func (p *Provider) ownerTagOf(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (string, error) {
	if p.ownerTags(ep, obj) == nil {
		return "", nil
	}
	var tags map[string]string
	err := p.probeCall(ep, featureTags, func() (err error) {
		tags, err = listTags(ctx, ep.API, aws.ToString(d.TableArn))
		return err
	})
	switch {
	case errors.Is(err, errLacksFeature):
		return "", nil
	case isUnknownOperation(err):
		p.markUnsupported(ep, obj, featureTags, err)
		return "", nil
	case err != nil:
		return "", classify(err)
	}
	return tags[TagOwnerUID], nil
}

// checkOwnership refuses to manage a table Tether cannot prove it created
// for obj, unless the object asks to adopt it and may, and records the
// identity of a table it owns (and whether it was adopted).
func (p *Provider) checkOwnership(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) error {
	how, whyNot, err := p.owns(ctx, ep, obj, d)
	if err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	if how == notOwned && whyNot != "" {
		return refusal(ReasonAdoptionNotAllowed, "table %s already exists and was not created by Tether for this object; %s: "+
			"Tether leaves it alone", name, whyNot)
	}
	if how == notOwned {
		return providers.Terminalf(ReasonNotOwned, "%s; if it is meant to be this object's table, annotate the object %s: \"true\" "+
			"(Tether will then change it to match the spec; deleting the object deletes it only with %s: \"true\" and deletionPolicy Delete)",
			p.whyNotOwned(obj, d), awsv1alpha1.AnnotationAdopt, awsv1alpha1.AnnotationDeleteAdopted)
	}
	id := tableIdentity(d)
	if obj.Status.TableID != id {
		if how == ownedByAdoption {
			obj.Status.Adopted = true
			p.event(obj, corev1.EventTypeNormal, "Adopted", "Observe", "managing the existing table %s", name)
		}
		obj.Status.TableID = id
	}
	return nil
}

// whyNotOwned explains, as precisely as Tether knows, why the table is
// not taken for obj's: it lost a create race, an earlier create was
// interrupted before its answer arrived, the table was replaced, or it was
// simply there.
func (p *Provider) whyNotOwned(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) string {
	name := obj.ResolvedTableName()
	switch {
	case p.memoryOf(obj).createRefused:
		return fmt.Sprintf("table %s was created by someone else between Tether's check and its CreateTable "+
			"(DynamoDB answered ResourceInUseException), so it is not this object's", name)
	case obj.Status.TableID != "":
		return fmt.Sprintf("table %s was replaced outside Tether by a table it did not create (its id differs from the one on record)", name)
	case interruptedCreate(obj, d):
		return fmt.Sprintf("table %s exists, but Tether has no proof it is the one it asked DynamoDB to create at %s "+
			"(no answer to that CreateTable was recorded, and the table carries no owner tag of this object)",
			name, obj.Annotations[commonv1alpha1.AnnotationCreateStarted])
	}
	return fmt.Sprintf("table %s already exists and was not created by Tether for this object (no owner tag, no table id on record)", name)
}

// clockSkew is how far AWS's clock and the operator's may disagree when
// comparing a table's creation time with the object's create-started note.
const clockSkew = time.Minute

// interruptedCreate says whether the table may be the result of a create
// Tether started for obj and never heard back from (the manager stopped):
// the object has a create-started note and the table is not older. It only
// words the NotOwned message: a table made by someone else in the same
// minute looks the same, which is why timing is never proof.
func interruptedCreate(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	if d.CreationDateTime == nil {
		return false
	}
	started, err := time.Parse(time.RFC3339, obj.Annotations[commonv1alpha1.AnnotationCreateStarted])
	if err != nil {
		return false
	}
	return !d.CreationDateTime.Before(started.Add(-clockSkew))
}

// creation is what Tether remembers of a table it created: for which
// object, and the identity CreateTable answered with.
type creation struct{ UID, TableID string }

func (p *Provider) createdBy(ep *endpoint, name string) creation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.created[ep.tableKey(name)]
}

func (p *Provider) markCreated(ep *endpoint, name string, c creation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.UID == "" {
		delete(p.created, ep.tableKey(name))
		return
	}
	p.created[ep.tableKey(name)] = c
}

// conflictDelay is how often an object in Conflict looks whether the
// object that holds its table is gone.
const conflictDelay = time.Minute

// IndexTableName is the field index of DynamoDBTables by the name of their
// table, which the conflict check lists by (the controller registers it):
// with 10,000 tables, listing them all on every look would copy them all.
const IndexTableName = "tether.dev/table-name"

// TableNameOf is IndexTableName's extractor.
func TableNameOf(obj client.Object) []string {
	t, ok := obj.(*awsv1alpha1.DynamoDBTable)
	if !ok {
		return nil
	}
	return []string{t.ResolvedTableName()}
}

// checkConflict makes the later of two objects naming the same table (the
// same name in the same account and region, from any namespaces) touch
// nothing, by the one ownership rule (providers.Claim.Precedes: the one
// that already has the table wins, then the older one). The later one's
// error is a providers.Conflict wait.
func (p *Provider) checkConflict(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if p.opts.Reader == nil {
		return nil
	}
	var all awsv1alpha1.DynamoDBTableList
	if err := p.opts.Reader.List(ctx, &all, client.MatchingFields{IndexTableName: obj.ResolvedTableName()}); err != nil {
		return err
	}
	for i := range all.Items {
		other := &all.Items[i]
		if other.UID == obj.UID || other.ResolvedTableName() != obj.ResolvedTableName() || !precedes(other, obj) {
			continue
		}
		t, err := p.resolve(ctx, other)
		if err != nil && other.Status.TableID != "" {
			// The other object holds a table of this name, and where it is
			// cannot be told now (its account is missing, refuses its
			// namespace, ...): it may well be this very table, so this
			// object touches nothing until that can be told.
			return providers.RetryAfter(conflictDelay, ReasonHolderUnresolved, fmt.Errorf(
				"DynamoDBTable %s/%s holds a table named %s, and which account and region it is in cannot be told (%v); "+
					"this object touches nothing while that one may hold this table (to let go of this object's table without "+
					"touching it, annotate the object tether.dev/reconcile: paused)",
				other.Namespace, other.Name, obj.ResolvedTableName(), err))
		}
		if err != nil {
			// It holds no table, and can make none while unresolved.
			continue
		}
		if t.Region != ep.Region {
			continue
		}
		if account, _ := p.clients.accountOf(t.account); account != ep.Account {
			continue
		}
		// A wait: the check costs no AWS call (it reads the cache), and
		// once the other object is gone this one may take over.
		w := providers.Conflict(conflictDelay,
			"table %s in %s, region %s, is already managed by DynamoDBTable %s/%s; this object touches nothing while that one exists",
			obj.ResolvedTableName(), accountLabel(ep.Identity), ep.Region, other.Namespace, other.Name)
		return &w
	}
	return nil
}

// precedes says whether a has the better claim to a table than b.
func precedes(a, b *awsv1alpha1.DynamoDBTable) bool {
	return claimOf(a).Precedes(claimOf(b))
}

// claimOf is obj's claim on its table: it holds one once it has found or
// made it (status.tableID).
func claimOf(obj *awsv1alpha1.DynamoDBTable) providers.Claim {
	return providers.Claim{Key: client.ObjectKeyFromObject(obj), Created: obj.CreationTimestamp, Holds: obj.Status.TableID != ""}
}
