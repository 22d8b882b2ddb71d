package ddbgap

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Pace makes the model as slow and as forgetful as AWS says DynamoDB is.
// DynamoDB Local answers at once and reads its own writes; AWS does
// neither, and Tether must not fight it (docs/dynamodb.md, "AWS's pace").
// Each field is off at zero. The durations in AWS are seconds to minutes
// (an index backfill: hours); tests scale them down.
type Pace struct {
	// Create is how long a new table stays CREATING, its indexes with it:
	// "Upon receiving a CreateTable request, DynamoDB immediately returns a
	// response with a TableStatus of CREATING. After the table is created,
	// DynamoDB sets the TableStatus to ACTIVE" (API CreateTable).
	Create time.Duration
	// Unseen is how long after CreateTable DescribeTable still answers
	// ResourceNotFoundException: "If you issue a DescribeTable request
	// immediately after a CreateTable request, DynamoDB might return a
	// ResourceNotFoundException. This is because DescribeTable uses an
	// eventually consistent query" (API DescribeTable).
	Unseen time.Duration
	// Update is how long a table stays UPDATING after an UpdateTable: "while
	// it's executing, the table status changes from ACTIVE to UPDATING.
	// While it's UPDATING, you can't issue another UpdateTable request"
	// (API UpdateTable). A new index's resource allocation is this phase:
	// CREATING with Backfilling false, when "you can't delete the index"
	// (API GlobalSecondaryIndexDescription).
	Update time.Duration
	// Backfill is how long an index created by UpdateTable then stays
	// CREATING with Backfilling true while the table is ACTIVE: "After the
	// index begins backfilling, you can use UpdateTable to perform other
	// operations" (API UpdateTable), but not another index create or
	// delete, which AWS refuses with "Only 1 online index can be created or
	// deleted simultaneously per table" (LimitExceededException, reported
	// from AWS in architect/architect#334 and noppoMan/npdynamodb#29).
	Backfill time.Duration
	// Delete is how long a deleted table stays DELETING: "After a
	// DeleteTable request, the specified table is in the DELETING state
	// until DynamoDB completes the deletion ... If table is already in the
	// DELETING state, no error is returned" (API DeleteTable).
	Delete time.Duration
	// Stale is how long after an accepted UpdateTable DescribeTable still
	// answers the table as it was before (its query is "eventually
	// consistent", API DescribeTable), and after TagResource or
	// UntagResource ListTagsOfResource the tags before ("might return your
	// previous tag set ... ListTagsOfResource API will only reflect the
	// changes after a few seconds", API TagResource). Every read in the
	// window is stale: the worst case AWS allows, and the one tests need.
	Stale time.Duration
	// TTLCooldown is how long after an accepted UpdateTimeToLive another is
	// refused: "It can take up to one hour for the change to fully process.
	// Any additional UpdateTimeToLive calls for the same table during this
	// one hour duration result in a ValidationException" (API
	// UpdateTimeToLive), worded "Time to live has been modified multiple
	// times within a fixed interval" (aws/aws-cdk#13720).
	TTLCooldown time.Duration
}

func init() {
	register(atPace, &feature{ops: map[string]handler{"UpdateTimeToLive": (*Server).updateTimeToLive}})
}

// paced is what the model keeps of a table for Options.Pace.
type paced struct {
	createdAt     time.Time
	updatingUntil time.Time
	// building are indexes UpdateTable created, by name: CREATING until
	// activeAt, backfilling from backfillAt.
	building map[string]indexBuild
	// dropping are indexes UpdateTable deleted (DynamoDB Local dropped them
	// at once), reported DELETING until their time.
	dropping map[string]droppedIndex
	// stale is what DescribeTable answers until staleUntil; staleTags what
	// ListTagsOfResource answers until staleTagsUntil.
	stale          map[string]any
	staleUntil     time.Time
	staleTags      map[string]string
	staleTagsUntil time.Time
	// deleting is the table as DescribeTable reports it, DELETING, until
	// deletingUntil; DynamoDB Local dropped it at once.
	deleting      map[string]any
	deletingUntil time.Time
	ttlAt         time.Time
}

type indexBuild struct{ backfillAt, activeAt time.Time }

type droppedIndex struct {
	desc  map[string]any
	until time.Time
}

func (p *paced) creating(now time.Time, pace Pace) bool {
	return !p.createdAt.IsZero() && now.Before(p.createdAt.Add(pace.Create))
}

func (p *paced) unseen(now time.Time, pace Pace) bool {
	return !p.createdAt.IsZero() && now.Before(p.createdAt.Add(pace.Unseen))
}

func (p *paced) gone(now time.Time) bool { return p.deleting != nil && !now.Before(p.deletingUntil) }

// busy is what the table is still doing that refuses an UpdateTable or a
// DeleteTable (ResourceInUseException), "" when nothing.
func (p *paced) busy(now time.Time, pace Pace) string {
	switch {
	case p.deleting != nil && now.Before(p.deletingUntil):
		return "Table is being deleted"
	case p.creating(now, pace):
		return "Table is being created"
	case now.Before(p.updatingUntil):
		return "Table is being updated"
	}
	return ""
}

