package ddbgap

import (
	"fmt"
	"strconv"
	"time"
)

func init() {
	register(atBackups, &feature{
		ops: map[string]handler{
			"DescribeContinuousBackups": (*Server).describeContinuousBackups,
			"UpdateContinuousBackups":   (*Server).updateContinuousBackups,
			"GetResourcePolicy":         (*Server).getResourcePolicy,
			"PutResourcePolicy":         (*Server).putResourcePolicy,
			"DeleteResourcePolicy":      (*Server).deleteResourcePolicy,
			"CreateBackup":              (*Server).createBackup,
			"DescribeBackup":            (*Server).describeBackup,
			"RestoreTableToPointInTime": (*Server).restoreToPointInTime,
			"RestoreTableFromBackup":    (*Server).restoreFromBackup,
		},
		created: func(s *Server, st *tableState, body map[string]any) {
			if doc := str(body, "ResourcePolicy"); doc != "" {
				// "CreateTable ResourcePolicy attaches at creation" (API CreateTable).
				st.policy = &policyState{doc: doc, revision: s.nextRevision()}
			}
		},
	})
}

// pitrState is a table's point-in-time recovery.
type pitrState struct {
	enabled bool
	days    int64
	since   time.Time
}

var pitrOf = perTable[pitrState](nil)

// tableExists asks DynamoDB Local; the continuous backups and contributor
// insights APIs answer TableNotFoundException / ResourceNotFoundException
// for a table that is not there.
func (s *Server) tableExists(c *call, name, code string) (map[string]any, error) {
	out, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name})
	if e, ok := err.(*apiError); ok && e.code == "ResourceNotFoundException" {
		return nil, notFound(code, "Table not found: %s", name)
	}
	if err != nil {
		return nil, err
	}
	return obj(out, "Table"), nil
}

