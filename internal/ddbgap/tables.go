package ddbgap

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

const (
	payPerRequest = "PAY_PER_REQUEST"
	provisioned   = "PROVISIONED"
)

// Default warm throughput of a new on-demand table or index: "New on-demand
// tables start with a warm throughput of 12,000 read units per second and
// 4,000 write units per second" (developerguide/warm-throughput-scenarios.html).
const (
	defaultWarmRead  = 12000
	defaultWarmWrite = 4000
)

func init() {
	register(atTables, &feature{ops: map[string]handler{
		"DescribeTable": (*Server).describeTable,
		"CreateTable":   (*Server).createTable,
		"UpdateTable":   (*Server).updateTable,
		"DeleteTable":   (*Server).deleteTable,
	}})
}

// tableState is what the model keeps of a table beside DynamoDB Local:
// in its fields what the model itself and several features read, in parts
// what a feature keeps of its own (registry.go): point-in-time recovery
// (features.go), contributor insights (insights.go), multi-attribute index
// keys (multikeys.go), Kinesis streaming destinations (kinesis.go), vector
// indexes (vector.go), the import that made the table (imports.go),
// multi-Region strong consistency (mrsc.go).
type tableState struct {
	onDemand map[string]*limits    // "" for the table, else the index name
	warm     map[string]*warmState // likewise
	replicas map[string]*replica   // by Region
	policy   *policyState          // features.go, and a join reads it (multiaccount.go)

	restoringUntil time.Time
	restoreSummary map[string]any

	tags map[string]string // with Options.Tagging

	// protection is the table's own disassociation protection as a global
	// table's member, nil for AWS's default (disassociate.go).
	protection *bool

	// member is the table's place in a multi-account global table
	// (multiaccount.go).
	member *membership

	pace paced // with Options.Pace

	parts map[*int]any // the features' own parts (perTable)

	// replicasHeld is the server's hold on replicas (HoldReplicas).
	replicasHeld *atomic.Bool
}

// newTableState is the state of a table the model has kept nothing of yet.
func (s *Server) newTableState() *tableState {
	return &tableState{onDemand: map[string]*limits{}, warm: map[string]*warmState{}, replicas: map[string]*replica{},
		replicasHeld: &s.replicasHeld}
}

// limits are on-demand request unit caps; 0 is no cap.
type limits struct{ read, write int64 }

type warmState struct {
	read, write int64
	until       time.Time // UPDATING until then
}

type replica struct {
	region, status string
	until          time.Time
	next           string // status after until; "" removes the replica
	fields         map[string]any
	// protection is the replica's disassociation protection, nil for
	// AWS's default (disassociate.go).
	protection *bool
}

// policyState is a table's resource-based policy (features.go).
// PutResourcePolicy and DeleteResourcePolicy are asynchronous: "If you
// issue a GetResourcePolicy request immediately after a PutResourcePolicy
// request, DynamoDB might return your previous policy ... or return the
// PolicyNotFoundException" and just after a delete "might still return the
// deleted policy" (API PutResourcePolicy, DeleteResourcePolicy): the model
// answers the previous state for the next StaleReads calls.
type policyState struct {
	doc, revision string
	prev          *policyState // what stale reads answer (nil: no policy)
	staleLeft     int
}

// membership is a table's place in a multi-account global table
// (multiaccount.go, which keeps it up to date).
type membership struct {
	// source is the source's key (database|name) for a table that joined.
	source string
	// members are, on the source, the tables that joined it, by key.
	members map[string]*member
	// protection is the member's own disassociation protection, nil for
	// AWS's default (on).
	protection *bool
	// settings is the table's GlobalTableSettingsReplicationMode as
	// UpdateTable set it ("" for none).
	settings string
}

// member is a table that joined, as its source sees it.
type member struct {
	region string
	until  time.Time // CREATING until then
}

