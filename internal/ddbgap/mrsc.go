package ddbgap

import (
	"maps"
	"slices"
	"time"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Multi-Region strong consistency (MRSC) global tables and their witness,
// which DynamoDB Local lacks: it answers "Nothing to update" to
// MultiRegionConsistency, ReplicaUpdates or GlobalTableWitnessUpdates
// alone, and ignores them beside a real change (measured on DynamoDB Local
// 3.3.1). The parameters are the SDK's (aws-sdk-go-v2 service/dynamodb
// UpdateTableInput.MultiRegionConsistency, GlobalTableWitnessUpdates of at
// most one element; DescribeTable TableDescription.MultiRegionConsistency,
// GlobalTableWitnesses with their WitnessStatus CREATING, ACTIVE or
// DELETING). The rules, and AWS's words for each refusal, are those ACK's
// live probes of AWS recorded (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md, findings DDB-TABLE-257, -258,
// -260 and -202; docs/api-quirks/details/DDB-TABLE-257.md):
//   - a STRONG global table is made of a single-Region table in ONE
//     UpdateTable: MultiRegionConsistency STRONG with two ReplicaUpdates
//     Create, or one Create and one witness Create (-257, -258); one
//     replica alone is refused, a witness without STRONG, in a replica's or
//     the table's Region, in us-west-1, two witnesses, and any other field
//     in the call (-257);
//   - STRONG cannot be applied to an existing EVENTUAL global table (-202);
//     and the SDK's documentation says the table must be empty
//     (developerguide GlobalTables.md; AWS's words are not on record, the
//     model's are its own);
//   - "Time to Live (TTL) is not supported for MRSC global tables" and
//     "Local secondary indexes (LSIs) are not supported for MRSC global
//     tables" (developerguide V2globaltables_HowItWorks.html): a table with
//     either is not made STRONG, and Time to Live is not turned on for a
//     STRONG table (AWS's words are not on record, the model's are its
//     own);
//   - frozen afterwards: adding a replica, deleting one replica, any
//     MultiRegionConsistency, STRONG beside a Delete and a DeleteTable are
//     refused (-260). The one way out is one UpdateTable that deletes every
//     replica and the witness: the table is then a single-Region table
//     (55 to 70 s on AWS, one Options.Transition here);
//   - the members become ACTIVE in 16 s (two replicas) to 86 s (a replica
//     and a witness) on AWS, DescribeTable listing none of them for the
//     first 5 to 32 s while the table is UPDATING, and the call's answer
//     already says STRONG (-258): here ACTIVE after one Options.Transition
//     and unlisted for its first third;
//   - AWS echoes MultiRegionConsistency only as STRONG.
// A table whose replication the service-linked role may not do
// (DenyReplication) is REPLICATION_NOT_AUTHORIZED, in its TableStatus and
// its replicas' ReplicaStatus (aws-sdk-go-v2 service/dynamodb CHANGELOG
// v1.44.0; developerguide globaltables-security.html).

// CallStrong counts, under Calls, the UpdateTable calls that name
// MultiRegionConsistency or GlobalTableWitnessUpdates or change the
// replicas of a STRONG table, answered or refused.
const CallStrong = "UpdateTable.MultiRegionConsistency"

const (
	consistencyStrong   = "STRONG"
	consistencyEventual = "EVENTUAL"
	// unsupportedRegion is the Region AWS refuses for MRSC (defined once,
	// with its source, in the API).
	unsupportedRegion = awsv1alpha1.MRSCUnsupportedRegion
)

func init() {
	register(atStrong, &feature{
		takeUpdate:   (*Server).strongConsistency,
		refuseDelete: refuseStrongDelete,
		refuseTTL:    refuseStrongTTL,
		advance:      (*tableState).finishStrong,
		busy:         func(st *tableState, _ time.Time) string { return st.strongBusy() },
		describe:     func(_ *Server, st *tableState, t map[string]any, now time.Time) { st.overlayStrong(t, now) },
	})
}

// strongTable is what the model keeps of a table's multi-Region strong
// consistency: strong nil for none; replicationDenied: DenyReplication.
type strongTable struct {
	strong            *strongState
	replicationDenied bool
}

var strongOf = perTable[strongTable](nil)

// refuseStrongDelete refuses a DeleteTable of a STRONG member
// (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md, DDB-TABLE-260).
func refuseStrongDelete(_ *Server, st *tableState) error {
	if strongOf(st).strong != nil {
		return validation("Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG.")
	}
	return nil
}

// refuseStrongTTL refuses turning Time to Live on for a STRONG table
// (developerguide V2globaltables_HowItWorks.html).
func refuseStrongTTL(_ *Server, st *tableState) error {
	if strongOf(st).strong != nil {
		return validation("the model: Time to Live is not supported for global tables with MultiRegionConsistency set to STRONG")
	}
	return nil
}

// strongState is what the model keeps of a STRONG global table.
type strongState struct {
	// witnesses by Region; a replica's fields are not used.
	witnesses map[string]*replica
	// listedAt: DescribeTable leaves the replicas and witnesses out before.
	listedAt time.Time
	// leaving: the one way out was taken; the table is single-Region once
	// every replica and witness is gone.
	leaving bool
}

// strongConsistency answers the UpdateTable calls of MRSC; handled is false
// for any other call (a plain EVENTUAL replica create among them).
func (s *Server) strongConsistency(c *call) (out any, handled bool, err error) {
	mrc, wu := str(c.body, "MultiRegionConsistency"), list(c.body, "GlobalTableWitnessUpdates")
	name := str(c.body, "TableName")
	s.mu.Lock()
	st := s.tables[tableKey(c.r, name)]
	isStrong := st != nil && strongOf(st).strong != nil
	s.mu.Unlock()
	creates, deletes, others := replicaActions(list(c.body, "ReplicaUpdates"))
	switch {
	case !isStrong && mrc == "" && wu == nil:
		return nil, false, nil
	case !isStrong && mrc == consistencyEventual && wu == nil:
		// EVENTUAL is what a replica create makes anyway.
		delete(c.body, "MultiRegionConsistency")
		return nil, false, nil
	case isStrong && mrc == "" && wu == nil && len(creates)+len(deletes) == 0:
		return nil, false, nil // a replica's settings, or no replica at all
	}
	s.mu.Lock()
	s.calls[CallStrong]++
	s.mu.Unlock()
	for k := range c.body {
		if k != "TableName" && k != "MultiRegionConsistency" && k != "ReplicaUpdates" && k != "GlobalTableWitnessUpdates" {
			return nil, true, validation("Requests that modify replicas or witnesses must not also modify other fields (%s)", k)
		}
	}
	if len(wu) > 1 {
		return nil, true, validation("1 validation error detected: Value at 'globalTableWitnessUpdates' failed to satisfy constraint: Member must have length less than or equal to 1")
	}
	wCreate, wDelete := witnessActions(wu)
	desc, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name})
	if err != nil {
		return nil, true, err
	}
	var has tableContents
	if !isStrong {
		if has, err = s.contentsOf(c, name, desc); err != nil {
			return nil, true, err
		}
	}
	if err := s.applyStrong(c, name, isStrong, mrc, creates, deletes, others, wCreate, wDelete, has); err != nil {
		return nil, true, err
	}
	return s.describeAfter(c, name)
}

