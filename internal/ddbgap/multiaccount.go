package ddbgap

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Multi-account global tables, which DynamoDB Local lacks (it ignores
// GlobalTableSourceArn and, given a key schema, makes a plain table). The
// model needs to know which account each access key is (Options.Accounts):
// DynamoDB Local's ARNs name no account. The rules:
//   - the join is CreateTable with TableName, GlobalTableSourceArn,
//     GlobalTableSettingsReplicationMode ENABLED and ResourcePolicy, and no
//     KeySchema nor AttributeDefinitions, which the new replica takes from
//     the source
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_MA.tutorial.html);
//   - "Each replica must reside in a separate AWS account"
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_MA_HowItWorks.html);
//     the model also refuses a replica in the source's Region, as a global
//     table has one replica per Region;
//   - every member must grant replication.dynamodb.amazonaws.com
//     dynamodb:ReadDataForReplication, WriteDataForReplication and
//     ReplicateSettings on itself, its conditions (aws:SourceAccount,
//     aws:SourceArn) naming every member and itself, "verified for each new
//     replica as it is added", and the joining account needs
//     dynamodb:AssociateTableReplica on the source
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html);
//   - the source streams NEW_AND_OLD_IMAGES, as global tables replicate
//     through the stream (ibid., and API UpdateTable's ReplicaUpdates);
//   - members report GlobalTableVersion, settings replication ENABLED and
//     the other members in Replicas, never their own Region (API
//     TableDescription).
//
// AWS's error codes and words for a refused join are not on record: the
// model answers ValidationException for a malformed join, a missing stream
// or a Region taken, ResourceNotFoundException for a source it cannot
// find, and AccessDeniedException for a policy that does not admit the
// joiner. Those are the model's guesses, and its words its own. The model
// also guesses that a source with members is not deleted (like a table with
// replicas, tables.go), and shows a new member CREATING in the source's
// Replicas for one Options.Transition.

// CallJoin counts, under Calls, the CreateTable calls that join a source.
const CallJoin = "CreateTable.Join"

// settingsReplicationEnabled is the one mode a join takes.
const settingsReplicationEnabled = "ENABLED"

func init() {
	register(atSettingsReplication, &feature{takeUpdate: (*Server).settingsReplication})
	register(atMembership, &feature{
		takeCreate: func(s *Server, c *call) (any, bool, error) {
			if str(c.body, "GlobalTableSourceArn") == "" {
				return nil, false, nil
			}
			out, err := s.joinTable(c)
			return out, true, err
		},
		describe:     func(s *Server, st *tableState, t map[string]any, _ time.Time) { s.overlayMembership(st, t) },
		refuseDelete: (*Server).leaveOrRefuse,
		deleted:      (*Server).left,
		disassociate: (*Server).memberDisassociation,
	})
}