// state is the model's state of a table as the caller sees it.
func (s *Server) state(r *http.Request, name string) *tableState {
	key := tableKey(r, name)
	st, ok := s.tables[key]
	if !ok {
		st = s.newTableState()
		s.tables[key] = st
	}
	return st
}

// HoldReplicas stops the transitions of every table's replicas and MRSC
// witnesses where they are (CREATING, UPDATING, DELETING stay so) until
// release is called (not a multi-account global table's members, whose
// status is worked out from the clock, multiaccount.go); a transition
// whose time has passed then ends at the next call. A test looks at a
// state AWS keeps for minutes (a replica takes 55 to 70 s to be made,
// mrsc.go) as long as it needs, instead of racing a short Transition.
func (s *Server) HoldReplicas() (release func()) {
	s.replicasHeld.Store(true)
	return func() { s.replicasHeld.Store(false) }
}

// named calls f with the state of every table of that name, whatever its
// database (the hooks below act as AWS would in any account).
func (s *Server) named(name string, f func(*tableState)) {
	for key, st := range s.tables {
		if strings.HasSuffix(key, "|"+name) {
			f(st)
		}
	}
}

// advance finishes the transitions whose time has come, but for the
// replicas' while they are held.
func (st *tableState) advance(now time.Time) {
	held := st.replicasHeld.Load()
	for region, r := range st.replicas {
		if r.until.IsZero() || now.Before(r.until) || held {
			continue
		}
		if r.next == "" {
			delete(st.replicas, region)
			continue
		}
		r.status, r.until = r.next, time.Time{}
	}
	each(func(f *feature) {
		if f.advance != nil {
			f.advance(st, now)
		}
	})
}