// tableContents is what a single-Region table holds that keeps it from
// becoming STRONG.
type tableContents struct {
	items, localIndexes int
	ttl                 bool
}

// contentsOf reads, from DynamoDB Local, whether the table desc (its
// description) holds items, local secondary indexes or Time to Live.
func (s *Server) contentsOf(c *call, name string, desc map[string]any) (tableContents, error) {
	scan, err := s.local(c.r, "Scan", map[string]any{"TableName": name, "Limit": 1, "Select": "COUNT"})
	if err != nil {
		return tableContents{}, err
	}
	ttl, err := s.local(c.r, "DescribeTimeToLive", map[string]any{"TableName": name})
	if err != nil {
		return tableContents{}, err
	}
	n, _ := num(scan, "Count")
	t := obj(desc, "Table")
	status := str(obj(ttl, "TimeToLiveDescription"), "TimeToLiveStatus")
	return tableContents{items: int(n), localIndexes: len(list(t, "LocalSecondaryIndexes")),
		ttl: status == "ENABLED" || status == "ENABLING"}, nil
}

// applyStrong checks the call against the table's state and applies it.
func (s *Server) applyStrong(c *call, name string, isStrong bool, mrc string, creates, deletes []string, others int, wCreate, wDelete []string, has tableContents) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	now := time.Now()
	st.advance(now)
	if why := st.busy(now); why != "" {
		return inUse("Attempt to change a resource which is still in use: %s", why)
	}
	var apply func()
	var err error
	if isStrong {
		apply, err = st.leaveStrong(mrc, creates, deletes, others, wCreate, wDelete)
	} else {
		apply, err = st.makeStrong(mrc, creates, deletes, others, wCreate, wDelete, has, region(c.r))
	}
	if err != nil {
		return err
	}
	apply()
	st.advanceStrong(now, s.opts.Transition)
	return nil
}

