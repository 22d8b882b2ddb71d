package plan

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// The table class: STANDARD, unless DescribeTable says otherwise.

// FeatureTableClass names the table class where an endpoint may lack it.
const FeatureTableClass = "tableClass"

// StepTableClass changes the table class.
const StepTableClass StepKind = "TableClass"

func init() {
	register(&feature{
		name:   FeatureTableClass,
		kinds:  []StepKind{StepTableClass},
		uses:   func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return spec.TableClass != "" },
		desire: func(s source, want *Table) { want.TableClass = s.TableClass },
		observe: func(d *types.TableDescription, have *Table) {
			have.TableClass = string(types.TableClassStandard)
			if d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
				have.TableClass = string(d.TableClassSummary.TableClass)
			}
		},
		hide: func(have *Table) { have.TableClass = "" },
		create: func(s source, _ *Table, in *dynamodb.CreateTableInput) {
			in.TableClass = types.TableClass(s.TableClass)
		},
		passes: []pass{{atTableClass, (*planner).updateTableClass}},
	})
}

func (p *planner) updateTableClass() {
	if p.want.TableClass == "" || p.cur.TableClass == "" || p.want.TableClass == p.cur.TableClass {
		return
	}
	in := p.updateTable()
	in.TableClass = types.TableClass(p.want.TableClass)
	p.add(Step{Kind: StepTableClass, Description: "set table class " + p.want.TableClass, Table: in})
	p.cur.TableClass = p.want.TableClass
}
