package plan

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	testSource = "arn:aws:dynamodb:us-east-1:111111111111:table/orders"
	testJoiner = "arn:aws:dynamodb:eu-west-1:222222222222:table/orders"
)

func TestArnParts(t *testing.T) {
	cases := []struct {
		arn                              string
		partition, region, account, name string
		ok                               bool
	}{
		{testSource, "aws", "us-east-1", "111111111111", "orders", true},
		{"arn:aws-cn:dynamodb:cn-north-1:111111111111:table/t.1", "aws-cn", "cn-north-1", "111111111111", "t.1", true},
		{"arn:aws:dynamodb:us-east-1:111111111111:table/orders/stream/2026", "", "", "", "", false},
		{"arn:aws:kinesis:us-east-1:111111111111:stream/orders", "", "", "", "", false},
		{"orders", "", "", "", "", false},
	}
	for _, c := range cases {
		p, r, a, n, ok := ArnParts(c.arn)
		if ok != c.ok || p != c.partition || r != c.region || a != c.account || n != c.name {
			t.Errorf("ArnParts(%q) = %q %q %q %q %v, want %q %q %q %q %v", c.arn, p, r, a, n, ok, c.partition, c.region, c.account, c.name, c.ok)
		}
	}
	if got := TableArn("", "us-east-1", "111111111111", "orders"); got != testSource {
		t.Errorf("TableArn = %s", got)
	}
}