// makeStrong checks the call that makes a single-Region table a STRONG
// global table.
func (st *tableState) makeStrong(mrc string, creates, deletes []string, others int, wCreate, wDelete []string, has tableContents, own string) (func(), error) {
	switch {
	case mrc != consistencyStrong && len(wCreate)+len(wDelete) > 0:
		return nil, validation("MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present.")
	case len(st.replicas) > 0:
		return nil, validation("MultiRegionConsistency parameter is unsupported on existing global table")
	case len(deletes) > 0 || others > 0 || len(wDelete) > 0:
		return nil, validation("Only Replica Create actions are supported when MultiRegionConsistency parameter is provided.")
	case len(creates) == 0:
		return nil, validation("At least one of ProvisionedThroughput, BillingMode, ... or TableClass is required")
	case !(len(creates) == 2 && len(wCreate) == 0) && !(len(creates) == 1 && len(wCreate) == 1):
		return nil, validation("Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.")
	case has.items > 0:
		return nil, validation("the model: the table must be empty to become a multi-Region strong consistency global table")
	case has.localIndexes > 0:
		return nil, validation("the model: local secondary indexes are not supported for global tables with MultiRegionConsistency set to STRONG")
	case has.ttl:
		return nil, validation("the model: Time to Live is not supported for global tables with MultiRegionConsistency set to STRONG")
	}
	regions := append(slices.Clone(creates), wCreate...)
	if slices.Contains(regions, unsupportedRegion) || own == unsupportedRegion {
		return nil, validation("Unsupported Region(s) specified for global tables with MultiRegionConsistency set to STRONG: [%s].", unsupportedRegion)
	}
	for _, w := range wCreate {
		switch {
		case slices.Contains(creates, w):
			return nil, validation("Cannot target multiple regions with the same action")
		case w == own:
			return nil, validation("Cannot add a witness in the same region as an existing replica when creating a global table with MultiRegionConsistency set to STRONG.")
		}
	}
	for _, r := range creates {
		if r == own {
			return nil, validation("One or more parameter values were invalid: cannot add a replica in the table's own region %s", r)
		}
	}
	return func() {
		strongOf(st).strong = &strongState{witnesses: map[string]*replica{}}
		for _, r := range creates {
			st.replicas[r] = &replica{region: r, status: "CREATING", next: "ACTIVE", fields: map[string]any{}}
		}
		for _, w := range wCreate {
			strongOf(st).strong.witnesses[w] = &replica{region: w, status: "CREATING", next: "ACTIVE"}
		}
	}, nil
}

// leaveStrong checks a call on a STRONG global table: only the one way out
// passes.
func (st *tableState) leaveStrong(mrc string, creates, deletes []string, others int, wCreate, wDelete []string) (func(), error) {
	all := slices.Sorted(maps.Keys(st.replicas))
	witnesses := slices.Sorted(maps.Keys(strongOf(st).strong.witnesses))
	slices.Sort(deletes)
	slices.Sort(wDelete)
	switch {
	case mrc == consistencyStrong && len(deletes) > 0:
		return nil, validation("Only Replica Create actions are supported when MultiRegionConsistency parameter is provided.")
	case mrc == consistencyStrong && len(creates) > 0:
		return nil, validation("Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.")
	case mrc != "":
		return nil, validation("MultiRegionConsistency parameter is unsupported on existing global table")
	case len(creates) > 0:
		return nil, validation("Cannot add replicas to a global table with strong MultiRegionConsistency")
	case len(deletes) == 0 || others > 0 || len(wCreate) > 0:
		return nil, validation("At least one of ProvisionedThroughput, BillingMode, ... or TableClass is required")
	case !slices.Equal(wDelete, witnesses):
		return nil, validation("Update table delete operation does not include all witnesses.")
	case !slices.Equal(deletes, all):
		return nil, validation("Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG.")
	}
	return func() {
		strongOf(st).strong.leaving = true
		for _, r := range st.replicas {
			r.status, r.next = "DELETING", ""
		}
		for _, w := range strongOf(st).strong.witnesses {
			w.status, w.next = "DELETING", ""
		}
	}, nil
}

