package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Tags: read by ListTagsOfResource, added by TagResource, removed by
// UntagResource. Tether manages the tags it is given (the spec's, the
// defaults, its owner tags) and removes only those it applied before and
// the spec dropped: other tools tag tables too.

// FeatureTags names tagging where an endpoint may lack it.
const FeatureTags = "tags"

// Kinds of the tag steps.
const (
	stepTags  StepKind = "Tags"
	stepUntag StepKind = "Untag"
)

func init() {
	register(&feature{
		name:  FeatureTags,
		kinds: []StepKind{stepTags, stepUntag},
		uses:  func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return len(spec.Tags) > 0 },
		desire: func(s source, want *Table) {
			if len(s.tags) > 0 {
				want.Tags = maps.Clone(s.tags)
			}
		},
		adopt: func(r *Reads, have *Table) { have.Tags = r.Tags },
		create: func(_ source, want *Table, in *dynamodb.CreateTableInput) {
			for _, k := range slices.Sorted(maps.Keys(want.Tags)) {
				in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(want.Tags[k])})
			}
		},
		passes: []pass{{atTags, (*planner).updateTags}},
	})
}

// updateTags adds or corrects the spec's tags (and Tether's owner tag).
// Tags the spec does not name are left alone: other tools tag tables too.
func (p *planner) updateTags() {
	if p.want.Tags == nil || p.cur.Tags == nil {
		return
	}
	var tags []types.Tag
	for _, k := range slices.Sorted(maps.Keys(p.want.Tags)) {
		if v, ok := p.cur.Tags[k]; !ok || v != p.want.Tags[k] {
			tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(p.want.Tags[k])})
			p.cur.Tags[k] = p.want.Tags[k]
		}
	}
	if len(tags) > 0 {
		p.add(Step{Kind: stepTags, Description: fmt.Sprintf("tag table (%d tags)", len(tags)), Tags: tags})
	}
	var untag []string
	for _, k := range p.want.RemoveTags {
		if _, wanted := p.want.Tags[k]; !wanted {
			if _, present := p.cur.Tags[k]; present {
				untag = append(untag, k)
				delete(p.cur.Tags, k)
			}
		}
	}
	if len(untag) > 0 {
		slices.Sort(untag)
		p.add(Step{Kind: stepUntag, Description: "untag table (" + strings.Join(untag, ", ") + ")", UntagKeys: untag})
	}
}

// ManagedTagKeys are the spec tags Tether has applied: the ones it managed
// before that are still on the table (a removed one is untagged next), plus
// the spec's tags now on the table.
func ManagedTagKeys(before []string, spec, onTable map[string]string) []string {
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
