package plan

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// indexed is a setting the table and each of its indexes carry alike
// (on-demand throughput, warm throughput, contributor insights): where its
// value sits on each, and how the spec and DescribeTable say it. Going over
// the table and its indexes is the same for each such setting, and is
// here once.
type indexed[T any] struct {
	// at is where the value sits, on the table and on each index alike.
	at func(*Carried) **T
	// wanted and wantedOfIndex are the value the spec asks for, nil when
	// it says nothing.
	wanted        func(*awsv1alpha1.DynamoDBTableSpec) *T
	wantedOfIndex func(*awsv1alpha1.GlobalSecondaryIndex) *T
	// reported and reportedOfIndex are the value DescribeTable reports;
	// nil functions for a setting it does not report (read with a call of
	// its own).
	reported        func(*types.TableDescription) *T
	reportedOfIndex func(*types.GlobalSecondaryIndexDescription) *T
	// toCreate and toCreateIndex put the value into CreateTable and into
	// an index create; nil for a setting with an API of its own.
	toCreate      func(*T, *dynamodb.CreateTableInput)
	toCreateIndex func(*T, *types.CreateGlobalSecondaryIndexAction)
}

// with completes a feature with what the setting says of it: whether a
// spec uses it, how it is desired, observed and hidden, what CreateTable
// carries of it.
func (x indexed[T]) with(f *feature) *feature {
	f.uses, f.desire, f.hide = x.uses, x.desire, x.hide
	if x.reported != nil {
		f.observe = x.observe
	}
	if x.toCreate != nil {
		f.create = func(_ source, want *Table, in *dynamodb.CreateTableInput) { x.toCreate(*x.at(&want.Carried), in) }
		f.createIndex = func(want Index, in *types.CreateGlobalSecondaryIndexAction) {
			x.toCreateIndex(*x.at(&want.Carried), in)
		}
	}
	return f
}

// uses says whether the spec asks for the setting on the table or an index.
func (x indexed[T]) uses(spec *awsv1alpha1.DynamoDBTableSpec) bool {
	return x.wanted(spec) != nil || anyIndex(spec, func(g awsv1alpha1.GlobalSecondaryIndex) bool { return x.wantedOfIndex(&g) != nil })
}

func (x indexed[T]) desire(s source, want *Table) {
	*x.at(&want.Carried) = x.wanted(s.DynamoDBTableSpec)
	for i := range s.GlobalSecondaryIndexes {
		*x.at(&want.GSIs[i].Carried) = x.wantedOfIndex(&s.GlobalSecondaryIndexes[i])
	}
}

func (x indexed[T]) observe(d *types.TableDescription, have *Table) {
	*x.at(&have.Carried) = x.reported(d)
	for i := range d.GlobalSecondaryIndexes {
		*x.at(&have.GSIs[i].Carried) = x.reportedOfIndex(&d.GlobalSecondaryIndexes[i])
	}
}

func (x indexed[T]) hide(have *Table) {
	for _, c := range have.carried() {
		*x.at(c) = nil
	}
}

// change is the step that brings one value of the setting to the spec:
// the table's (index "") or an index's, and the value it leaves; ok is
// false when there is nothing to send.
type change[T any] func(index string, want, have *T) (step Step, after *T, ok bool)

// update plans the table's step, then each kept index's, one call each.
func (x indexed[T]) update(p *planner, c change[T]) {
	if step, after, ok := c("", *x.at(&p.want.Carried), *x.at(&p.cur.Carried)); ok {
		p.add(step)
		*x.at(&p.cur.Carried) = after
	}
	p.keptIndexes(func(i int, want, have Index) {
		if step, after, ok := c(have.Name, *x.at(&want.Carried), *x.at(&have.Carried)); ok {
			p.add(step)
			*x.at(&p.cur.GSIs[i].Carried) = after
		}
	})
}

// sentInUpdate is how UpdateTable sends a value S of a setting (on-demand
// or warm throughput) to the table or to one index: in a field of the same
// name on UpdateTableInput and on an index update, under the step kind
// kind for the table and its index kind (ofIndex) for an index.
type sentInUpdate[S any] struct {
	toTable func(*S, *dynamodb.UpdateTableInput)
	toIndex func(*S, *types.UpdateGlobalSecondaryIndexAction)
	kind    StepKind
	// describe says what the step does to what: "table" or "index NAME".
	describe func(what string, in *S) string
}

// describeReadWrite lists a read and a write value of a step, each as say
// puts it, leaving out one not sent: "reads at most 100/s, no limit on
// writes".
func describeReadWrite(read, write *int64, say func(unit string, v int64) string) string {
	var parts []string
	if read != nil {
		parts = append(parts, say("reads", *read))
	}
	if write != nil {
		parts = append(parts, say("writes", *write))
	}
	return strings.Join(parts, ", ")
}

// step is the UpdateTable step that sends in to the table (index "") or
// to an index.
func (s sentInUpdate[S]) step(p *planner, index string, in *S) Step {
	if index != "" {
		u := types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(index)}
		s.toIndex(in, &u)
		return p.indexStep(s.kind.ofIndex(), s.describe("index "+index, in), u)
	}
	u := p.updateTable()
	s.toTable(in, u)
	return Step{Kind: s.kind, Description: s.describe("table", in), Table: u}
}

// sentSetting is an indexed setting that UpdateTable sends (on-demand or
// warm throughput): where it sits, how UpdateTable sends it, and the
// feature's own rules of what to send.
type sentSetting[T, S any] struct {
	where indexed[T]
	sent  sentInUpdate[S]
	// send is what brings have to want, nil when nothing is to be sent;
	// after is the value that sending in leaves.
	send  func(want, have *T) *S
	after func(have *T, in *S) *T
}

// registered is the setting as the feature name, its steps planned at
// position at by run: the kinds of its steps are the ones UpdateTable
// sends it under.
func (x sentSetting[T, S]) registered(name string, at position, run func(*planner)) *feature {
	return x.where.with(&feature{name: name, kinds: []StepKind{x.sent.kind, x.sent.kind.ofIndex()}, passes: []pass{{at, run}}})
}

// plan plans, for the table and then each kept index, the step that sends
// what send asks for (nothing where it is nil): one call each.
func (x sentSetting[T, S]) plan(p *planner) {
	x.where.update(p, func(index string, want, have *T) (Step, *T, bool) {
		in := x.send(want, have)
		if in == nil {
			return Step{}, nil, false
		}
		return x.sent.step(p, index, in), x.after(have, in), true
	})
}
