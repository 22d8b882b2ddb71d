package plan

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// feature is one table feature as the planner knows it. Each has a file of
// its own that registers it once, with what it needs of the rest; every
// part is optional.
type feature struct {
	// name is the spec field that asks for the feature, where an endpoint
	// may lack it (DynamoDB Local has no tagging, say): the name
	// status.unsupportedFeatures lists. "" for what every endpoint has.
	name string
	// kinds are the kinds of the feature's steps.
	kinds []StepKind
	// uses says whether a spec manages the feature.
	uses func(spec *awsv1alpha1.DynamoDBTableSpec) bool
	// desire fills in the feature's fields of the desired table.
	desire func(s source, want *Table)
	// observe fills in its fields from DescribeTable's answer.
	observe func(d *types.TableDescription, have *Table)
	// adopt takes its own read's answer into the observed table.
	adopt func(r *Reads, have *Table)
	// hide forgets what the observed table says of it, where the endpoint
	// cannot manage it: nothing is planned for it then.
	hide func(have *Table)
	// busy says what AWS is still doing to its part of the table, "" when
	// nothing: no step is sent meanwhile.
	busy func(have *Table) string
	// create sets its CreateTable parameters, createIndex its parameters
	// of an index created (by CreateTable or UpdateTable).
	create      func(s source, want *Table, in *dynamodb.CreateTableInput)
	createIndex func(want Index, in *types.CreateGlobalSecondaryIndexAction)
	// passes are its passes in the planner, each at its position.
	passes []pass
}

// source is what a desired table is made of: the spec, and all the tags
// the table should carry (the spec's, the operator's and the account's
// defaults, Tether's owner tags), which the adapter assembles.
type source struct {
	*awsv1alpha1.DynamoDBTableSpec
	tags map[string]string
}

// features are the registered features; passAt the pass at each position.
var (
	features []*feature
	passAt   [positions]func(*planner)
)

// register adds a feature. Two passes at one position would leave their
// order to chance: that is a programming error.
func register(f *feature) {
	for _, p := range f.passes {
		if passAt[p.at] != nil {
			panic(fmt.Sprintf("plan: two passes at position %d", p.at))
		}
		passAt[p.at] = p.run
	}
	features = append(features, f)
}

// named is the feature of that name, nil when there is none.
func named(name string) *feature {
	for _, f := range features {
		if f.name == name && name != "" {
			return f
		}
	}
	return nil
}

// Optional names the features an endpoint may lack, sorted.
func Optional() []string {
	var out []string
	for _, f := range features {
		if f.name != "" {
			out = append(out, f.name)
		}
	}
	slices.Sort(out)
	return out
}

// Uses says whether the spec manages the named feature.
func Uses(spec *awsv1alpha1.DynamoDBTableSpec, name string) bool {
	f := named(name)
	return f != nil && f.uses != nil && f.uses(spec)
}

// FeatureOf names the feature a kind of step belongs to, "" for one every
// endpoint has.
func FeatureOf(kind StepKind) string {
	for _, f := range features {
		if slices.Contains(f.kinds, kind) {
			return f.name
		}
	}
	return ""
}

// Adopt takes the named feature's read into the observed table.
func Adopt(name string, r *Reads, have *Table) {
	if f := named(name); f != nil && f.adopt != nil {
		f.adopt(r, have)
	}
}

// Hide makes the named feature unknown on the observed table, for an
// endpoint that lacks it.
func Hide(name string, have *Table) {
	if f := named(name); f != nil && f.hide != nil {
		f.hide(have)
	}
}

// featuresBusy is what AWS is still doing to a feature's part of the
// table, "" when nothing.
func featuresBusy(t *Table) string {
	for _, f := range features {
		if f.busy == nil {
			continue
		}
		if b := f.busy(t); b != "" {
			return b
		}
	}
	return ""
}

// anyIndex says whether f holds for one of the spec's indexes.
func anyIndex(spec *awsv1alpha1.DynamoDBTableSpec, f func(awsv1alpha1.GlobalSecondaryIndex) bool) bool {
	return slices.ContainsFunc(spec.GlobalSecondaryIndexes, f)
}
