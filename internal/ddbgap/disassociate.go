package ddbgap

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Replica disassociation and disassociation protection, which DynamoDB
// Local lacks (it answers "Nothing to update"). The rules, from the API
// reference of UpdateTable
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html),
// of DisassociateReplicationGroupMemberAction
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DisassociateReplicationGroupMemberAction.html)
// and the developer guide
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-disassociate.html):
//   - both are sent to the replica's own Region, with the credentials of
//     the account that owns it ("Send disassociation and disassociation
//     protection requests to the replica's Region"), and RegionName is
//     "the Region where you send the UpdateTable request";
//   - DisassociationMode must be WAIT_FOR_REPLICATION;
//   - "The Disassociate action must be the only replica update in the
//     request. If the request includes any other update, UpdateTable fails
//     with a ValidationException and the disassociation does not start";
//     a protection change "can't [be combined] with any other change";
//   - protection is "enabled by default" and applies to the replica of a
//     multi-Region eventual consistency (MREC) global table; the SDK lists
//     "the protection update" among a disassociation's prerequisites, so
//     the model refuses a disassociation while it is on (AWS's wording is
//     not on record: the model's is its own);
//   - a disassociated replica "remains a standalone regional table that
//     keeps its data, indexes, and table settings", and the global table no
//     longer lists it. With two members both become single-Region tables,
//     with more only the caller leaves: either way the other members' lists
//     drop it. The model creates the former replica in DynamoDB Local with
//     the table's key schema and billing mode (not its items or indexes),
//     and shows it UPDATING in the other members' lists for one
//     Options.Transition before dropping it (what AWS shows there meanwhile
//     is not documented).
//
// The model does not model a table leaving its own global table from its
// own Region (Tether never asks it: a spec cannot name its own Region).

// disassociateMode is the one DisassociationMode AWS defines.
const disassociateMode = "WAIT_FOR_REPLICATION"

// CallDisassociate counts, under Calls, the UpdateTable calls with a
// Disassociate action, answered or refused.
const CallDisassociate = "UpdateTable.Disassociate"

func init() {
	register(atDisassociation, &feature{takeUpdate: (*Server).disassociation})
}

// disassociation answers the UpdateTable calls that disassociate a replica
// or set disassociation protection; handled is false for any other call.
func (s *Server) disassociation(c *call) (out any, handled bool, err error) {
	var dis map[string]any
	for _, u := range list(c.body, "ReplicaUpdates") {
		if d := obj(u.(map[string]any), "Disassociate"); d != nil {
			dis = d
		}
	}
	_, protect := c.body["DisassociationProtectionEnabled"]
	if dis == nil && !protect {
		return nil, false, nil
	}
	if dis != nil {
		s.mu.Lock()
		s.calls[CallDisassociate]++
		s.mu.Unlock()
	}
	for k := range c.body {
		if k != "TableName" && ((dis != nil && k != "ReplicaUpdates") || (dis == nil && k != "DisassociationProtectionEnabled")) {
			if dis != nil {
				return nil, true, validation("One or more parameter values were invalid: a Disassociate action must be the only update in the request (%s)", k)
			}
			return nil, true, validation("One or more parameter values were invalid: DisassociationProtectionEnabled cannot be combined with other changes (%s)", k)
		}
	}
	if dis != nil && len(list(c.body, "ReplicaUpdates")) != 1 {
		return nil, true, validation("One or more parameter values were invalid: a Disassociate action must be the only replica update in the request")
	}
	for _, f := range features {
		if f == nil || f.disassociate == nil {
			continue
		}
		if out, handled, err := f.disassociate(s, c, dis); handled {
			return out, true, err // a member of a multi-account global table (multiaccount.go)
		}
	}
	name, here := str(c.body, "TableName"), region(c.r)
	s.mu.Lock()
	now := time.Now()
	if own, ok := s.tables[tableKey(c.r, name)]; ok && len(own.replicas) > 0 {
		own.advance(now)
		if dis != nil {
			s.mu.Unlock()
			return nil, true, validation("the model does not model a table leaving its global table from its own Region")
		}
		own.protection = boolOf(c.body["DisassociationProtectionEnabled"])
		s.mu.Unlock()
		return s.describeAfter(c, name)
	}
	src, srcKey := s.replicaOf(c.r, name, here)
	if src == nil {
		s.mu.Unlock()
		if _, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name}); err != nil {
			return nil, true, err
		}
		return nil, true, validation("One or more parameter values were invalid: table %s in %s is not a replica of a global table (multi-Region eventual consistency)", name, here)
	}
	src.advance(now)
	r := src.replicas[here]
	if dis == nil {
		r.protection = boolOf(c.body["DisassociationProtectionEnabled"])
		s.mu.Unlock()
		return map[string]any{"TableDescription": map[string]any{"TableName": name, "TableStatus": "ACTIVE",
			"DisassociationProtectionEnabled": r.protected()}}, true, nil
	}
	switch {
	case str(dis, "RegionName") != here:
		s.mu.Unlock()
		return nil, true, validation("One or more parameter values were invalid: RegionName %s of a Disassociate action must be the Region the request is sent to (%s)", str(dis, "RegionName"), here)
	case str(dis, "DisassociationMode") != disassociateMode:
		s.mu.Unlock()
		return nil, true, validation("One or more parameter values were invalid: DisassociationMode must be %s", disassociateMode)
	}
	if why := src.busy(now); why != "" {
		s.mu.Unlock()
		return nil, true, inUse("Attempt to change a resource which is still in use: %s", why)
	}
	if r.status != "ACTIVE" {
		s.mu.Unlock()
		return nil, true, validation("One or more parameter values were invalid: replica %s is %s, not ACTIVE", here, r.status)
	}
	if r.protected() {
		s.mu.Unlock()
		return nil, true, validation("the model: disassociation protection is enabled for the replica of table %s in %s: disable it first", name, here)
	}
	r.status, r.until, r.next = "UPDATING", now.Add(s.opts.Transition), ""
	s.mu.Unlock()
	srcRegion := strings.Split(srcKey, "|")[1]
	desc, err := s.local(inRegion(c.r, srcRegion), "DescribeTable", map[string]any{"TableName": name})
	if err != nil {
		return nil, true, err
	}
	if _, err := s.local(c.r, "CreateTable", standalone(obj(desc, "Table"))); err != nil {
		return nil, true, err
	}
	return s.describeAfter(c, name)
}