// busy says what the table is still doing. "While it's UPDATING, you can't
// issue another UpdateTable request" (API UpdateTable); a replica being
// added, changed or removed keeps the table UPDATING.
//
// The features' own work comes last (an import, a witness): none of it
// runs beside the model's own, which the model refuses to start meanwhile.
func (st *tableState) busy(now time.Time) string {
	if now.Before(st.restoringUntil) {
		return "the table is being restored (CREATING)"
	}
	for _, region := range slices.Sorted(maps.Keys(st.replicas)) {
		if r := st.replicas[region]; !r.until.IsZero() {
			return fmt.Sprintf("replica %s is %s", region, r.status)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(st.warm)) {
		if w := st.warm[name]; now.Before(w.until) {
			return fmt.Sprintf("warm throughput of %q is UPDATING", name)
		}
	}
	why := ""
	each(func(f *feature) {
		if f.busy != nil && why == "" {
			why = f.busy(st, now)
		}
	})
	return why
}

// billingOf reads a table description's billing mode; a table that was
// always PROVISIONED may have no BillingModeSummary (API TableDescription).
func billingOf(t map[string]any) string {
	if b := str(obj(t, "BillingModeSummary"), "BillingMode"); b != "" {
		return b
	}
	if rcu, _ := num(obj(t, "ProvisionedThroughput"), "ReadCapacityUnits"); rcu == 0 {
		return payPerRequest
	}
	return provisioned
}

func (s *Server) describeTable(c *call) (any, error) {
	name := str(c.body, "TableName")
	if view, err := s.pacedView(c, name); view != nil || err != nil {
		return view, err
	}
	out, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overlay(s.state(c.r, name), obj(out, "Table"), region(c.r))
	return out, nil
}

// overlay adds to DynamoDB Local's description what the model keeps.
func (s *Server) overlay(st *tableState, t map[string]any, own string) {
	if t == nil {
		return
	}
	now := time.Now()
	st.advance(now)
	billing := billingOf(t)
	st.pace.report(t, now, s.opts.Pace)
	if now.Before(st.restoringUntil) {
		t["TableStatus"] = "CREATING"
	} else if st.busy(now) != "" && str(t, "TableStatus") == "ACTIVE" {
		t["TableStatus"] = "UPDATING"
	}
	if l := st.onDemand[""]; l != nil && (l.read > 0 || l.write > 0) {
		t["OnDemandThroughput"] = l.json()
	}
	t["WarmThroughput"] = st.warmOf("", billing, obj(t, "ProvisionedThroughput"), now)
	for _, g := range list(t, "GlobalSecondaryIndexes") {
		g := g.(map[string]any)
		name := str(g, "IndexName")
		if l := st.onDemand[name]; l != nil && (l.read > 0 || l.write > 0) {
			g["OnDemandThroughput"] = l.json()
		}
		g["WarmThroughput"] = st.warmOf(name, billing, obj(g, "ProvisionedThroughput"), now)
	}
	if len(st.replicas) > 0 {
		var reps []any
		for _, region := range slices.Sorted(maps.Keys(st.replicas)) {
			r := st.replicas[region]
			d := maps.Clone(r.fields)
			d["RegionName"], d["ReplicaStatus"] = region, r.status
			reps = append(reps, d)
		}
		t["Replicas"] = reps
		t["GlobalTableVersion"] = "2019.11.21"
		t["DisassociationProtectionEnabled"] = st.ownProtection()
	}
	if st.restoreSummary != nil {
		t["RestoreSummary"] = st.restoreSummary
	}
	each(func(f *feature) {
		if f.describe != nil {
			f.describe(s, st, t, now)
		}
	})
	_ = own
}

// ownProtection is a global table's own protection as DescribeTable
// reports it: on by default (disassociate.go).
func (st *tableState) ownProtection() bool { return st.protection == nil || *st.protection }

func (l *limits) json() map[string]any {
	out := map[string]any{}
	if l.read > 0 {
		out["MaxReadRequestUnits"] = l.read
	}
	if l.write > 0 {
		out["MaxWriteRequestUnits"] = l.write
	}
	return out
}

// warmOf is the warm throughput of the table ("") or an index. A provisioned
// table's warm throughput follows its capacity up: "As you increase the
// provisioned throughput beyond these values, the warm throughput will
// automatically adjust to the new higher values" (warm-throughput-scenarios.html).
func (st *tableState) warmOf(name, billing string, pt map[string]any, now time.Time) map[string]any {
	w, ok := st.warm[name]
	if !ok {
		w = &warmState{read: defaultWarmRead, write: defaultWarmWrite}
		if billing == provisioned {
			w.read, w.write = 1, 1
		}
		st.warm[name] = w
	}
	if billing == provisioned {
		rcu, _ := num(pt, "ReadCapacityUnits")
		wcu, _ := num(pt, "WriteCapacityUnits")
		w.read, w.write = max(w.read, rcu), max(w.write, wcu)
	}
	status := "ACTIVE"
	if now.Before(w.until) {
		status = "UPDATING"
	}
	return map[string]any{"ReadUnitsPerSecond": w.read, "WriteUnitsPerSecond": w.write, "Status": status}
}

func (s *Server) createTable(c *call) (any, error) {
	if out, handled, err := s.takeWhole(c, func(f *feature) takeFunc { return f.takeCreate }); handled {
		return out, err
	}
	name := str(c.body, "TableName")
	billing := str(c.body, "BillingMode")
	if billing == "" {
		billing = provisioned
	}
	st := s.newTableState()
	var err error
	each(func(f *feature) {
		if f.create != nil && err == nil {
			err = f.create(s, st, c.body, billing, time.Now())
		}
	})
	if err != nil {
		return nil, err
	}
	settings := []struct {
		name string
		m    map[string]any
	}{{"", c.body}}
	for _, g := range list(c.body, "GlobalSecondaryIndexes") {
		g := g.(map[string]any)
		settings = append(settings, struct {
			name string
			m    map[string]any
		}{str(g, "IndexName"), g})
	}
	for _, x := range settings {
		if odt := obj(x.m, "OnDemandThroughput"); odt != nil {
			if billing != payPerRequest {
				// "Sending it on a PROVISIONED table -> ValidationException"
				// (go-to-k/cdkd #1441, a live probe against AWS).
				return nil, validation("One or more parameter values were invalid: OnDemandThroughput is only allowed for PAY_PER_REQUEST")
			}
			st.onDemand[x.name] = limitsOf(odt, &limits{})
		}
		if wt := obj(x.m, "WarmThroughput"); wt != nil {
			w := &warmState{read: defaultWarmRead, write: defaultWarmWrite}
			if billing == provisioned {
				w.read, w.write = 1, 1
			}
			r, _ := num(wt, "ReadUnitsPerSecond")
			wr, _ := num(wt, "WriteUnitsPerSecond")
			w.read, w.write = max(w.read, r), max(w.write, wr)
			st.warm[x.name] = w
		}
	}
	if err := s.stillDeleting(c, name); err != nil {
		return nil, err
	}
	var gsis []map[string]any
	for _, g := range list(c.body, "GlobalSecondaryIndexes") {
		gsis = append(gsis, g.(map[string]any))
	}
	keep, err := s.indexes(st, c.body, list(c.body, "AttributeDefinitions"), gsis, nil)
	if err != nil {
		return nil, err
	}
	for _, f := range keep {
		f()
	}
	out, err := s.local(c.r, "CreateTable", c.body)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.pace.createdAt = time.Now()
	each(func(f *feature) {
		if f.created != nil {
			f.created(s, st, c.body)
		}
	})
	s.tables[tableKey(c.r, name)] = st
	s.overlay(st, obj(out, "TableDescription"), region(c.r))
	return out, nil
}

// limitsOf applies an OnDemandThroughput input to l: -1 removes a cap, an
// absent field leaves it (API OnDemandThroughput: "-1 ... removes").
func limitsOf(in map[string]any, l *limits) *limits {
	c := *l
	if v, ok := num(in, "MaxReadRequestUnits"); ok {
		c.read = max(v, 0)
	}
	if v, ok := num(in, "MaxWriteRequestUnits"); ok {
		c.write = max(v, 0)
	}
	return &c
}

func (s *Server) deleteTable(c *call) (any, error) {
	name := str(c.body, "TableName")
	s.mu.Lock()
	st := s.state(c.r, name)
	now := time.Now()
	st.advance(now)
	if st.pace.deleting != nil && !st.pace.gone(now) {
		// "If table is already in the DELETING state, no error is
		// returned" (API DeleteTable).
		defer s.mu.Unlock()
		return map[string]any{"TableDescription": clone(st.pace.deleting)}, nil
	}
	if why := st.pace.busy(now, s.opts.Pace); why != "" {
		s.mu.Unlock()
		// "If a table is in CREATING or UPDATING states, then DynamoDB
		// returns a ResourceInUseException" (API DeleteTable).
		return nil, inUse("Attempt to change a resource which is still in use: %s: %s", why, name)
	}
	if why := st.busy(now); why != "" {
		s.mu.Unlock()
		// "If a table is in CREATING or UPDATING states, then DynamoDB
		// returns a ResourceInUseException" (API DeleteTable).
		return nil, inUse("Attempt to change a resource which is still in use: %s", why)
	}
	if refused := s.firstRefusal(st, func(f *feature) func(*Server, *tableState) error { return f.refuseDelete }); refused != nil {
		s.mu.Unlock()
		return nil, refused
	}
	if len(st.replicas) > 0 {
		s.mu.Unlock()
		// AWS's API reference does not say what a DeleteTable of a table
		// with replicas does to them (API DeleteTable,
		// ReplicationGroupUpdate); the model refuses it, so that tests prove the order ACK follows:
		// the replicas one by one, then the table (ACK
		// sdk_delete_pre_build_request.go.tpl).
		return nil, validation("the model refuses DeleteTable while the table has replicas: remove them first")
	}
	s.mu.Unlock()
	out, err := s.local(c.r, "DeleteTable", c.body)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	each(func(f *feature) {
		if f.deleted != nil {
			f.deleted(s, tableKey(c.r, name), st)
		}
	})
	if s.opts.Pace.Delete <= 0 {
		delete(s.tables, tableKey(c.r, name))
		return out, nil
	}
	desc := obj(out, "TableDescription")
	s.overlay(st, desc, region(c.r))
	desc["TableStatus"] = "DELETING"
	st.pace = paced{deleting: clone(desc), deletingUntil: now.Add(s.opts.Pace.Delete)}
	return out, nil
}

// describeAfter is UpdateTable's answer: the table as it is now.
func (s *Server) describeAfter(c *call, name string) (any, bool, error) {
	out, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name})
	if err != nil {
		return nil, true, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overlay(s.state(c.r, name), obj(out, "Table"), region(c.r))
	return map[string]any{"TableDescription": out["Table"]}, true, nil
}

