package dynamodb

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Tags Tether puts on the tables it manages, where the endpoint has tagging.
const (
	TagOwner    = "tether.dev/owner"     // namespace/name of the object
	TagOwnerUID = "tether.dev/owner-uid" // its UID: a new object of the same name is not the owner
)

// TagData is what a default tag's template may use.
type TagData struct {
	// Namespace and Name are the DynamoDBTable's.
	Namespace, Name string
	// Account is the AWSAccount's name ("" for the operator's own identity),
	// AccountID the AWS account id when known.
	Account, AccountID string
	Region             string
}

// defaultTags are the operator's default tags, parsed.
type defaultTags map[string]*template.Template

// ParseDefaultTags parses the operator's default tags (--dynamodb-default-tag
// key=template) and tries each on sample data, so that a bad template stops
// the manager at start rather than every table later.
func ParseDefaultTags(tags map[string]string) (defaultTags, error) {
	out := defaultTags{}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || len(k) > 128 || strings.HasPrefix(k, "aws:") || strings.HasPrefix(k, "tether.dev/") {
			return nil, fmt.Errorf("default tag key %q: want 1-128 characters, not starting with aws: (AWS's) or tether.dev/ (Tether's own)", k)
		}
		t, err := template.New(k).Option("missingkey=error").Parse(tags[k])
		if err != nil {
			return nil, fmt.Errorf("default tag %s: %w", k, err)
		}
		if _, err := render(t, TagData{Namespace: "ns", Name: "name", Account: "account", AccountID: "111122223333", Region: "us-east-1"}); err != nil {
			return nil, fmt.Errorf("default tag %s: %w", k, err)
		}
		out[k] = t
	}
	return out, nil
}

func render(t *template.Template, data TagData) (string, error) {
	var b strings.Builder
	err := t.Execute(&b, data)
	return b.String(), err
}

// tagsToManage are the tags Tether keeps on obj's table besides its owner
// tags, each source over the one before: the operator's default tags, the
// AWSAccount's spec.tenancy.tags, the spec's tags, then the default and
// account tags the AWSAccount enforces (spec.tenancy.enforcedTagKeys), which
// a spec cannot change.
func (p *Provider) tagsToManage(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	tenancy := ep.tenancy()
	if len(p.defaultTags) == 0 && len(tenancy.Tags) == 0 {
		return obj.Spec.Tags
	}
	data := TagData{Namespace: obj.Namespace, Name: obj.Name, Account: ep.Identity, AccountID: ep.AccountID, Region: ep.Region}
	out := map[string]string{}
	for k, t := range p.defaultTags {
		if v, err := render(t, data); err == nil {
			out[k] = v
		}
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
func (p *Provider) overriddenTags(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) string {
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
func (p *Provider) wantedTags(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	out := maps.Clone(p.tagsToManage(ep, obj))
	if owner := p.ownerTags(ep, obj); owner != nil {
		if out == nil {
			out = map[string]string{}
		}
		maps.Copy(out, owner)
	}
	return out
}

// usesTags says whether Tether manages tags on obj's table (and so reads
// them back): the spec has tags, or the operator or the AWSAccount has
// default tags.
func (p *Provider) usesTags(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) bool {
	return specUses(&obj.Spec, featureTags) || len(p.defaultTags) > 0 || len(ep.tenancy().Tags) > 0
}

// leftOut names a feature obj's table goes without: the spec's field, or
// the default tags for a spec without tags.
func leftOut(obj *awsv1alpha1.DynamoDBTable, feature string) string {
	if feature == featureTags && len(obj.Spec.Tags) == 0 {
		return "tags (the default tags of the manager or the AWSAccount)"
	}
	return "spec." + feature
}

// uses says whether obj's table would have a feature: its spec asks for it,
// or, for tags, default tags do. What an endpoint lacks of it is what obj's
// status lists as left out.
func (p *Provider) uses(ep *endpoint, obj *awsv1alpha1.DynamoDBTable, feature string) bool {
	if feature == featureTags {
		return p.usesTags(ep, obj)
	}
	return specUses(&obj.Spec, feature)
}

// ownerTags are Tether's marks for obj; nil where the endpoint has no tagging.
func (p *Provider) ownerTags(ep *endpoint, obj *awsv1alpha1.DynamoDBTable) map[string]string {
	if p.lacks(ep, featureTags) {
		return nil
	}
	return map[string]string{TagOwner: obj.Namespace + "/" + obj.Name, TagOwnerUID: string(obj.UID)}
}