// advanceStrong starts the transitions of the members just changed: each
// ends one Transition from now, and they are listed after its first third.
func (st *tableState) advanceStrong(now time.Time, transition time.Duration) {
	until := now.Add(transition)
	for _, r := range st.replicas {
		if r.until.IsZero() && r.next != r.status {
			r.until = until
		}
	}
	for _, w := range strongOf(st).strong.witnesses {
		if w.until.IsZero() && w.next != w.status {
			w.until = until
		}
	}
	if !strongOf(st).strong.leaving {
		strongOf(st).strong.listedAt = now.Add(transition / 3)
	}
}

// finishStrong ends the witnesses' transitions whose time has come, and the
// STRONG state once the way out is done; nothing while replicas are held
// (HoldReplicas).
func (st *tableState) finishStrong(now time.Time) {
	if strongOf(st).strong == nil || st.replicasHeld.Load() {
		return
	}
	for region, w := range strongOf(st).strong.witnesses {
		if w.until.IsZero() || now.Before(w.until) {
			continue
		}
		if w.next == "" {
			delete(strongOf(st).strong.witnesses, region)
			continue
		}
		w.status, w.until = w.next, time.Time{}
	}
	if strongOf(st).strong.leaving && len(st.replicas) == 0 && len(strongOf(st).strong.witnesses) == 0 {
		strongOf(st).strong = nil
	}
}

// strongBusy is a witness still changing, "" when none.
func (st *tableState) strongBusy() string {
	if strongOf(st).strong == nil {
		return ""
	}
	for _, region := range slices.Sorted(maps.Keys(strongOf(st).strong.witnesses)) {
		if w := strongOf(st).strong.witnesses[region]; !w.until.IsZero() {
			return "witness " + region + " is " + w.status
		}
	}
	return ""
}

// overlayStrong adds to a description what the model keeps of MRSC, and a
// denied replication.
func (st *tableState) overlayStrong(t map[string]any, now time.Time) {
	if strongOf(st).replicationDenied {
		t["TableStatus"] = "REPLICATION_NOT_AUTHORIZED"
	}
	if strongOf(st).strong == nil {
		return
	}
	t["MultiRegionConsistency"] = consistencyStrong
	// Disassociation protection is of eventual consistency tables only.
	delete(t, "DisassociationProtectionEnabled")
	if now.Before(strongOf(st).strong.listedAt) {
		delete(t, "Replicas")
		delete(t, "GlobalTableVersion")
		return
	}
	var ws []any
	for _, region := range slices.Sorted(maps.Keys(strongOf(st).strong.witnesses)) {
		ws = append(ws, map[string]any{"RegionName": region, "WitnessStatus": strongOf(st).strong.witnesses[region].status})
	}
	if len(ws) > 0 {
		t["GlobalTableWitnesses"] = ws
	}
}

// replicaActions sorts a ReplicaUpdates list into the Regions it creates
// and deletes, and how many other actions it has.
func replicaActions(updates []any) (creates, deletes []string, others int) {
	for _, u := range updates {
		u, _ := u.(map[string]any)
		switch {
		case obj(u, "Create") != nil:
			creates = append(creates, str(obj(u, "Create"), "RegionName"))
		case obj(u, "Delete") != nil:
			deletes = append(deletes, str(obj(u, "Delete"), "RegionName"))
		default:
			others++
		}
	}
	return creates, deletes, others
}

// witnessActions are the Regions a GlobalTableWitnessUpdates list creates
// and deletes.
func witnessActions(updates []any) (creates, deletes []string) {
	for _, u := range updates {
		u, _ := u.(map[string]any)
		if cr := obj(u, "Create"); cr != nil {
			creates = append(creates, str(cr, "RegionName"))
		}
		if del := obj(u, "Delete"); del != nil {
			deletes = append(deletes, str(del, "RegionName"))
		}
	}
	return creates, deletes
}

// DenyReplication makes the table's replication not authorized, as when a
// policy or SCP denies DynamoDB's service-linked role: its TableStatus and
// every replica's ReplicaStatus are REPLICATION_NOT_AUTHORIZED until
// AllowReplication.
func (s *Server) DenyReplication(table string) {
	s.setReplicationDenied(table, true)
}

// AllowReplication lifts DenyReplication: the replicas are ACTIVE again.
func (s *Server) AllowReplication(table string) {
	s.setReplicationDenied(table, false)
}

func (s *Server) setReplicationDenied(table string, denied bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	status := "ACTIVE"
	if denied {
		status = "REPLICATION_NOT_AUTHORIZED"
	}
	s.named(table, func(st *tableState) {
		strongOf(st).replicationDenied = denied
		for _, r := range st.replicas {
			r.status, r.until = status, time.Time{}
		}
	})
}