// pacedView is DescribeTable's answer where Options.Pace says it is not
// the truth yet (a table just created, one being deleted, a read within the
// stale window); nil and nil when DynamoDB Local's answer stands.
func (s *Server) pacedView(c *call, name string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := tableKey(c.r, name)
	st, ok := s.tables[key]
	if !ok {
		return nil, nil
	}
	now := time.Now()
	switch {
	case st.pace.gone(now):
		delete(s.tables, key)
	case st.pace.deleting != nil:
		return map[string]any{"Table": clone(st.pace.deleting)}, nil
	case st.pace.unseen(now, s.opts.Pace), st.unseen(now):
		return nil, notFound("ResourceNotFoundException", "Requested resource not found: Table: %s not found", name)
	}
	if view := st.pace.staleView(now); view != nil {
		return map[string]any{"Table": view}, nil
	}
	return nil, nil
}

// stillDeleting refuses a CreateTable of a table that is still DELETING:
// its name is still taken.
func (s *Server) stillDeleting(c *call, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tables[tableKey(c.r, name)]
	if ok && st.pace.deleting != nil && !st.pace.gone(time.Now()) {
		return inUse("Table already exists: %s", name)
	}
	return nil
}

// updateTable applies what DynamoDB Local lacks (replicas, on-demand and
// warm throughput) itself, after checking AWS's rules, and sends the rest of
// the request to DynamoDB Local.
func (s *Server) updateTable(c *call) (any, error) {
	if out, handled, err := s.takeWhole(c, func(f *feature) takeFunc { return f.takeUpdate }); handled {
		return out, err
	}
	name := str(c.body, "TableName")
	cur, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name})
	if err != nil {
		return nil, err
	}
	t := obj(cur, "Table")
	s.mu.Lock()
	st := s.state(c.r, name)
	now := time.Now()
	st.advance(now)
	if why := st.pace.busy(now, s.opts.Pace); why != "" {
		s.mu.Unlock()
		return nil, inUse("Attempt to change a resource which is still in use: %s: %s", why, name)
	}
	if why := st.busy(now); why != "" {
		s.mu.Unlock()
		return nil, inUse("Attempt to change a resource which is still in use: %s", why)
	}
	if index := st.pace.indexInFlux(now); index != "" && changesIndexes(c.body, index) {
		s.mu.Unlock()
		return nil, &apiError{status: 400, code: "LimitExceededException",
			msg: "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"}
	}
	before := clone(t)
	s.overlay(st, before, region(c.r))
	billing := billingOf(t)
	newBilling := billing
	if b := str(c.body, "BillingMode"); b != "" {
		newBilling = b
	}
	rest := maps.Clone(c.body)
	var apply []func()
	fail := func(err error) (any, error) { s.mu.Unlock(); return nil, err }

	for _, f := range features {
		if f == nil || f.update == nil {
			continue
		}
		change, err := f.update(s, st, t, c.body, rest, newBilling, now)
		if err != nil {
			return fail(err)
		}
		apply = append(apply, change)
	}

	if ru := list(c.body, "ReplicaUpdates"); ru != nil {
		f, err := s.replicaUpdate(st, t, ru, newBilling, database(c.r), region(c.r), now)
		if err != nil {
			return fail(err)
		}
		apply = append(apply, f)
		delete(rest, "ReplicaUpdates")
	}
	if odt := obj(c.body, "OnDemandThroughput"); odt != nil {
		if newBilling != payPerRequest {
			return fail(validation("One or more parameter values were invalid: OnDemandThroughput is only allowed for PAY_PER_REQUEST (go-to-k/cdkd #1441)"))
		}
		apply = append(apply, func() { st.onDemand[""] = limitsOf(odt, st.limitsOf("")) })
		delete(rest, "OnDemandThroughput")
	}
	if wt := obj(c.body, "WarmThroughput"); wt != nil {
		f, err := st.raiseWarm("", billing, obj(t, "ProvisionedThroughput"), wt, now, s.opts.Transition)
		if err != nil {
			return fail(err)
		}
		apply = append(apply, f)
		delete(rest, "WarmThroughput")
	}
	var kept []any
	var creates []map[string]any
	var deleted []string
	for _, u := range list(c.body, "GlobalSecondaryIndexUpdates") {
		u := maps.Clone(u.(map[string]any))
		if del := obj(u, "Delete"); del != nil {
			deleted = append(deleted, str(del, "IndexName"))
		}
		if up := obj(u, "Update"); up != nil {
			up = maps.Clone(up)
			index := str(up, "IndexName")
			g := indexOf(t, index)
			if g == nil {
				return fail(notFound("ResourceNotFoundException", "Requested resource not found: index %s", index))
			}
			if odt := obj(up, "OnDemandThroughput"); odt != nil {
				if newBilling != payPerRequest {
					return fail(validation("One or more parameter values were invalid: OnDemandThroughput is only allowed for PAY_PER_REQUEST"))
				}
				apply = append(apply, func() { st.onDemand[index] = limitsOf(odt, st.limitsOf(index)) })
				delete(up, "OnDemandThroughput")
			}
			if wt := obj(up, "WarmThroughput"); wt != nil {
				f, err := st.raiseWarm(index, billing, obj(g, "ProvisionedThroughput"), wt, now, s.opts.Transition)
				if err != nil {
					return fail(err)
				}
				apply = append(apply, f)
				delete(up, "WarmThroughput")
			}
			if len(up) == 1 {
				continue // nothing left for DynamoDB Local
			}
			u["Update"] = up
		}
		if cr := obj(u, "Create"); cr != nil {
			cr = maps.Clone(cr)
			index := str(cr, "IndexName")
			if odt := obj(cr, "OnDemandThroughput"); odt != nil {
				apply = append(apply, func() { st.onDemand[index] = limitsOf(odt, &limits{}) })
				delete(cr, "OnDemandThroughput")
			}
			if wt := obj(cr, "WarmThroughput"); wt != nil {
				r, _ := num(wt, "ReadUnitsPerSecond")
				w, _ := num(wt, "WriteUnitsPerSecond")
				apply = append(apply, func() {
					st.warm[index] = &warmState{read: max(r, defaultWarmRead), write: max(w, defaultWarmWrite)}
				})
				delete(cr, "WarmThroughput")
			}
			u["Create"] = cr
			creates = append(creates, cr)
		}
		kept = append(kept, u)
	}
	keep, err := s.indexes(st, rest, list(c.body, "AttributeDefinitions"), creates, deleted)
	if err != nil {
		return fail(err)
	}
	apply = append(apply, keep...)
	delete(rest, "GlobalSecondaryIndexUpdates")
	if len(kept) > 0 {
		rest["GlobalSecondaryIndexUpdates"] = kept
	}
	if billing != provisioned && newBilling == provisioned {
		// "a flip to PROVISIONED drops GSI caps and flipping back does not
		// restore them" (go-to-k/cdkd #3403, a live probe against AWS).
		apply = append(apply, func() { st.onDemand = map[string]*limits{} })
	}
	s.mu.Unlock()

	if changesLeft(rest) {
		if _, err := s.local(c.r, "UpdateTable", rest); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	for _, f := range apply {
		f()
	}
	st.pace.accepted(before, list(c.body, "GlobalSecondaryIndexUpdates"), now, s.opts.Pace)
	s.mu.Unlock()
	out, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overlay(st, obj(out, "Table"), region(c.r))
	return map[string]any{"TableDescription": out["Table"]}, nil
}