// joinTable answers a CreateTable with GlobalTableSourceArn.
func (s *Server) joinTable(c *call) (any, error) {
	s.mu.Lock()
	s.calls[CallJoin]++
	s.mu.Unlock()
	name, sourceArn := str(c.body, "TableName"), str(c.body, "GlobalTableSourceArn")
	// Sourced: the join takes settings replication ENABLED
	// (developerguide/V2globaltables_MA.tutorial.html); the words are the
	// model's.
	if str(c.body, "GlobalTableSettingsReplicationMode") != settingsReplicationEnabled {
		return nil, validation("One or more parameter values were invalid: GlobalTableSettingsReplicationMode must be ENABLED to join a global table")
	}
	// Sourced for KeySchema and AttributeDefinitions, which the join does
	// not send (ibid.); the model's own guess for the indexes and the
	// billing mode, which settings replication takes from the source: that
	// AWS refuses them beside GlobalTableSourceArn is not on record.
	for _, k := range []string{"KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes", "BillingMode"} {
		if _, ok := c.body[k]; ok {
			return nil, validation("One or more parameter values were invalid: %s is taken from the source table and cannot be given with GlobalTableSourceArn", k)
		}
	}
	account := s.accountOf(c.r)
	srcRegion, srcAccount, srcName, ok := tableArnParts(sourceArn)
	srcKey := s.keyOfAccount(srcAccount)
	switch {
	case account == "":
		// Not AWS's: the model's own configuration error.
		return nil, validation("the model: Options.Accounts names no account for this caller's access key")
	case !ok:
		// Not from a vendor source: the model's guess (code and words) for
		// an ARN that is no table's.
		return nil, validation("One or more parameter values were invalid: GlobalTableSourceArn %s is not a table ARN", sourceArn)
	case srcAccount == account:
		// Sourced: "Each replica must reside in a separate AWS account"
		// (developerguide/V2globaltables_MA_HowItWorks.html); code and
		// words are the model's.
		return nil, validation("One or more parameter values were invalid: each replica of a multi-account global table must be in a separate account")
	case srcRegion == region(c.r):
		// Not from a vendor source: the model's guess, as a global table
		// has one replica per Region.
		return nil, validation("One or more parameter values were invalid: the global table already has a replica in %s", srcRegion)
	case srcKey == "":
		// Not from a vendor source: the model's guess of the code for a
		// source it cannot find (an account it does not know).
		return nil, notFound("ResourceNotFoundException", "Requested resource not found: Table: %s not found", sourceArn)
	}
	asSource := asCaller(c.r, srcKey, srcRegion)
	out, err := s.local(asSource, "DescribeTable", map[string]any{"TableName": srcName})
	if err != nil {
		if e, ok := err.(*apiError); ok && e.code == "ResourceNotFoundException" {
			return nil, notFound("ResourceNotFoundException", "Requested resource not found: Table: %s not found", sourceArn)
		}
		return nil, err
	}
	src := obj(out, "Table")
	// Sourced: global tables replicate through the source's stream of
	// NEW_AND_OLD_IMAGES (developerguide/globaltables_MA_security.html; API
	// UpdateTable's ReplicaUpdates); code and words are the model's.
	if ss := obj(src, "StreamSpecification"); ss["StreamEnabled"] != true || str(ss, "StreamViewType") != "NEW_AND_OLD_IMAGES" {
		return nil, validation("One or more parameter values were invalid: the source table %s must have a stream of NEW_AND_OLD_IMAGES", sourceArn)
	}
	self := fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region(c.r), account, name)
	sourceDB := srcKey + "|" + srcRegion
	s.mu.Lock()
	srcState, known := s.tables[sourceDB+"|"+srcName]
	var srcPolicy, srcSettings string
	if known && srcState.policy != nil {
		srcPolicy = srcState.policy.doc
	}
	if known && srcState.member != nil {
		srcSettings = srcState.member.settings
	}
	// The members already there, each with its policy: AWS verifies every
	// member's statements "for each new replica as it is added"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html).
	existing := s.membersOf(srcState, known)
	s.mu.Unlock()
	// Sourced: the source has settings replication ENABLED
	// (developerguide/V2globaltables_MA.tutorial.html); code and words are
	// the model's.
	if srcSettings != settingsReplicationEnabled {
		return nil, validation("One or more parameter values were invalid: the source table %s must have GlobalTableSettingsReplicationMode ENABLED", sourceArn)
	}
	members := []string{sourceArn, self}
	for _, m := range existing {
		members = append(members, m.arn)
	}
	if why := admitsReplication(srcPolicy, sourceArn, members); why != "" {
		return nil, &apiError{status: 400, code: "AccessDeniedException", msg: "the source table's resource policy " + why}
	}
	for _, m := range existing {
		if why := admitsReplication(m.policy, m.arn, members); why != "" {
			return nil, &apiError{status: 400, code: "AccessDeniedException", msg: "the resource policy of member " + m.arn + " " + why}
		}
	}
	// Sourced (ibid., globaltables_MA_security.html): the joining account
	// needs dynamodb:AssociateTableReplica on the source. The code,
	// AccessDeniedException, is the model's guess, as is every code above.
	if why := admitsAssociate(srcPolicy, sourceArn, account); why != "" {
		return nil, &apiError{status: 400, code: "AccessDeniedException", msg: "the source table's resource policy " + why}
	}
	if why := admitsReplication(str(c.body, "ResourcePolicy"), self, members); why != "" {
		return nil, &apiError{status: 400, code: "AccessDeniedException", msg: "the new replica's ResourcePolicy " + why}
	}
	in := standalone(src)
	in["TableName"] = name
	in["StreamSpecification"] = map[string]any{"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}
	if tags := list(c.body, "Tags"); len(tags) > 0 {
		in["Tags"] = tags
	}
	created, err := s.local(c.r, "CreateTable", in)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	st.policy = &policyState{doc: str(c.body, "ResourcePolicy"), revision: s.nextRevision()}
	if s.opts.Tagging {
		st.tags = map[string]string{}
		for _, t := range list(c.body, "Tags") {
			tag, _ := t.(map[string]any)
			st.tags[str(tag, "Key")] = str(tag, "Value")
		}
	}
	st.member = &membership{source: sourceDB + "|" + srcName}
	if srcState == nil {
		srcState = s.newTableState()
		s.tables[sourceDB+"|"+srcName] = srcState
	}
	if srcState.member == nil {
		srcState.member = &membership{}
	}
	if srcState.member.members == nil {
		srcState.member.members = map[string]*member{}
	}
	srcState.member.members[tableKey(c.r, name)] = &member{region: region(c.r), until: time.Now().Add(s.opts.Transition)}
	s.overlay(st, obj(created, "TableDescription"), region(c.r))
	return created, nil
}

