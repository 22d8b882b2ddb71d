package plan

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stepGate says what AWS is still doing that a step must wait for, by
// kind of step.
type stepGate struct {
	// all holds every step: the table is not ACTIVE, an index is being
	// deleted or allocated, a replica is changing.
	all string
	// indexes holds index creates and deletes only (vector indexes' too):
	// an index backfills.
	// "After the index begins backfilling, you can use UpdateTable to
	// perform other operations" (API UpdateTable), but not another index
	// create or delete, which AWS refuses with "Only 1 online index can be
	// created or deleted simultaneously per table" (LimitExceededException,
	// reported in architect/architect#334).
	indexes string
}

// gate reads what holds the steps of a plan from the table as read.
func (t *Table) gate() stepGate {
	var g stepGate
	if t.Status != string(types.TableStatusActive) {
		g.all = fmt.Sprintf("table is %s", t.Status)
		return g
	}
	for _, ix := range t.GSIs {
		switch {
		case ix.Status == "" || ix.Status == string(types.IndexStatusActive):
		case ix.Status == string(types.IndexStatusCreating) && ix.Backfilling:
			if g.indexes == "" {
				g.indexes = fmt.Sprintf("index %s is backfilling", ix.Name)
			}
		default:
			g.all = fmt.Sprintf("index %s is %s", ix.Name, ix.Status)
			return g
		}
	}
	g.all = featuresBusy(t)
	return g
}

// busy says what AWS is still doing to the table, "" when it is idle.
func (t *Table) busy() string {
	if t.Status != string(types.TableStatusActive) {
		return fmt.Sprintf("table is %s", t.Status)
	}
	for _, ix := range t.GSIs {
		if ix.Status != "" && ix.Status != string(types.IndexStatusActive) {
			return fmt.Sprintf("index %s is %s", ix.Name, ix.Status)
		}
	}
	return featuresBusy(t)
}

// holds says what step waits for, "" when it may go now.
func (g stepGate) holds(step Step) string {
	if g.all != "" {
		return g.all
	}
	if step.Kind == StepCreateIndex || step.Kind == StepDeleteIndex || isVectorStep(step.Kind) {
		return g.indexes
	}
	return ""
}