// The statements globaltables_MA_security.html asks of each member: the
// replication service on the table itself, its conditions naming every
// member and itself; a source adds AssociateTableReplica for the joining
// accounts (never its own).
func TestReplicationStatements(t *testing.T) {
	cases := []struct {
		name             string
		self             string
		members, joiners []string
		want             string
	}{
		{"a joiner, for itself and its source", testJoiner, []string{testSource}, nil,
			`[{"Action":["dynamodb:ReadDataForReplication","dynamodb:WriteDataForReplication","dynamodb:ReplicateSettings"],` +
				`"Condition":{"ArnLike":{"aws:SourceArn":["` + testJoiner + `","` + testSource + `"]},"StringEquals":{"aws:SourceAccount":["111111111111","222222222222"]}},` +
				`"Effect":"Allow","Principal":{"Service":"replication.dynamodb.amazonaws.com"},"Resource":"` + testJoiner + `","Sid":"TetherGlobalTableReplication"}]`},
		{"a source, with the joining account's association", testSource, []string{testJoiner}, []string{"222222222222", "111111111111"},
			`[{"Action":["dynamodb:ReadDataForReplication","dynamodb:WriteDataForReplication","dynamodb:ReplicateSettings"],` +
				`"Condition":{"ArnLike":{"aws:SourceArn":["` + testJoiner + `","` + testSource + `"]},"StringEquals":{"aws:SourceAccount":["111111111111","222222222222"]}},` +
				`"Effect":"Allow","Principal":{"Service":"replication.dynamodb.amazonaws.com"},"Resource":"` + testSource + `","Sid":"TetherGlobalTableReplication"},` +
				`{"Action":"dynamodb:AssociateTableReplica","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::222222222222:root"]},"Resource":"` + testSource + `","Sid":"TetherGlobalTableAssociate"}]`},
	}
	for _, c := range cases {
		got, _ := json.Marshal(ReplicationStatements(c.self, c.members, c.joiners))
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// The member policy keeps the user's statements and replaces Tether's own,
// whatever shape the spec's Statement has.
func TestMemberPolicy(t *testing.T) {
	ours := ReplicationStatements(testSource, []string{testJoiner}, nil)
	cases := []struct {
		name, spec string
		sids       []string
	}{
		{"no spec policy", "", []string{sidReplication}},
		{"a list", `{"Version":"2012-10-17","Statement":[{"Sid":"Readers","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111111111111:root"},"Action":"dynamodb:GetItem","Resource":"*"}]}`,
			[]string{"Readers", sidReplication}},
		{"one statement as an object", `{"Statement":{"Sid":"Readers","Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}}`,
			[]string{"Readers", sidReplication}},
		{"Tether's own, stale, replaced", `{"Statement":[{"Sid":"TetherGlobalTableReplication","Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`,
			[]string{sidReplication}},
	}
	for _, c := range cases {
		var spec *Policy
		if c.spec != "" {
			var err error
			if spec, err = SpecPolicy(&runtime.RawExtension{Raw: []byte(c.spec)}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := MemberPolicy(spec, ours)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var doc struct{ Statement []struct{ Sid string } }
		if err := json.Unmarshal([]byte(got.Text), &doc); err != nil {
			t.Fatal(err)
		}
		var sids []string
		for _, s := range doc.Statement {
			sids = append(sids, s.Sid)
		}
		if len(sids) != len(c.sids) {
			t.Fatalf("%s: statements %v, want %v", c.name, sids, c.sids)
		}
		for i := range sids {
			if sids[i] != c.sids[i] {
				t.Errorf("%s: statements %v, want %v", c.name, sids, c.sids)
			}
		}
		if again, _ := MemberPolicy(spec, ours); !SamePolicy(got, again) {
			t.Errorf("%s: the same inputs make another policy", c.name)
		}
	}
}

// The join sends what the tutorial sends, and nothing the source decides.
func TestJoinTableInput(t *testing.T) {
	pol, _ := MemberPolicy(nil, ReplicationStatements(testJoiner, []string{testSource}, nil))
	in := JoinTableInput("orders", testSource, pol, map[string]string{"b": "2", "a": "1"})
	switch {
	case aws.ToString(in.GlobalTableSourceArn) != testSource, in.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabled:
		t.Errorf("source or mode: %v %v", aws.ToString(in.GlobalTableSourceArn), in.GlobalTableSettingsReplicationMode)
	case in.KeySchema != nil, in.AttributeDefinitions != nil, in.BillingMode != "", in.ProvisionedThroughput != nil,
		in.GlobalSecondaryIndexes != nil, in.LocalSecondaryIndexes != nil, in.StreamSpecification != nil:
		t.Errorf("the join carries what the source decides: %+v", in)
	case aws.ToString(in.ResourcePolicy) != pol.Text:
		t.Errorf("policy %s", aws.ToString(in.ResourcePolicy))
	case len(in.Tags) != 2 || aws.ToString(in.Tags[0].Key) != "a":
		t.Errorf("tags %v", in.Tags)
	}
}

func TestJoinedMember(t *testing.T) {
	cases := []struct {
		name string
		d    *types.TableDescription
		want bool
	}{
		{"a member", &types.TableDescription{GlobalTableVersion: aws.String("2019.11.21"),
			Replicas: []types.ReplicaDescription{{RegionName: aws.String("us-east-1")}}}, true},
		{"a plain table (DynamoDB Local)", &types.TableDescription{}, false},
		{"a version, no members", &types.TableDescription{GlobalTableVersion: aws.String("2019.11.21")}, false},
	}
	for _, c := range cases {
		if got := JoinedMember(c.d); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}

// A source others join gets settings replication ENABLED, alone in its
// call, unless it reports it enabled (ENABLED_WITH_OVERRIDES counts: a
// same-account global table reports it, and AWS refuses to set it).
func TestSettingsReplicationOfASource(t *testing.T) {
	cases := []struct {
		want, have string
		step       bool
	}{
		{settingsReplicationEnabled, "", true},
		{settingsReplicationEnabled, "DISABLED", true},
		{settingsReplicationEnabled, settingsReplicationEnabled, false},
		{settingsReplicationEnabled, settingsReplicationWithOverrides, false},
		{"", "DISABLED", false},
	}
	for _, c := range cases {
		p := Compute("t", &Table{SettingsReplication: c.want}, &Table{Status: "ACTIVE", SettingsReplication: c.have}, Options{})
		if got := len(p.Steps) == 1 && p.Steps[0].Kind == StepSettingsReplication; got != c.step || len(p.Steps) > 1 {
			t.Errorf("want %q, have %q: steps %v", c.want, c.have, p.Descriptions())
		}
		if c.step && p.Steps[0].Table.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabled {
			t.Errorf("want %q, have %q: %+v", c.want, c.have, p.Steps[0].Table)
		}
	}
}

// OnlyReplicationStatements knows, from the policy alone, one that is
// exactly what Tether writes for a member whose spec declares no policy
// (how it knows its own policy again after a restart), and nothing else:
// another statement beside them, a changed or missing condition, another
// table's statements, another key, or a principal that is no account.
func TestOnlyReplicationStatements(t *testing.T) {
	const third = "arn:aws:dynamodb:ap-south-1:333333333333:table/orders"
	tether := func(self string, members, joiners []string) string {
		p, err := MemberPolicy(nil, ReplicationStatements(self, members, joiners))
		if err != nil {
			t.Fatal(err)
		}
		return p.Text
	}
	edit := func(text string, change func(doc map[string]any)) string {
		var doc map[string]any
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatal(err)
		}
		change(doc)
		out, _ := json.Marshal(doc)
		return string(out)
	}
	statement := func(doc map[string]any, i int) map[string]any { return doc["Statement"].([]any)[i].(map[string]any) }
	source := tether(testSource, []string{testJoiner, third}, []string{"222222222222", "333333333333"})
	cases := []struct {
		name, self, text string
		want             bool
	}{
		{"a source's, two joiners", testSource, source, true},
		{"a joiner's, three members", testJoiner, tether(testJoiner, []string{testSource, third}, nil), true},
		{"a joiner's, itself and its source", testJoiner, tether(testJoiner, []string{testSource}, nil), true},
		{"another table's", testJoiner, source, false},
		{"a statement of someone else's beside them", testSource, edit(source, func(d map[string]any) {
			d["Statement"] = append(d["Statement"].([]any), map[string]any{"Sid": "TheirOwn", "Effect": "Allow",
				"Principal": map[string]any{"AWS": "arn:aws:iam::111111111111:root"}, "Action": "dynamodb:GetItem", "Resource": testSource})
		}), false},
		{"their statement under Tether's Sid", testSource, edit(source, func(d map[string]any) {
			statement(d, 1)["Action"] = "dynamodb:*"
		}), false},
		{"a condition dropped", testSource, edit(source, func(d map[string]any) {
			delete(statement(d, 0)["Condition"].(map[string]any), "StringEquals")
		}), false},
		{"an account condition wider than the members", testSource, edit(source, func(d map[string]any) {
			statement(d, 0)["Condition"].(map[string]any)["StringEquals"] = map[string]any{"aws:SourceAccount": []any{"111111111111", "222222222222", "333333333333", "444444444444"}}
		}), false},
		{"a principal that is a role", testSource, edit(source, func(d map[string]any) {
			statement(d, 1)["Principal"] = map[string]any{"AWS": []any{"arn:aws:iam::222222222222:role/x", "arn:aws:iam::333333333333:root"}}
		}), false},
		{"another key", testSource, edit(source, func(d map[string]any) { d["Id"] = "theirs" }), false},
		{"the association alone", testSource, edit(source, func(d map[string]any) { d["Statement"] = d["Statement"].([]any)[1:] }), false},
		{"not JSON", testSource, "not json", false},
	}
	for _, c := range cases {
		if got := OnlyReplicationStatements(c.self, ParsedPolicy(c.text, "r1")); got != c.want {
			t.Errorf("%s: OnlyReplicationStatements = %v, want %v (%s)", c.name, got, c.want, c.text)
		}
	}
	if OnlyReplicationStatements(testSource, &Policy{Absent: true}) || OnlyReplicationStatements(testSource, nil) {
		t.Error("no policy is no proof")
	}
}
