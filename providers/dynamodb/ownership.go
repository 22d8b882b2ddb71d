package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	corev1 "k8s.io/api/core/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Tags Tether puts on the tables it manages, where the endpoint has tagging.
const (
	TagOwner    = "tether.dev/owner"     // namespace/name of the object
	TagOwnerUID = "tether.dev/owner-uid" // its UID: a new object of the same name is not the owner
)

// ownerTags are Tether's marks for obj; nil where the endpoint has no tagging.
func (p *Provider) ownerTags(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	if p.lacks(ep, featureTags) {
		return nil
	}
	return map[string]string{TagOwner: obj.Namespace + "/" + obj.Name, TagOwnerUID: string(obj.UID)}
}

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

// owns says whether obj may manage the table: it is the table Tether
// created or adopted for obj before (same identity), Tether created it in
// this process, it carries obj's owner tag, or obj asks to adopt it.
func (p *Provider) owns(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) (bool, error) {
	if obj.Status.TableID != "" && obj.Status.TableID == tableIdentity(d) {
		return true, nil
	}
	if p.createdBy(ep, obj.ResolvedTableName()) == string(obj.UID) {
		return true, nil
	}
	if createdSinceTetherStarted(obj, d) {
		return true, nil
	}
	if p.ownerTags(ep, obj) != nil {
		var tags map[string]string
		err := p.probeCall(ep, featureTags, func() (err error) {
			tags, err = listTags(ctx, ep.API, aws.ToString(d.TableArn))
			return err
		})
		switch {
		case errors.Is(err, errLacksFeature):
		case isUnknownOperation(err):
			p.markUnsupported(ep, obj, featureTags, err)
		case err != nil:
			return false, classify(err)
		case tags[TagOwnerUID] == string(obj.UID):
			return true, nil
		}
	}
	return obj.Annotations[awsv1alpha1.AnnotationAdopt] == "true", nil
}

// checkOwnership refuses to manage a table Tether did not create, unless
// the object asks to adopt it, and records the identity of a table it owns.
func (p *Provider) checkOwnership(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) error {
	owned, err := p.owns(ctx, ep, obj, d)
	if err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	if !owned {
		what := fmt.Sprintf("table %s already exists and was not created by Tether for this object", name)
		if obj.Status.TableID != "" {
			what = fmt.Sprintf("table %s was replaced outside Tether by a table it did not create", name)
		}
		return providers.Terminalf(ReasonNotOwned, "%s; annotate the object %s: \"true\" to manage it "+
			"(Tether will change it to match the spec, and delete it with the object unless deletionPolicy is Retain)",
			what, awsv1alpha1.AnnotationAdopt)
	}
	id := tableIdentity(d)
	if obj.Status.TableID != id {
		if p.createdBy(ep, name) != string(obj.UID) {
			p.event(obj, corev1.EventTypeNormal, "Adopted", "Observe", "managing the existing table %s", name)
		}
		obj.Status.TableID = id
	}
	return nil
}

// clockSkew is how far AWS's clock and the operator's may disagree when
// comparing a table's creation time with the object's create-started note.
const clockSkew = time.Minute

// createdSinceTetherStarted recognises a table Tether made for obj but
// never recorded: the manager died between CreateTable and the status
// write. The generic reconciler notes tether.dev/create-started on the
// object before each create; a table of obj's name created after that note
// (within clockSkew) is taken as Tether's own when the status has no other
// table on record. This is what makes a crash safe on endpoints without
// tags (DynamoDB Local); on AWS the owner tags given to CreateTable do it too.
func createdSinceTetherStarted(obj *awsv1alpha1.DynamoDBTable, d *types.TableDescription) bool {
	if obj.Status.TableID != "" || d.CreationDateTime == nil {
		return false
	}
	started, err := time.Parse(time.RFC3339, obj.Annotations[commonv1alpha1.AnnotationCreateStarted])
	if err != nil {
		return false
	}
	return !d.CreationDateTime.Before(started.Add(-clockSkew))
}

func (p *Provider) createdBy(ep *endpoint, name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.created[ep.Key+"|"+name]
}

func (p *Provider) markCreated(ep *endpoint, name, uid string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if uid == "" {
		delete(p.created, ep.Key+"|"+name)
		return
	}
	p.created[ep.Key+"|"+name] = uid
}

// conflictDelay is how often an object in Conflict looks whether the
// object that holds its table is gone.
const conflictDelay = time.Minute

// checkConflict makes the later of two objects naming the same table (in
// any namespaces) touch nothing. The one that already has the table wins,
// then the older one, so the answer does not depend on which one is
// reconciled first.
func (p *Provider) checkConflict(ctx context.Context, ep *endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	if p.opts.Reader == nil {
		return nil
	}
	var all awsv1alpha1.DynamoDBTableList
	if err := p.opts.Reader.List(ctx, &all); err != nil {
		return err
	}
	for i := range all.Items {
		other := &all.Items[i]
		if other.UID == obj.UID || other.ResolvedTableName() != obj.ResolvedTableName() ||
			p.regionOf(other) != p.regionOf(obj) || !precedes(other, obj) {
			continue
		}
		// Not terminal: the check costs no AWS call (it reads the cache),
		// and once the other object is gone this one may take over.
		return providers.RetryAfter(conflictDelay, ReasonConflict, fmt.Errorf(
			"table %s in %s is already managed by DynamoDBTable %s/%s; this object touches nothing while that one exists",
			obj.ResolvedTableName(), ep.Region, other.Namespace, other.Name))
	}
	return nil
}

func (p *Provider) regionOf(obj *awsv1alpha1.DynamoDBTable) string {
	if obj.Spec.Region != "" {
		return obj.Spec.Region
	}
	return p.opts.Clients.DefaultRegion
}

// precedes says whether a has the better claim to a table than b.
func precedes(a, b *awsv1alpha1.DynamoDBTable) bool {
	if aHas, bHas := a.Status.TableID != "", b.Status.TableID != ""; aHas != bHas {
		return aHas
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.UID < b.UID
}
