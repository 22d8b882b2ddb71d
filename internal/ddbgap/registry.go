package ddbgap

import (
	"fmt"
	"time"
)

// feature is one part of the model as the rest knows it: the calls it
// answers and what it does when a table is created, described, updated or
// deleted. Each has a file of its own that registers it once, in init,
// with what it needs of the rest (Tether's planner does the same,
// providers/dynamodb/plan/feature.go); every part is optional. tables.go
// and server.go name no feature: they run the parts of every feature of a
// kind in the order of the features' positions (below).
type feature struct {
	// ops answer DynamoDB's operations by name (X-Amz-Target
	// DynamoDB_20120810.<Op>), scalingOps Application Auto Scaling's
	// (AnyScaleFrontendService.<Op>). only, when set, says whether the
	// model answers them with these options; when not, DynamoDB Local does.
	ops, scalingOps map[string]handler
	only            func(Options) bool
	// defaults fills in the feature's defaults of the options (New).
	defaults func(*Options)

	// takeCreate and takeUpdate answer the CreateTable and UpdateTable
	// calls the feature takes whole (a join, a disassociation, strong
	// consistency); handled is false for any other call.
	takeCreate, takeUpdate func(s *Server, c *call) (out any, handled bool, err error)
	// create checks the feature's part of a CreateTable before anything
	// else of it is checked, keeps it in the new table's st, and takes out
	// of body what DynamoDB Local would refuse.
	create func(s *Server, st *tableState, body map[string]any, billing string, now time.Time) error
	// indexes checks the global secondary indexes a CreateTable or
	// UpdateTable creates (creates, which are in body, what DynamoDB Local
	// gets; defs the call's AttributeDefinitions) and deletes, rewrites
	// them for DynamoDB Local, and returns how to keep them (nil: nothing
	// to keep).
	indexes func(st *tableState, body map[string]any, defs []any, creates []map[string]any, deleted []string) (func(), error)
	// created keeps what a CreateTable asks of the new table once DynamoDB
	// Local made it. s.mu held.
	created func(s *Server, st *tableState, body map[string]any)
	// update checks the feature's part of an UpdateTable against the
	// table t as DynamoDB Local describes it, takes it out of rest (what
	// DynamoDB Local gets) and returns how to apply it. s.mu held.
	update func(s *Server, st *tableState, t, body, rest map[string]any, billing string, now time.Time) (func(), error)
	// writeScaled says whether the write capacity of the table t and of
	// each of its indexes scales by itself in the database db. s.mu held.
	writeScaled func(s *Server, db string, t map[string]any) bool
	// refuseDelete says why a DeleteTable is refused (nil: it is not);
	// deleted forgets a deleted table, by its key. s.mu held.
	refuseDelete func(s *Server, st *tableState) error
	deleted      func(s *Server, key string, st *tableState)
	// refuseTTL says why an UpdateTimeToLive that turns Time to Live on
	// is refused (nil: it is not). s.mu held.
	refuseTTL func(s *Server, st *tableState) error
	// advance finishes the feature's transitions whose time has come;
	// busy says what the feature is still doing to the table, "" when
	// nothing (no UpdateTable meanwhile); unseen says whether DescribeTable
	// does not find the table yet; describe adds what the feature keeps to
	// a description of the table, after the model's own part. s.mu held.
	advance  func(st *tableState, now time.Time)
	busy     func(st *tableState, now time.Time) string
	unseen   func(st *tableState, now time.Time) bool
	describe func(s *Server, st *tableState, t map[string]any, now time.Time)
	// disassociate answers the disassociation (dis, the Disassociate
	// action) or the disassociation protection (dis nil) of a table the
	// feature keeps (disassociate.go has checked the call's shape);
	// handled is false for any other table.
	disassociate func(s *Server, c *call, dis map[string]any) (out any, handled bool, err error)
}

// handler answers one operation.
type handler func(s *Server, c *call) (any, error)

// position is where a feature's parts run among the others' of their kind.
// The order matters where two features could answer or change the same
// thing:
//   - the UpdateTable calls taken whole are tried settings replication
//     first, then disassociation, then strong consistency (each refuses a
//     call that asks anything else);
//   - a strongly consistent table refuses a DeleteTable, and hides its
//     members from a description while they are not listed, before the
//     multi-account membership has its say;
//   - a description gets the multi-attribute index keys before the vector
//     indexes' attribute definitions.
const (
	atTables              position = iota // tables.go: what DynamoDB Local has
	atPace                                // pace.go
	atIndexKeys                           // multikeys.go
	atVectors                             // vector.go
	atBackups                             // features.go: continuous backups, policies, backups, restores
	atTags                                // tags.go
	atInsights                            // insights.go
	atKinesis                             // kinesis.go
	atImports                             // imports.go
	atAutoScaling                         // autoscaling.go
	atSettingsReplication                 // multiaccount.go: GlobalTableSettingsReplicationMode
	atDisassociation                      // disassociate.go
	atStrong                              // mrsc.go
	atMembership                          // multiaccount.go: joining another account's table
	positions                             // how many there are
)

