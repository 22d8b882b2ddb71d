package dynamodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// ownership is how obj's claim to a table is proved.
type ownership int

const (
	notOwned ownership = iota
	// ownedByRecord: Tether's own record says the table is obj's (it
	// created or restored it for obj, or read obj's owner tag on it, in
	// this process), or, where the endpoint holds no tags, the status
	// records it and obj's namespace may adopt it anyway (ownsByStatus).
	ownedByRecord
	// ownedByTag: the table carries obj's owner-uid tag.
	ownedByTag
	// ownedByRestore: a restore Tether began for obj made the table
	// (restoredFor).
	ownedByRestore
	// ownedByImport: an import Tether began for obj made the table
	// (importedFor).
	ownedByImport
	// ownedByAdoption: the table is someone else's and obj adopts it.
	ownedByAdoption
)

// owns says whether obj may manage the table, and by which proof.
// Ownership rests only on what a tenant cannot write, never on the status
// (anyone who may patch the status subresource writes it) nor on timing:
//   - Tether's own record, in this process's memory, that the table is
//     obj's: from its own CreateTable or restore answer, or an owner tag it
//     read before (ownerRecords);
//   - the owner-uid tag AWS holds on the table, which Tether gives
//     CreateTable and a restored table right after the restore (read once
//     after a restart, then recorded);
//   - carrying no owner tag, the table was made by a restore Tether began
//     for obj in this process, from that very source (restoredFor), or by
//     the import whose ImportTable answer Tether recorded for obj
//     (importedFor; the owner tag follows once the import has ended), or,
//     after a restart while it runs, AWS's answer to that import's own
//     ClientToken (reclaimImport);
//   - obj asks to adopt it, and its AWSAccount lets its namespace adopt.
//
// Where the endpoint holds no tags at all (DynamoDB Local), nothing in AWS
// can prove ownership after a restart: there, and only there, the table
// identity the status records is taken, for a namespace that may adopt the
// table anyway (ownsByStatus), which gives it nothing it could not ask for.
//
// A table that appeared between Observe and CreateTable (ResourceInUse) has
// none of these, so it is someone else's until the user says otherwise.
// why says, when the table is not owned, what refused an adoption.
func (p *Provider) owns(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (how ownership, why string, err error) {
	key, mine := ep.TableKey(obj.ResolvedTableName()), ownerRecord{UID: string(obj.UID), TableID: TableIdentity(d)}
	if p.owners.of(key) == mine {
		return ownedByRecord, "", nil
	}
	owner, err := p.ownerTagOf(ctx, ep, obj, d)
	if err != nil {
		return notOwned, "", err
	}
	switch {
	case owner == string(obj.UID):
		p.owners.mark(key, mine)
		return ownedByTag, "", nil
	case owner == "" && p.restoredFor(ep, obj, d):
		p.owners.mark(key, mine)
		return ownedByRestore, "", nil
	case owner == "" && (p.importedFor(ep, obj, d) || p.reclaimImport(ctx, ep, obj, d)):
		p.owners.mark(key, mine)
		return ownedByImport, "", nil
	}
	if owner == "" {
		switch by, err := p.ownsByStatus(ctx, ep, obj, d); {
		case err != nil:
			return notOwned, "", err
		case by:
			return ownedByRecord, "", nil
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

// ownsByStatus takes the status's record of the table's identity as proof
// where nothing else can be: the endpoint holds no tags (after a restart,
// DynamoDB Local's tables carry no proof at all), and obj's namespace may
// adopt tables there (the operator's own identity, or an AWSAccount's
// spec.tenancy.adoptionNamespaces), so that a status patch gives nothing
// the adopt annotation would not.
func (p *Provider) ownsByStatus(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (bool, error) {
	if !p.clients.Lacks(ep, plan.FeatureTags) || obj.Status.TableID == "" || obj.Status.TableID != TableIdentity(d) {
		return false, nil
	}
	may, _, err := p.mayAdopt(ctx, ep, obj)
	return may, err
}

// ownerTagOf reads the table's tags for Tether's owner-uid tag ("" when
// there is none, or the endpoint has no tagging). It is the one tag read a
// spec without tags ever costs, and only for a table whose identity Tether
// has not recorded.
func (p *Provider) ownerTagOf(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (string, error) {
	if p.ownerTags(ep, obj) == nil {
		return "", nil
	}
	var tags map[string]string
	err := p.clients.Probe(ep, plan.FeatureTags, func() (err error) {
		tags, err = listTags(ctx, ep.API, aws.ToString(d.TableArn))
		return err
	})
	switch {
	case errors.Is(err, access.ErrLacksFeature):
		return "", nil
	case access.IsUnknownOperation(err):
		p.markUnsupported(ep, obj, plan.FeatureTags, err)
		return "", nil
	case err != nil:
		return "", access.Classify(err)
	}
	return tags[TagOwnerUID], nil
}

// checkOwnership refuses to manage a table Tether cannot prove it created
// for obj, unless the object asks to adopt it and may, and records the
// identity of a table it owns (and whether it was adopted).
func (p *Provider) checkOwnership(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) error {
	how, whyNot, err := p.owns(ctx, ep, obj, d)
	if err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	if how == notOwned && whyNot != "" {
		return refusal(reasonAdoptionNotAllowed, "table %s already exists and was not created by Tether for this object; %s: "+
			"Tether leaves it alone", name, whyNot)
	}
	if how == notOwned {
		return providers.Terminalf(ReasonNotOwned, "%s; if it is meant to be this object's table, annotate the object %s: \"true\" "+
			"(Tether will then change it to match the spec; deleting the object deletes it only with %s: \"true\" and deletionPolicy Delete)",
			p.whyNotOwned(obj, d), awsv1alpha1.AnnotationAdopt, awsv1alpha1.AnnotationDeleteAdopted)
	}
	id := TableIdentity(d)
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
// not taken for obj's: it lost a create race, the status names it but is
// no proof, an earlier create was interrupted before its answer arrived,
// the table was replaced, or it was simply there.
func (p *Provider) whyNotOwned(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) string {
	name := obj.ResolvedTableName()
	switch {
	case p.memoryOf(obj).createRefused:
		return fmt.Sprintf("table %s was created by someone else between Tether's check and its CreateTable "+
			"(DynamoDB answered ResourceInUseException), so it is not this object's", name)
	case obj.Status.TableID == TableIdentity(d):
		return fmt.Sprintf("table %s is the one status.tableId names, but the status is no proof of ownership (anyone who may "+
			"patch it writes it): the table carries no owner tag of this object, and Tether has no record of creating it", name)
	case obj.Status.TableID != "":
		return fmt.Sprintf("table %s was replaced outside Tether by a table it did not create (its id differs from the one on record)", name)
	case interruptedCreate(obj, d):
		return fmt.Sprintf("table %s exists, but Tether has no proof it is the one it asked DynamoDB to create at %s "+
			"(no answer to that CreateTable was recorded, and the table carries no owner tag of this object)",
			name, obj.Annotations[commonv1alpha1.AnnotationCreateStarted])
	}
	return fmt.Sprintf("table %s already exists and was not created by Tether for this object (no owner tag, no table id on record)", name)
}