func (s *Server) describeContinuousBackups(c *call) (any, error) {
	name := str(c.body, "TableName")
	if _, err := s.tableExists(c, name, "TableNotFoundException"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{"ContinuousBackupsDescription": pitrOf(s.state(c.r, name)).json()}, nil
}

// json is DescribeContinuousBackups's shape: RecoveryPeriodInDays and the
// restorable window while enabled, LatestRestorableDateTime about five
// minutes before now (API PointInTimeRecoveryDescription).
func (p pitrState) json() map[string]any {
	d := map[string]any{"PointInTimeRecoveryStatus": "DISABLED"}
	if p.enabled {
		now := time.Now()
		d = map[string]any{"PointInTimeRecoveryStatus": "ENABLED", "RecoveryPeriodInDays": p.days,
			"EarliestRestorableDateTime": epoch(p.since), "LatestRestorableDateTime": epoch(now.Add(-5 * time.Minute))}
	}
	return map[string]any{"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": d}
}

func (s *Server) updateContinuousBackups(c *call) (any, error) {
	name := str(c.body, "TableName")
	if _, err := s.tableExists(c, name, "TableNotFoundException"); err != nil {
		return nil, err
	}
	spec := obj(c.body, "PointInTimeRecoverySpecification")
	enabled, ok := spec["PointInTimeRecoveryEnabled"].(bool)
	if !ok {
		return nil, validation("PointInTimeRecoveryEnabled is required")
	}
	days, hasDays := num(spec, "RecoveryPeriodInDays")
	// "RecoveryPeriodInDays 1..35, default 35" (API
	// PointInTimeRecoverySpecification).
	if hasDays && (days < 1 || days > 35) {
		return nil, validation("1 validation error detected: Value '%d' at 'recoveryPeriodInDays' failed to satisfy constraint: Member must have value between 1 and 35", days)
	}
	if hasDays && !enabled {
		return nil, validation("RecoveryPeriodInDays can only be set while enabling point in time recovery")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	switch {
	case !enabled:
		*pitrOf(st) = pitrState{}
	case !pitrOf(st).enabled:
		*pitrOf(st) = pitrState{enabled: true, days: 35, since: time.Now()}
	}
	if hasDays {
		pitrOf(st).days = days
	}
	return map[string]any{"ContinuousBackupsDescription": pitrOf(st).json()}, nil
}

func (s *Server) nextRevision() string {
	s.revision++
	return strconv.FormatInt(time.Now().UnixMilli()*1000+s.revision%1000, 10)
}

func (s *Server) policyTable(c *call) (string, error) {
	name := tableFromArn(str(c.body, "ResourceArn"))
	if name == "" {
		return "", validation("ResourceArn is not a table ARN: %s", str(c.body, "ResourceArn"))
	}
	if _, err := s.tableExists(c, name, "ResourceNotFoundException"); err != nil {
		return "", err
	}
	return name, nil
}

func (s *Server) getResourcePolicy(c *call) (any, error) {
	name, err := s.policyTable(c)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.state(c.r, name).policy
	if p != nil && p.staleLeft > 0 {
		p.staleLeft--
		p = p.prev
	}
	if p == nil || p.doc == "" {
		return nil, notFound("PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn")
	}
	return map[string]any{"Policy": p.doc, "RevisionId": p.revision}, nil
}

// putResourcePolicy: "running it multiple times on the same resource using
// the same policy document will return the same revision ID. If you specify
// an ExpectedRevisionId that doesn't match the current policy's RevisionId,
// the PolicyNotFoundException will be returned"; "NO_POLICY" expects none;
// at most 20 KB, whitespace counted (API PutResourcePolicy).
func (s *Server) putResourcePolicy(c *call) (any, error) {
	name, err := s.policyTable(c)
	if err != nil {
		return nil, err
	}
	doc := str(c.body, "Policy")
	if len(doc) > 20*1024 {
		return nil, validation("Policy document exceeds the maximum size of 20 KB")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	cur := st.current()
	if err := expectRevision(c, cur); err != nil {
		return nil, err
	}
	if cur != nil && cur.doc == doc {
		return map[string]any{"RevisionId": cur.revision}, nil
	}
	st.policy = &policyState{doc: doc, revision: s.nextRevision(), prev: cur, staleLeft: s.opts.StaleReads}
	return map[string]any{"RevisionId": st.policy.revision}, nil
}

// deleteResourcePolicy is "idempotent ... unless you specify an
// ExpectedRevisionId, which will then return a PolicyNotFoundException" when
// it does not match or there is no policy (API DeleteResourcePolicy).
func (s *Server) deleteResourcePolicy(c *call) (any, error) {
	name, err := s.policyTable(c)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	cur := st.current()
	if str(c.body, "ExpectedRevisionId") != "" && cur == nil {
		return nil, notFound("PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn")
	}
	if err := expectRevision(c, cur); err != nil {
		return nil, err
	}
	if cur == nil {
		return map[string]any{}, nil
	}
	st.policy = &policyState{prev: cur, staleLeft: s.opts.StaleReads}
	return map[string]any{"RevisionId": cur.revision}, nil
}

// current is the policy as it is (not as a stale read shows it), nil for none.
func (st *tableState) current() *policyState {
	if st.policy == nil || st.policy.doc == "" {
		return nil
	}
	return st.policy
}

func expectRevision(c *call, cur *policyState) error {
	want := str(c.body, "ExpectedRevisionId")
	switch {
	case want == "":
		return nil
	case want == "NO_POLICY" && cur == nil:
		return nil
	case cur != nil && want == cur.revision:
		return nil
	}
	return notFound("PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting revision id %s doesn't match the current revision", want)
}

// backup is what the model keeps of an on-demand backup: its source table
// as it was (SourceTableDetails, API DescribeBackup).
type backup struct {
	name, table string
	source      map[string]any // SourceTableDetails
	created     time.Time
}

// backups are the server's backups, by ARN.
type backups struct{ byArn map[string]backup }

var backupsOf = perServer(func(b *backups) { b.byArn = map[string]backup{} })

// createBackup records an on-demand backup of a table; restoring it copies
// the table's items as they are then (a simplification: the model keeps no
// copy of the data).
func (s *Server) createBackup(c *call) (any, error) {
	name := str(c.body, "TableName")
	t, err := s.tableExists(c, name, "TableNotFoundException")
	if err != nil {
		return nil, err
	}
	now := time.Now()
	arn := fmt.Sprintf("%s/backup/%d-%s", str(t, "TableArn"), now.UnixMilli(), str(c.body, "BackupName"))
	pt := obj(t, "ProvisionedThroughput")
	source := map[string]any{"TableName": name, "TableArn": t["TableArn"], "TableCreationDateTime": t["CreationDateTime"],
		"KeySchema": t["KeySchema"], "BillingMode": billingOf(t),
		"ProvisionedThroughput": map[string]any{"ReadCapacityUnits": pt["ReadCapacityUnits"], "WriteCapacityUnits": pt["WriteCapacityUnits"]}}
	if id := str(t, "TableId"); id != "" {
		source["TableId"] = id
	}
	s.mu.Lock()
	backupsOf(s).byArn[arn] = backup{name: str(c.body, "BackupName"), table: name, source: source, created: now}
	s.mu.Unlock()
	return map[string]any{"BackupDetails": backupDetails(arn, backupsOf(s).byArn[arn])}, nil
}

func backupDetails(arn string, b backup) map[string]any {
	return map[string]any{"BackupArn": arn, "BackupName": b.name, "BackupStatus": "AVAILABLE", "BackupType": "USER",
		"BackupCreationDateTime": epoch(b.created)}
}

// describeBackup answers the backup and its source table as it was when
// the backup was made (API DescribeBackup; BackupNotFoundException for an
// unknown ARN).
func (s *Server) describeBackup(c *call) (any, error) {
	arn := str(c.body, "BackupArn")
	s.mu.Lock()
	b, ok := backupsOf(s).byArn[arn]
	s.mu.Unlock()
	if !ok {
		return nil, notFound("BackupNotFoundException", "Backup not found: %s", arn)
	}
	return map[string]any{"BackupDescription": map[string]any{"BackupDetails": backupDetails(arn, b), "SourceTableDetails": b.source}}, nil
}

// restoreToPointInTime: the source needs point-in-time recovery
// (PointInTimeRecoveryUnavailableException), the target must not exist
// (TableAlreadyExistsException), the time must be in the restorable window
// (InvalidRestoreTimeException) (API RestoreTableToPointInTime).
func (s *Server) restoreToPointInTime(c *call) (any, error) {
	source := str(c.body, "SourceTableName")
	if arn := str(c.body, "SourceTableArn"); arn != "" {
		source = tableFromArn(arn)
	}
	if _, err := s.tableExists(c, source, "TableNotFoundException"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	pitr := *pitrOf(s.state(c.r, source))
	s.mu.Unlock()
	if !pitr.enabled {
		return nil, notFound("PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table '%s'", source)
	}
	if at, ok := c.body["RestoreDateTime"].(float64); ok {
		if t := time.UnixMilli(int64(at * 1000)); t.Before(pitr.since.Add(-time.Second)) || t.After(time.Now()) {
			return nil, notFound("InvalidRestoreTimeException", "Restore time is outside the restorable window")
		}
	}
	return s.restore(c, source, map[string]any{"SourceTableArn": str(c.body, "SourceTableArn"),
		"RestoreDateTime": epoch(time.Now()), "RestoreInProgress": true})
}

func (s *Server) restoreFromBackup(c *call) (any, error) {
	arn := str(c.body, "BackupArn")
	s.mu.Lock()
	b, ok := backupsOf(s).byArn[arn]
	s.mu.Unlock()
	if !ok {
		return nil, notFound("BackupNotFoundException", "Backup not found: %s", arn)
	}
	source := b.table
	return s.restore(c, source, map[string]any{"SourceBackupArn": arn, "RestoreDateTime": epoch(time.Now()), "RestoreInProgress": true})
}

// restore creates the target table in DynamoDB Local from the source's key
// schema and indexes with the request's overrides (what a restore may
// override: billing mode, indexes, throughput, SSE; API
// RestoreTableToPointInTime), copies the items, and shows the new table
// CREATING for Transition. Stream, TTL, tags, PITR and autoscaling are not
// carried over (ibid.).
func (s *Server) restore(c *call, source string, summary map[string]any) (any, error) {
	target := str(c.body, "TargetTableName")
	if _, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": target}); err == nil {
		return nil, notFound("TableAlreadyExistsException", "Table already exists: %s", target)
	}
	src, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": source})
	if err != nil {
		return nil, err
	}
	st := obj(src, "Table")
	in := map[string]any{"TableName": target, "AttributeDefinitions": st["AttributeDefinitions"], "KeySchema": st["KeySchema"]}
	billing := str(c.body, "BillingModeOverride")
	if billing == "" {
		billing = billingOf(st)
	}
	in["BillingMode"] = billing
	if billing == provisioned {
		pt := obj(c.body, "ProvisionedThroughputOverride")
		if pt == nil {
			src := obj(st, "ProvisionedThroughput")
			pt = map[string]any{"ReadCapacityUnits": src["ReadCapacityUnits"], "WriteCapacityUnits": src["WriteCapacityUnits"]}
		}
		in["ProvisionedThroughput"] = pt
	}
	if g, ok := c.body["GlobalSecondaryIndexOverride"]; ok {
		in["GlobalSecondaryIndexes"] = g
	} else if gs := list(st, "GlobalSecondaryIndexes"); len(gs) > 0 {
		in["GlobalSecondaryIndexes"] = indexesForCreate(gs, billing)
	}
	if l, ok := c.body["LocalSecondaryIndexOverride"]; ok {
		in["LocalSecondaryIndexes"] = l
	} else if ls := list(st, "LocalSecondaryIndexes"); len(ls) > 0 {
		in["LocalSecondaryIndexes"] = indexesForCreate(ls, "")
	}
	out, err := s.local(c.r, "CreateTable", in)
	if err != nil {
		return nil, err
	}
	if err := s.copyItems(c, source, target); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.newTableState()
	ts.restoringUntil, ts.restoreSummary = time.Now().Add(s.opts.Transition), summary
	if odt := obj(c.body, "OnDemandThroughputOverride"); odt != nil {
		ts.onDemand[""] = limitsOf(odt, &limits{})
	}
	s.tables[tableKey(c.r, target)] = ts
	desc := obj(out, "TableDescription")
	s.overlay(ts, desc, region(c.r))
	return map[string]any{"TableDescription": desc}, nil
}

// indexesForCreate turns index descriptions into CreateTable's shape.
func indexesForCreate(described []any, billing string) []any {
	var out []any
	for _, g := range described {
		g := g.(map[string]any)
		ix := map[string]any{"IndexName": g["IndexName"], "KeySchema": g["KeySchema"], "Projection": g["Projection"]}
		if billing == provisioned {
			pt := obj(g, "ProvisionedThroughput")
			ix["ProvisionedThroughput"] = map[string]any{"ReadCapacityUnits": pt["ReadCapacityUnits"], "WriteCapacityUnits": pt["WriteCapacityUnits"]}
		}
		out = append(out, ix)
	}
	return out
}

func (s *Server) copyItems(c *call, source, target string) error {
	in := map[string]any{"TableName": source}
	for {
		out, err := s.local(c.r, "Scan", in)
		if err != nil {
			return err
		}
		for _, item := range list(out, "Items") {
			if _, err := s.local(c.r, "PutItem", map[string]any{"TableName": target, "Item": item}); err != nil {
				return err
			}
		}
		last := obj(out, "LastEvaluatedKey")
		if last == nil {
			return nil
		}
		in["ExclusiveStartKey"] = last
	}
}