// indexInFlux names an index being created or deleted, "" when none: only
// one at a time per table.
func (p *paced) indexInFlux(now time.Time) string {
	for _, name := range slices.Sorted(maps.Keys(p.building)) {
		if now.Before(p.building[name].activeAt) {
			return name
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.dropping)) {
		if now.Before(p.dropping[name].until) {
			return name
		}
	}
	return ""
}

// report applies the pace to a description of the table as DynamoDB Local
// gave it.
func (p *paced) report(t map[string]any, now time.Time, pace Pace) {
	switch {
	case p.creating(now, pace):
		t["TableStatus"] = "CREATING"
	case now.Before(p.updatingUntil):
		t["TableStatus"] = "UPDATING"
	}
	for _, g := range list(t, "GlobalSecondaryIndexes") {
		g := g.(map[string]any)
		if p.creating(now, pace) {
			g["IndexStatus"] = "CREATING"
			continue
		}
		b, ok := p.building[str(g, "IndexName")]
		if !ok || !now.Before(b.activeAt) {
			continue
		}
		g["IndexStatus"], g["Backfilling"] = "CREATING", !now.Before(b.backfillAt)
	}
	for _, name := range slices.Sorted(maps.Keys(p.dropping)) {
		if d := p.dropping[name]; now.Before(d.until) && indexOf(t, name) == nil {
			t["GlobalSecondaryIndexes"] = append(list(t, "GlobalSecondaryIndexes"), clone(d.desc))
		}
	}
}

// accepted notes an UpdateTable AWS took, with the table as it was
// reported just before (for the stale window), and its index actions.
func (p *paced) accepted(before map[string]any, updates []any, now time.Time, pace Pace) {
	p.updatingUntil = now.Add(pace.Update)
	if pace.Stale > 0 {
		p.stale, p.staleUntil = clone(before), now.Add(pace.Stale)
	}
	for _, u := range updates {
		u, _ := u.(map[string]any)
		if cr := obj(u, "Create"); cr != nil {
			if p.building == nil {
				p.building = map[string]indexBuild{}
			}
			p.building[str(cr, "IndexName")] = indexBuild{backfillAt: p.updatingUntil, activeAt: p.updatingUntil.Add(pace.Backfill)}
		}
		if del := obj(u, "Delete"); del != nil {
			name := str(del, "IndexName")
			if _, building := p.building[name]; building {
				delete(p.building, name)
			}
			if desc := indexOf(before, name); desc != nil {
				if p.dropping == nil {
					p.dropping = map[string]droppedIndex{}
				}
				d := clone(desc)
				d["IndexStatus"] = "DELETING"
				p.dropping[name] = droppedIndex{desc: d, until: p.updatingUntil}
			}
		}
	}
}

// staleView is what DescribeTable answers now instead of the truth, nil
// when the truth.
func (p *paced) staleView(now time.Time) map[string]any {
	if p.stale != nil && now.Before(p.staleUntil) {
		return clone(p.stale)
	}
	return nil
}

// clone deep-copies decoded JSON.
func clone(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// changesIndexes says whether an UpdateTable creates or deletes an index
// other than a backfilling one being deleted: "You can delete an index that
// is being created during the Backfilling phase" (API
// GlobalSecondaryIndexDescription).
func changesIndexes(body map[string]any, inFlux string) bool {
	for _, u := range list(body, "GlobalSecondaryIndexUpdates") {
		u, _ := u.(map[string]any)
		if obj(u, "Create") != nil {
			return true
		}
		if del := obj(u, "Delete"); del != nil && str(del, "IndexName") != inFlux {
			return true
		}
	}
	return false
}

// updateTimeToLive goes to DynamoDB Local unless AWS would refuse it: the
// table is not ACTIVE ("ResourceInUseException: The operation conflicts
// with the resource's availability", API UpdateTimeToLive), or within
// Pace.TTLCooldown of the last accepted one.
func (s *Server) updateTimeToLive(c *call) (any, error) {
	name := str(c.body, "TableName")
	s.mu.Lock()
	st := s.state(c.r, name)
	now := time.Now()
	if why := st.pace.busy(now, s.opts.Pace); why != "" && why != "Table is being updated" {
		s.mu.Unlock()
		return nil, inUse("Attempt to change a resource which is still in use: %s: %s", why, name)
	}
	if cool := s.opts.Pace.TTLCooldown; cool > 0 && !st.pace.ttlAt.IsZero() && now.Before(st.pace.ttlAt.Add(cool)) {
		s.mu.Unlock()
		return nil, validation("Time to live has been modified multiple times within a fixed interval")
	}
	if spec := obj(c.body, "TimeToLiveSpecification"); spec["Enabled"] == true {
		if refused := s.firstRefusal(st, func(f *feature) func(*Server, *tableState) error { return f.refuseTTL }); refused != nil {
			s.mu.Unlock()
			return nil, refused
		}
	}
	s.mu.Unlock()
	out, err := s.local(c.r, "UpdateTimeToLive", c.body)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	st.pace.ttlAt = now
	s.mu.Unlock()
	return out, nil
}
