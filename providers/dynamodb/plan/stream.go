package plan

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The table's stream: always managed, an absent streamSpecification means
// no stream.

// StepStream turns the stream on or off.
const StepStream StepKind = "Stream"

func init() {
	register(&feature{
		kinds: []StepKind{StepStream},
		desire: func(s source, want *Table) {
			if st := s.StreamSpecification; st != nil {
				want.Stream = st.StreamViewType
			}
		},
		observe: func(d *types.TableDescription, have *Table) {
			if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
				have.Stream = string(s.StreamViewType)
			}
		},
		create: func(s source, _ *Table, in *dynamodb.CreateTableInput) {
			if st := s.StreamSpecification; st != nil {
				in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(st.StreamViewType)}
			}
		},
		passes: []pass{{atStream, (*planner).updateStream}},
	})
}

// updateStream turns the stream on or off. A different view type needs the
// old stream turned off first: AWS refuses to change it on an enabled stream.
func (p *planner) updateStream() {
	if p.want.Stream == p.cur.Stream {
		return
	}
	if p.cur.Stream != "" {
		in := p.updateTable()
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(false)}
		p.add(Step{Kind: StepStream, Description: "disable stream", Table: in})
		p.cur.Stream = ""
	}
	if p.want.Stream != "" {
		in := p.updateTable()
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(p.want.Stream)}
		p.add(Step{Kind: StepStream, Description: "enable stream " + p.want.Stream, Table: in})
		p.cur.Stream = p.want.Stream
	}
}