func (st *tableState) limitsOf(name string) *limits {
	if l := st.onDemand[name]; l != nil {
		return l
	}
	return &limits{}
}

// raiseWarm checks a warm throughput update: "You can increase the warm
// throughput value" only; updates are asynchronous, UPDATING then ACTIVE
// (developerguide/update-warm-throughput.html).
func (st *tableState) raiseWarm(name, billing string, pt, in map[string]any, now time.Time, transition time.Duration) (func(), error) {
	cur := st.warmOf(name, billing, pt, now)
	haveR, _ := num(cur, "ReadUnitsPerSecond")
	haveW, _ := num(cur, "WriteUnitsPerSecond")
	r, hasR := num(in, "ReadUnitsPerSecond")
	w, hasW := num(in, "WriteUnitsPerSecond")
	if !hasR && !hasW {
		return nil, validation("WarmThroughput needs ReadUnitsPerSecond or WriteUnitsPerSecond")
	}
	if (hasR && r < haveR) || (hasW && w < haveW) {
		return nil, validation("One or more parameter values were invalid: warm throughput can only be increased (current %d/%d)", haveR, haveW)
	}
	if (!hasR || r == haveR) && (!hasW || w == haveW) {
		return nil, validation("The provisioned warm throughput will not change")
	}
	return func() {
		ws := st.warm[name]
		if hasR {
			ws.read = r
		}
		if hasW {
			ws.write = w
		}
		ws.until = now.Add(transition)
	}, nil
}