type position int

// features are the registered features, in the order of their positions.
var features [positions]*feature

// register adds a feature at its position. Two features at one position,
// or two answering one operation, are a programming error.
func register(at position, f *feature) {
	if features[at] != nil {
		panic(fmt.Sprintf("ddbgap: two features at position %d", at))
	}
	for _, other := range features {
		for op := range f.ops {
			if other != nil && other.ops[op] != nil {
				panic("ddbgap: two features answer " + op)
			}
		}
		for op := range f.scalingOps {
			if other != nil && other.scalingOps[op] != nil {
				panic("ddbgap: two features answer " + op)
			}
		}
	}
	features[at] = f
}

// each calls do with every registered feature, in order.
func each(do func(f *feature)) {
	for _, f := range features {
		if f != nil {
			do(f)
		}
	}
}

// firstRefusal is the refusal of the first feature whose hook (the part
// of it part picks) refuses st, nil when none does. s.mu held.
func (s *Server) firstRefusal(st *tableState, part func(*feature) func(*Server, *tableState) error) error {
	var refused error
	each(func(f *feature) {
		if hook := part(f); hook != nil && refused == nil {
			refused = hook(s, st)
		}
	})
	return refused
}

// handlerOf is the answer of the feature that answers op (of Application
// Auto Scaling when scaling), nil when none does: DynamoDB Local answers.
func (s *Server) handlerOf(op string, scaling bool) func(*call) (any, error) {
	for _, f := range features {
		if f == nil || (f.only != nil && !f.only(s.opts)) {
			continue
		}
		ops := f.ops
		if scaling {
			ops = f.scalingOps
		}
		if h := ops[op]; h != nil {
			return func(c *call) (any, error) { return h(s, c) }
		}
	}
	return nil
}

// A feature's own state of each table, and of the server, is a part kept
// beside the model's (tableState.parts, Server.parts), which perTable and
// perServer give it.

// perTable gives a feature a state of its own in every table: the function
// it returns is the table's, a T made (then passed to made, if set) the
// first time it is asked. Called with s.mu held, or on a table not yet
// kept.
func perTable[T any](made func(*T)) func(*tableState) *T {
	key := new(int)
	return func(st *tableState) *T {
		if v, ok := st.parts[key]; ok {
			return v.(*T)
		}
		v := new(T)
		if made != nil {
			made(v)
		}
		if st.parts == nil {
			st.parts = map[*int]any{}
		}
		st.parts[key] = v
		return v
	}
}

// serverParts make the features' own states of a new server.
var serverParts []func(s *Server)

// perServer gives a feature a state of its own in the server: the
// function it returns is the server's, a T made (then passed to made, if
// set) by New.
func perServer[T any](made func(*T)) func(*Server) *T {
	key := new(int)
	serverParts = append(serverParts, func(s *Server) {
		v := new(T)
		if made != nil {
			made(v)
		}
		s.parts[key] = v
	})
	return func(s *Server) *T { return s.parts[key].(*T) }
}

// takeFunc is a feature's takeCreate or takeUpdate.
type takeFunc func(s *Server, c *call) (out any, handled bool, err error)

// takeWhole is the answer of the first feature that takes the call whole
// (part picks which of its parts tries); handled is false when none does.
func (s *Server) takeWhole(c *call, part func(f *feature) takeFunc) (out any, handled bool, err error) {
	for _, f := range features {
		if f == nil || part(f) == nil {
			continue
		}
		if out, handled, err := part(f)(s, c); handled {
			return out, true, err
		}
	}
	return nil, false, nil
}

// indexes runs every feature's indexes part; keep is how to keep what they
// found.
func (s *Server) indexes(st *tableState, body map[string]any, defs []any, creates []map[string]any, deleted []string) (keep []func(), err error) {
	for _, f := range features {
		if f == nil || f.indexes == nil {
			continue
		}
		k, err := f.indexes(st, body, defs, creates, deleted)
		if err != nil {
			return nil, err
		}
		if k != nil {
			keep = append(keep, k)
		}
	}
	return keep, nil
}

// writeScaled says whether a feature scales the write capacity of the
// table t and of each of its indexes. s.mu held.
func (s *Server) writeScaled(db string, t map[string]any) bool {
	for _, f := range features {
		if f != nil && f.writeScaled != nil && f.writeScaled(s, db, t) {
			return true
		}
	}
	return false
}

// unseen says whether a feature hides the table from DescribeTable yet.
func (st *tableState) unseen(now time.Time) bool {
	for _, f := range features {
		if f != nil && f.unseen != nil && f.unseen(st, now) {
			return true
		}
	}
	return false
}