// memberPolicy is a member that joined a source, as a join checks it: its
// ARN and its resource policy ("" for none).
type memberPolicy struct{ arn, policy string }

// membersOf are the tables that joined the source (its state; known false
// for none), with their policies, in key order. Called with s.mu held.
func (s *Server) membersOf(src *tableState, known bool) []memberPolicy {
	if !known || src.member == nil {
		return nil
	}
	var out []memberPolicy
	for _, key := range slices.Sorted(maps.Keys(src.member.members)) {
		// key is database|name, the database accessKey|Region.
		parts := strings.Split(key, "|")
		if len(parts) != 3 {
			continue
		}
		m := memberPolicy{arn: fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", parts[1], s.opts.Accounts[parts[0]], parts[2])}
		if st, ok := s.tables[key]; ok && st.policy != nil {
			m.policy = st.policy.doc
		}
		out = append(out, m)
	}
	return out
}

// settingsReplication answers an UpdateTable that sets
// GlobalTableSettingsReplicationMode, which DynamoDB Local does not know:
// on a table ENABLED or DISABLED, idempotent and with nothing UPDATING;
// ENABLED_WITH_OVERRIDES refused (ACK dynamodb-controller
// docs/api-quirks/details/DDB-TABLE-048, live probes). A regional table
// does not report the mode (ibid., table-global-tables.md): the model
// shows it only on a member of a global table. The model takes it alone
// in its call (what AWS does with other fields beside it is not on
// record). handled is false for any other call.
func (s *Server) settingsReplication(c *call) (out any, handled bool, err error) {
	raw, ok := c.body["GlobalTableSettingsReplicationMode"]
	if !ok {
		return nil, false, nil
	}
	for k := range c.body {
		if k != "TableName" && k != "GlobalTableSettingsReplicationMode" {
			return nil, true, validation("the model: GlobalTableSettingsReplicationMode is taken alone in its call (%s)", k)
		}
	}
	mode, _ := raw.(string)
	if mode != settingsReplicationEnabled && mode != "DISABLED" {
		return nil, true, validation("One or more parameter values were invalid: GlobalTableSettingsReplicationMode %s cannot be set", mode)
	}
	name := str(c.body, "TableName")
	if _, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name}); err != nil {
		return nil, true, err
	}
	s.mu.Lock()
	st := s.state(c.r, name)
	if st.member == nil {
		st.member = &membership{}
	}
	st.member.settings = mode
	s.mu.Unlock()
	return s.describeAfter(c, name)
}

