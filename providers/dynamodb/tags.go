package dynamodb

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Tags Tether puts on the tables it manages, where the endpoint has tagging.
const (
	tagOwner    = "tether.dev/owner"     // namespace/name of the object
	TagOwnerUID = "tether.dev/owner-uid" // its UID: a new object of the same name is not the owner
)

// tagsToManage are the tags Tether keeps on obj's table besides its owner
// tags, each source over the one before: the operator's default tags, the
// AWSAccount's spec.tenancy.tags, the spec's tags, then the default and
// account tags the AWSAccount enforces (spec.tenancy.enforcedTagKeys), which
// a spec cannot change.
func (p *Provider) tagsToManage(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	tenancy := tenancyOf(ep)
	if len(p.defaultTags) == 0 && len(tenancy.Tags) == 0 {
		return obj.Spec.Tags
	}
	data := tagData{Namespace: obj.Namespace, Name: obj.Name, Account: ep.Identity, AccountID: ep.AccountID, Region: ep.Region}
	out := map[string]string{}
	for k, v := range p.defaultTags {
		out[k] = v.render(data)
	}
	maps.Copy(out, tenancy.Tags)
	enforced := map[string]string{}
	for _, k := range tenancy.EnforcedTagKeys {
		if v, ok := out[k]; ok {
			enforced[k] = v
		}
	}
	maps.Copy(out, obj.Spec.Tags)
	maps.Copy(out, enforced)
	return out
}

// overriddenTags names the spec's tags an AWSAccount's enforced tags
// replace, "" when none: said in the Ready condition, since the spec does
// not show on the table as written.
func (p *Provider) overriddenTags(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) string {
	managed := p.tagsToManage(ep, obj)
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(obj.Spec.Tags)) {
		if managed[k] != obj.Spec.Tags[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return fmt.Sprintf("spec.tags %s: replaced by the tags AWSAccount %s enforces", strings.Join(keys, ", "), ep.Identity)
}

// wantedTags are all the tags obj's table should carry: the tags to
// manage and, where the endpoint has tagging, Tether's owner tags.
func (p *Provider) wantedTags(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	out := maps.Clone(p.tagsToManage(ep, obj))
	if owner := p.ownerTags(ep, obj); owner != nil {
		if out == nil {
			out = map[string]string{}
		}
		maps.Copy(out, owner)
	}
	return out
}

// ownerTags are Tether's marks for obj; nil where the endpoint has no tagging.
func (p *Provider) ownerTags(ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	if p.clients.Lacks(ep, plan.FeatureTags) {
		return nil
	}
	return map[string]string{tagOwner: obj.Namespace + "/" + obj.Name, TagOwnerUID: string(obj.UID)}
}