func indexOf(t map[string]any, name string) map[string]any {
	for _, g := range list(t, "GlobalSecondaryIndexes") {
		if g := g.(map[string]any); str(g, "IndexName") == name {
			return g
		}
	}
	return nil
}

// changesLeft says whether an UpdateTable request still asks DynamoDB Local
// for anything.
func changesLeft(in map[string]any) bool {
	for k, v := range in {
		switch k {
		case "TableName", "AttributeDefinitions":
			continue
		}
		if v != nil {
			return true
		}
	}
	return false
}

// replicaUpdate checks one ReplicaUpdates request against AWS's rules and
// returns how to apply it.
func (s *Server) replicaUpdate(st *tableState, t map[string]any, updates []any, billing, db, own string, now time.Time) (func(), error) {
	if len(updates) != 1 {
		// AWS recommends "separate requests for adding or removing
		// replicas" (API UpdateGlobalTable) and ACK sends one action per
		// UpdateTable (hooks_replica_updates.go); the model holds Tether to it.
		return nil, validation("the model accepts one replica action per UpdateTable, got %d", len(updates))
	}
	u := updates[0].(map[string]any)
	until := now.Add(s.opts.Transition)
	switch {
	case obj(u, "Create") != nil:
		in := obj(u, "Create")
		region := str(in, "RegionName")
		if region == own {
			return nil, validation("One or more parameter values were invalid: cannot add a replica in the table's own region %s", region)
		}
		if _, ok := st.replicas[region]; ok {
			return nil, validation("Failed to create a the new replica of table with name: %s because one or more replicas already existed as tables", region)
		}
		stream := obj(t, "StreamSpecification")
		if stream["StreamEnabled"] != true || str(stream, "StreamViewType") != "NEW_AND_OLD_IMAGES" {
			// A version 2019.11.21 replica needs the stream with new and
			// old images (ACK terminal error "Version 2019.11.21
			// TableUpdate API requirement"; developerguide
			// V2globaltables_reqs_bestpractices.html).
			return nil, validation("Table write capacity should either be Pay-Per-Request or AutoScaled, and streams must be enabled with NEW_AND_OLD_IMAGES")
		}
		if billing == provisioned && !s.writeScaled(db, t) {
			// "you must either use on-demand capacity or enable
			// autoscaling" (developerguide V2globaltables_reqs_bestpractices.html).
			return nil, validation("Table write capacity should either be Pay-Per-Request or AutoScaled")
		}
		fields := replicaFields(in)
		return func() {
			st.replicas[region] = &replica{region: region, status: "CREATING", until: until, next: "ACTIVE", fields: fields}
		}, nil
	case obj(u, "Update") != nil:
		in := obj(u, "Update")
		region := str(in, "RegionName")
		r, ok := st.replicas[region]
		if !ok || r.status != "ACTIVE" {
			return nil, validation("Replica specified in the Replica Update or Replica Delete action of the request was not found or is not ACTIVE: %s", region)
		}
		fields := replicaFields(in)
		return func() {
			maps.Copy(r.fields, fields)
			r.status, r.until, r.next = "UPDATING", until, "ACTIVE"
		}, nil
	case obj(u, "Delete") != nil:
		region := str(obj(u, "Delete"), "RegionName")
		r, ok := st.replicas[region]
		if !ok || r.status == "DELETING" {
			return nil, validation("Replica specified in the Replica Update or Replica Delete action of the request was not found: %s", region)
		}
		return func() { r.status, r.until, r.next = "DELETING", until, "" }, nil
	}
	return nil, validation("a replica update needs Create, Update or Delete")
}