// overlayMembership adds a member's view of its global table: the other
// members in Replicas, GlobalTableVersion, settings replication. Called
// with s.mu held.
func (s *Server) overlayMembership(st *tableState, t map[string]any) {
	m := st.member
	if m == nil {
		return
	}
	now := time.Now()
	var others []any
	if m.source != "" {
		others = append(others, map[string]any{"RegionName": strings.Split(m.source, "|")[1], "ReplicaStatus": "ACTIVE"})
		if src, ok := s.tables[m.source]; ok && src.member != nil {
			for _, key := range slices.Sorted(maps.Keys(src.member.members)) {
				if s.tables[key] != st {
					o := src.member.members[key]
					others = append(others, map[string]any{"RegionName": o.region, "ReplicaStatus": o.status(now)})
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(m.members)) {
		o := m.members[key]
		others = append(others, map[string]any{"RegionName": o.region, "ReplicaStatus": o.status(now)})
	}
	if len(others) == 0 {
		return
	}
	t["Replicas"] = append(list(t, "Replicas"), others...)
	t["GlobalTableVersion"] = "2019.11.21"
	t["GlobalTableSettingsReplicationMode"] = settingsReplicationEnabled
	t["DisassociationProtectionEnabled"] = m.protection == nil || *m.protection
}

// memberDisassociation answers the disassociation protection and the
// Disassociate of a table that joined another account's table, sent to its
// own Region ("RegionName ... the Region where you send the UpdateTable
// request", API UpdateTable; "MREC only (same- and multi-account)",
// developerguide/globaltables-disassociate.html): refused while its
// protection is on, then it leaves at once (the model shows no
// transition: AWS's pace is not on record) and stays a table of its own.
// handled is false for a table that is no such member; the caller has
// checked the call's shape. A source leaving its own global table is not
// modelled.
func (s *Server) memberDisassociation(c *call, dis map[string]any) (out any, handled bool, err error) {
	name, here := str(c.body, "TableName"), region(c.r)
	s.mu.Lock()
	st, ok := s.tables[tableKey(c.r, name)]
	if !ok || st.member == nil || st.member.source == "" {
		s.mu.Unlock()
		return nil, false, nil
	}
	m := st.member
	if dis == nil {
		m.protection = boolOf(c.body["DisassociationProtectionEnabled"])
		s.mu.Unlock()
		return s.describeAfter(c, name)
	}
	switch {
	case str(dis, "RegionName") != here:
		s.mu.Unlock()
		return nil, true, validation("One or more parameter values were invalid: RegionName %s of a Disassociate action must be the Region the request is sent to (%s)", str(dis, "RegionName"), here)
	case str(dis, "DisassociationMode") != disassociateMode:
		s.mu.Unlock()
		return nil, true, validation("One or more parameter values were invalid: DisassociationMode must be %s", disassociateMode)
	case m.protection == nil || *m.protection:
		s.mu.Unlock()
		return nil, true, validation("the model: disassociation protection is enabled for table %s in %s: disable it first", name, here)
	}
	s.left(tableKey(c.r, name), st)
	st.member = nil
	s.mu.Unlock()
	return s.describeAfter(c, name)
}

func (o *member) status(now time.Time) string {
	if now.Before(o.until) {
		return "CREATING"
	}
	return "ACTIVE"
}

// leaveOrRefuse is DeleteTable's part of the model: a source with members
// is refused (the model's guess), a member that joined leaves its source's
// list (left). Called with s.mu held.
func (s *Server) leaveOrRefuse(st *tableState) error {
	if st.member == nil {
		return nil
	}
	if len(st.member.members) > 0 {
		return validation("the model refuses DeleteTable of a multi-account global table's source while other accounts' replicas are members: delete them first")
	}
	return nil
}

// left drops a deleted member from its source's list. Called with s.mu
// held.
func (s *Server) left(key string, st *tableState) {
	if st.member == nil || st.member.source == "" {
		return
	}
	if src, ok := s.tables[st.member.source]; ok && src.member != nil {
		delete(src.member.members, key)
	}
}

// Accounts as the model knows them (Options.Accounts).
func (s *Server) accountOf(r *http.Request) string {
	if scope := credentialScope(r); len(scope) > 0 {
		return s.opts.Accounts[scope[0]]
	}
	return ""
}

func (s *Server) keyOfAccount(account string) string {
	for _, k := range slices.Sorted(maps.Keys(s.opts.Accounts)) {
		if s.opts.Accounts[k] == account {
			return k
		}
	}
	return ""
}

// asCaller is the request as if signed with another access key, for
// another Region: DynamoDB Local keys its databases by the signature's
// credential scope and checks no signature.
func asCaller(r *http.Request, key, to string) *http.Request {
	out := r.Clone(r.Context())
	if scope := credentialScope(r); len(scope) > 2 {
		from := strings.Join(scope, "/")
		scope[0], scope[2] = key, to
		out.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), from, strings.Join(scope, "/"), 1))
	}
	return out
}

