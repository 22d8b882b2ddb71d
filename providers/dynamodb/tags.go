package dynamodb

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Tags Tether puts on the tables it manages, where the endpoint has tagging.
const (
	TagOwner    = "tether.dev/owner"     // namespace/name of the object
	TagOwnerUID = "tether.dev/owner-uid" // its UID: a new object of the same name is not the owner
)

// TagData is what a default tag's value may name.
type TagData struct {
	// Namespace and Name are the DynamoDBTable's.
	Namespace, Name string
	// Account is the AWSAccount's name ("" for the operator's own identity),
	// AccountID the AWS account id when known.
	Account, AccountID string
	Region             string
}

// tagFields are the placeholders a default tag's value may hold, written
// {{.Namespace}} as in a Go template, and what each stands for. Not
// text/template itself: its reflection on method names turns off the
// linker's removal of unused methods across the whole binary, and with it a
// large part of the manager's size and start-up memory.
var tagFields = map[string]func(TagData) string{
	"Namespace": func(d TagData) string { return d.Namespace },
	"Name":      func(d TagData) string { return d.Name },
	"Account":   func(d TagData) string { return d.Account },
	"AccountID": func(d TagData) string { return d.AccountID },
	"Region":    func(d TagData) string { return d.Region },
}

// tagValue is a default tag's value, parsed: literal text and placeholders
// (field names), in turn.
type tagValue []tagPart

type tagPart struct{ text, field string }

// parseTagValue splits s into literal text and {{.Field}} placeholders,
// refusing anything else between {{ and }}.
func parseTagValue(s string) (tagValue, error) {
	var out tagValue
	for s != "" {
		open := strings.Index(s, "{{")
		if open < 0 {
			out = append(out, tagPart{text: s})
			break
		}
		if open > 0 {
			out = append(out, tagPart{text: s[:open]})
		}
		inner, rest, ok := strings.Cut(s[open+2:], "}}")
		if !ok {
			return nil, fmt.Errorf("%q: {{ without }}", s[open:])
		}
		field, isField := strings.CutPrefix(strings.TrimSpace(inner), ".")
		if _, known := tagFields[field]; !isField || !known {
			return nil, fmt.Errorf("{{%s}}: want one of %s", inner, placeholders())
		}
		out = append(out, tagPart{field: field})
		s = rest
	}
	return out, nil
}

// placeholders lists tagFields as a value writes them.
func placeholders() string {
	var out []string
	for _, f := range slices.Sorted(maps.Keys(tagFields)) {
		out = append(out, "{{."+f+"}}")
	}
	return strings.Join(out, ", ")
}

func (v tagValue) render(d TagData) string {
	var b strings.Builder
	for _, p := range v {
		if p.field != "" {
			b.WriteString(tagFields[p.field](d))
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// defaultTags are the operator's default tags, parsed.
type defaultTags map[string]tagValue

// ParseDefaultTags parses the operator's default tags (--dynamodb-default-tag
// key=value, the value's placeholders checked), so that a bad one stops the
// manager at start rather than every table later.
func ParseDefaultTags(tags map[string]string) (defaultTags, error) {
	out := defaultTags{}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || len(k) > 128 || strings.HasPrefix(k, "aws:") || strings.HasPrefix(k, "tether.dev/") {
			return nil, fmt.Errorf("default tag key %q: want 1-128 characters, not starting with aws: (AWS's) or tether.dev/ (Tether's own)", k)
		}
		v, err := parseTagValue(tags[k])
		if err != nil {
			return nil, fmt.Errorf("default tag %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
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