// replicaFields are the parts of a replica action that DescribeTable
// reports back (ReplicaDescription).
func replicaFields(in map[string]any) map[string]any {
	out := map[string]any{}
	if v := str(in, "KMSMasterKeyId"); v != "" {
		out["KMSMasterKeyId"] = "arn:aws:kms:" + str(in, "RegionName") + ":000000000000:key/" + v
	}
	if v := str(in, "TableClassOverride"); v != "" {
		out["ReplicaTableClassSummary"] = map[string]any{"TableClass": v}
	}
	for _, k := range []string{"ProvisionedThroughputOverride", "OnDemandThroughputOverride", "GlobalSecondaryIndexes"} {
		if v, ok := in[k]; ok {
			out[k] = v
		}
	}
	return out
}

// SetWarmThroughput raises a table's ("" index) or index's warm throughput
// the way DynamoDB does by itself as traffic grows: "DynamoDB will
// automatically adjust warm throughput values as your usage increases"
// (developerguide/warm-throughput.html).
func (s *Server) SetWarmThroughput(table, index string, read, write int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.named(table, func(st *tableState) {
		w, ok := st.warm[index]
		if !ok {
			w = &warmState{read: defaultWarmRead, write: defaultWarmWrite}
			st.warm[index] = w
		}
		w.read, w.write = max(w.read, read), max(w.write, write)
	})
}

// DropReplica removes a replica as if deleted in that Region's console.
func (s *Server) DropReplica(table, region string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.named(table, func(st *tableState) { delete(st.replicas, region) })
}

// SetReplicaStatus sets a replica's status as AWS would report a problem in
// its Region (CREATION_FAILED, REGION_DISABLED, ...).
func (s *Server) SetReplicaStatus(table, region, status, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.named(table, func(st *tableState) {
		if r, ok := st.replicas[region]; ok {
			r.status, r.until = status, time.Time{}
			r.fields["ReplicaStatusDescription"] = description
		}
	})
}