// tableArnParts reads a table ARN's Region, account and name.
func tableArnParts(arn string) (region, account, name string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" || !strings.HasPrefix(parts[5], "table/") {
		return "", "", "", false
	}
	return parts[3], parts[4], strings.TrimPrefix(parts[5], "table/"), true
}

// policyStatements are a policy document's Allow statements.
func policyStatements(doc string) []map[string]any {
	var p map[string]any
	if json.Unmarshal([]byte(doc), &p) != nil {
		return nil
	}
	var out []map[string]any
	add := func(v any) {
		if m, ok := v.(map[string]any); ok && str(m, "Effect") == "Allow" {
			out = append(out, m)
		}
	}
	switch st := p["Statement"].(type) {
	case []any:
		for _, v := range st {
			add(v)
		}
	default:
		add(st)
	}
	return out
}

// strings of a policy value: a string or a list of strings.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// admitsReplication says why a member's policy does not let the
// replication service replicate between members (the ARNs), "" when it
// does: one statement allows the three actions on the table to the service,
// its aws:SourceAccount and aws:SourceArn conditions (if any) naming every
// member.
func admitsReplication(doc, self string, members []string) string {
	for _, st := range policyStatements(doc) {
		if !slices.Contains(stringsOf(obj(st, "Principal")["Service"]), "replication.dynamodb.amazonaws.com") ||
			!coversActions(stringsOf(st["Action"]), "dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication", "dynamodb:ReplicateSettings") ||
			!coversResource(stringsOf(st["Resource"]), self) {
			continue
		}
		cond := obj(st, "Condition")
		accounts := conditionValues(cond, "aws:SourceAccount")
		arns := conditionValues(cond, "aws:SourceArn")
		ok := true
		for _, m := range members {
			_, account, _, _ := tableArnParts(m)
			if (accounts != nil && !slices.Contains(accounts, account)) || (arns != nil && !slices.Contains(arns, m)) {
				ok = false
			}
		}
		if ok {
			return ""
		}
	}
	return fmt.Sprintf("does not allow %s dynamodb:ReadDataForReplication, WriteDataForReplication and ReplicateSettings on %s for every member (%s)",
		"replication.dynamodb.amazonaws.com", self, strings.Join(members, ", "))
}

// admitsAssociate says why the source's policy does not let account
// associate a replica, "" when it does.
func admitsAssociate(doc, self, account string) string {
	for _, st := range policyStatements(doc) {
		principals := stringsOf(obj(st, "Principal")["AWS"])
		if coversActions(stringsOf(st["Action"]), "dynamodb:AssociateTableReplica") && coversResource(stringsOf(st["Resource"]), self) &&
			slices.ContainsFunc(principals, func(p string) bool { return p == account || strings.Contains(p, ":iam::"+account+":") }) {
			return ""
		}
	}
	return fmt.Sprintf("does not allow account %s dynamodb:AssociateTableReplica on %s", account, self)
}

func coversActions(have []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) && !slices.Contains(have, "dynamodb:*") && !slices.Contains(have, "*") {
			return false
		}
	}
	return true
}

func coversResource(have []string, arn string) bool {
	return slices.Contains(have, arn) || slices.Contains(have, "*")
}

// conditionValues are the values a condition block gives key under any
// operator, nil when none names it.
func conditionValues(cond map[string]any, key string) []string {
	var out []string
	for _, op := range cond {
		if m, ok := op.(map[string]any); ok {
			if v, ok := m[key]; ok {
				out = append(out, stringsOf(v)...)
			}
		}
	}
	return out
}