// replicaOf finds the global table of that name, in the caller's account
// and another Region, that has a replica in region; nil when none. Called
// with s.mu held.
func (s *Server) replicaOf(r *http.Request, name, region string) (*tableState, string) {
	account := strings.Split(database(r), "|")[0]
	for _, key := range slices.Sorted(maps.Keys(s.tables)) {
		parts := strings.Split(key, "|")
		if len(parts) != 3 || parts[0] != account || parts[1] == region || parts[2] != name {
			continue
		}
		if _, ok := s.tables[key].replicas[region]; ok {
			return s.tables[key], key
		}
	}
	return nil, ""
}

// standalone is the CreateTable of a former replica: the table's key
// schema, the definitions of its key attributes and its billing mode.
func standalone(t map[string]any) map[string]any {
	keys := list(t, "KeySchema")
	var defs []any
	for _, d := range list(t, "AttributeDefinitions") {
		n := str(d.(map[string]any), "AttributeName")
		if slices.ContainsFunc(keys, func(k any) bool { return str(k.(map[string]any), "AttributeName") == n }) {
			defs = append(defs, d)
		}
	}
	in := map[string]any{"TableName": str(t, "TableName"), "KeySchema": keys, "AttributeDefinitions": defs,
		"BillingMode": billingOf(t)}
	if billingOf(t) == provisioned {
		pt := obj(t, "ProvisionedThroughput")
		rcu, _ := num(pt, "ReadCapacityUnits")
		wcu, _ := num(pt, "WriteCapacityUnits")
		in["ProvisionedThroughput"] = map[string]any{"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
	}
	return in
}

// inRegion is the caller's request as if signed for another Region of the
// same account: DynamoDB Local keys its databases by the signature's
// credential scope and checks no signature.
func inRegion(r *http.Request, to string) *http.Request {
	out := r.Clone(r.Context())
	if scope := credentialScope(r); len(scope) > 2 {
		from := strings.Join(scope, "/")
		scope[2] = to
		out.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), from, strings.Join(scope, "/"), 1))
	}
	return out
}

// boolOf is a JSON boolean; nil for anything else.
func boolOf(v any) *bool {
	b, ok := v.(bool)
	if !ok {
		return nil
	}
	return &b
}

// protected says whether the replica's disassociation protection is on:
// "Disassociation protection is enabled by default" (API UpdateTable).
func (r *replica) protected() bool { return r.protection == nil || *r.protection }
