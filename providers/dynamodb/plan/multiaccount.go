package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Multi-account global tables (spec.globalTableSource): a table joins, as a
// replica in its own account, a table of another account. The join is a
// CreateTable of its own kind, and what settings replication carries over
// from the source is the source's, not the spec's, so it is planned for
// by neither side. One update step: enabling settings replication on a
// source others join (StepSettingsReplication). Leaving is DeleteTable,
// or with onDelete: Disassociate the adapter's disassociation.
//
// Sources:
//   - the join: CreateTable with TableName, GlobalTableSourceArn,
//     GlobalTableSettingsReplicationMode ENABLED and ResourcePolicy, no key
//     schema nor attribute definitions
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_MA.tutorial.html;
//     aws-sdk-go-v2 service/dynamodb CHANGELOG v1.55.0);
//   - what settings replication synchronises: billing mode, provisioned
//     throughput, auto scaling, on-demand and warm throughput, TTL, the
//     stream view type and the global secondary indexes; the key schema
//     and local secondary indexes always; never table class, SSE, deletion
//     protection, point-in-time recovery, tags or the resource policy (AWS
//     CDK's GlobalTableSettingsReplicationMode reference,
//     https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_dynamodb.GlobalTableSettingsReplicationMode.html);
//   - the policies: "each replica must grant the above permissions to all
//     other replicas and itself", to the service principal
//     replication.dynamodb.amazonaws.com, limited by aws:SourceAccount and
//     aws:SourceArn, and verified "for each new replica as it is added";
//     the account that joins needs dynamodb:AssociateTableReplica on the
//     source
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html).

// StepSettingsReplication enables settings replication on a source that
// others join.
const StepSettingsReplication StepKind = "SettingsReplication"

// Settings replication modes as DescribeTable reports them; a same-account
// global table reports ENABLED_WITH_OVERRIDES once it has a replica, which
// UpdateTable refuses to set (ACK dynamodb-controller
// docs/api-quirks/details/DDB-TABLE-048, DDB-TABLE-320): it counts as
// enabled, never as drift.
const (
	settingsReplicationEnabled       = string(types.GlobalTableSettingsReplicationModeEnabled)
	settingsReplicationWithOverrides = string(types.GlobalTableSettingsReplicationModeEnabledWithOverrides)
)

func init() {
	register(&feature{
		kinds: []StepKind{StepSettingsReplication},
		observe: func(d *types.TableDescription, have *Table) {
			have.SettingsReplication = string(d.GlobalTableSettingsReplicationMode)
		},
		passes: []pass{{atSettingsReplication, (*planner).enableSettingsReplication}},
	})
}

// enableSettingsReplication sets GlobalTableSettingsReplicationMode ENABLED,
// alone in its call, on a table whose desired side asks for it (a source
// others join: the adapter says so) and that does not report it enabled.
// On a regional table the call is idempotent and nothing is UPDATING
// (ibid., DDB-TABLE-048).
func (p *planner) enableSettingsReplication() {
	want, cur := p.want.SettingsReplication, p.cur.SettingsReplication
	if want != settingsReplicationEnabled || cur == settingsReplicationEnabled || cur == settingsReplicationWithOverrides {
		return
	}
	in := p.updateTable()
	in.GlobalTableSettingsReplicationMode = types.GlobalTableSettingsReplicationModeEnabled
	p.add(Step{Kind: StepSettingsReplication, Description: "enable settings replication", Table: in})
	p.cur.SettingsReplication = want
}

// ReplicationService is the service principal that replicates between the
// members of a multi-account global table.
const ReplicationService = "replication.dynamodb.amazonaws.com"

// replicationActions are what every member grants ReplicationService.
var replicationActions = []string{"dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication", "dynamodb:ReplicateSettings"}

// associateAction is what the source grants the account that joins.
const associateAction = "dynamodb:AssociateTableReplica"

// Statement ids Tether gives the statements it writes, so that they are
// told from the user's.
const (
	sidReplication = "TetherGlobalTableReplication"
	sidAssociate   = "TetherGlobalTableAssociate"
)

// TableArn is a table's ARN as AWS spells it.
func TableArn(partition, region, account, name string) string {
	if partition == "" {
		partition = "aws"
	}
	return fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s", partition, region, account, name)
}

// ArnParts are a table ARN's partition, Region, account and table name; ok
// is false for anything else.
func ArnParts(arn string) (partition, region, account, name string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" || !strings.HasPrefix(parts[5], "table/") {
		return "", "", "", "", false
	}
	name = strings.TrimPrefix(parts[5], "table/")
	if name == "" || strings.Contains(name, "/") {
		return "", "", "", "", false
	}
	return parts[1], parts[3], parts[4], name, true
}

// Joins says whether the spec makes the table by joining another
// account's table.
func Joins(spec *awsv1alpha1.DynamoDBTableSpec) bool { return spec.GlobalTableSource != nil }

// JoinTableInput is the CreateTable that joins sourceArn: the table's name,
// the source, settings replication ENABLED, its tags, and its resource
// policy (which must admit the replication service: MemberPolicy). Nothing
// that the source decides is sent; deletion protection and what else has
// an API of its own follows as update steps, as for any table.
func JoinTableInput(name, sourceArn string, policy *Policy, tags map[string]string) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), GlobalTableSourceArn: aws.String(sourceArn),
		GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled}
	if policy != nil && !policy.Absent {
		in.ResourcePolicy = aws.String(policy.Text)
	}
	for _, k := range sortedKeys(tags) {
		in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return in
}

// AsSource makes the desired table a source others join: its stream
// NEW_AND_OLD_IMAGES and settings replication ENABLED, as AWS checks on
// each join (developerguide/V2globaltables_MA.tutorial.html).
func AsSource(want *Table) {
	want.Stream = string(types.StreamViewTypeNewAndOldImages)
	want.SettingsReplication = settingsReplicationEnabled
}

// FromSource makes the desired table take what settings replication
// synchronises from the observed one, so that the planner changes none of
// it on a member that joined: the source decides it.
func FromSource(want, have *Table) {
	want.BillingMode, want.Throughput = have.BillingMode, have.Throughput
	want.GSIs = slices.Clone(have.GSIs)
	// Vector indexes are indexes too: whether settings replication carries
	// them is not on record, so a joined table leaves them to the source
	// (its spec cannot declare any) rather than deleting what came with it.
	want.Vectors = nil
	if have.Vectors != nil {
		want.Vectors = map[string]Vector{}
		for name, v := range have.Vectors {
			if v.Status != string(types.IndexStatusDeleting) { // going already: not to be created again
				want.Vectors[name] = v
			}
		}
	}
	want.Stream = have.Stream
	want.TTL, want.OnDemand, want.Warm, want.Scaling, want.RemoveScaling = nil, nil, nil, nil, nil
}

// ReplicationStatements are the statements a member of a multi-account
// global table carries for the members (their table ARNs, itself among
// them): the replication service's actions on self, limited to the members'
// accounts and ARNs, and, for each other account in joiners,
// dynamodb:AssociateTableReplica on self (what a source grants the account
// that joins).
func ReplicationStatements(self string, members, joiners []string) []any {
	members = sortedUnique(append([]string{self}, members...))
	var accounts []string
	for _, m := range members {
		if _, _, account, _, ok := ArnParts(m); ok {
			accounts = append(accounts, account)
		}
	}
	out := []any{map[string]any{
		"Sid": sidReplication, "Effect": "Allow",
		"Principal": map[string]any{"Service": ReplicationService},
		"Action":    anyStrings(replicationActions), "Resource": self,
		"Condition": map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": anyStrings(sortedUnique(accounts))},
			"ArnLike":      map[string]any{"aws:SourceArn": anyStrings(members)},
		},
	}}
	partition, _, own, _, _ := ArnParts(self)
	var principals []string
	for _, j := range sortedUnique(joiners) {
		if j != own {
			principals = append(principals, fmt.Sprintf("arn:%s:iam::%s:root", partition, j))
		}
	}
	if len(principals) > 0 {
		out = append(out, map[string]any{"Sid": sidAssociate, "Effect": "Allow",
			"Principal": map[string]any{"AWS": anyStrings(principals)}, "Action": associateAction, "Resource": self})
	}
	return out
}

// MemberPolicy is the spec's policy (nil for none) with the replication
// statements added, replacing any statement of the same Sid.
func MemberPolicy(spec *Policy, statements []any) (*Policy, error) {
	doc := map[string]any{"Version": "2012-10-17"}
	if spec != nil && !spec.Absent {
		m, ok := spec.Doc.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("spec.resourcePolicy is not a JSON object")
		}
		for k, v := range m {
			doc[k] = v
		}
	}
	var kept []any
	switch s := doc["Statement"].(type) {
	case []any:
		kept = s
	case map[string]any:
		kept = []any{s}
	}
	ours := map[string]bool{}
	for _, st := range statements {
		ours[st.(map[string]any)["Sid"].(string)] = true
	}
	kept = slices.DeleteFunc(slices.Clone(kept), func(st any) bool {
		m, _ := st.(map[string]any)
		sid, _ := m["Sid"].(string)
		return ours[sid]
	})
	doc["Statement"] = append(kept, statements...)
	text, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	// Parsed back, so that it compares with what AWS answers (SamePolicy).
	return ParsedPolicy(string(text), ""), nil
}

// OnlyReplicationStatements says whether the policy cur of the table self
// is, exactly, one Tether writes for a member of a multi-account global
// table whose spec declares no policy: MemberPolicy(nil,
// ReplicationStatements(self, members, joiners)) for the members and
// joining accounts it names itself, and nothing else (no other statement,
// no other key, no other shape). Such a policy proves itself Tether's form
// whoever wrote it: replacing or removing it drops nothing but the
// replication statements Tether decides for the table. It is how Tether
// knows its own policy again once its in-memory record of the revisions it
// wrote is gone (a restart); the status, anyone's to write who may patch it,
// is never that proof.
func OnlyReplicationStatements(self string, cur *Policy) bool {
	if cur == nil || cur.Absent {
		return false
	}
	doc, ok := cur.Doc.(map[string]any)
	if !ok {
		return false
	}
	statements, _ := doc["Statement"].([]any)
	var members, joiners []string
	for _, st := range statements {
		m, _ := st.(map[string]any)
		switch m["Sid"] {
		case sidReplication:
			cond, _ := m["Condition"].(map[string]any)
			like, _ := cond["ArnLike"].(map[string]any)
			members = append(members, stringList(like["aws:SourceArn"])...)
		case sidAssociate:
			principal, _ := m["Principal"].(map[string]any)
			for _, arn := range stringList(principal["AWS"]) {
				parts := strings.Split(arn, ":")
				if len(parts) != 6 || parts[2] != "iam" || parts[5] != "root" {
					return false
				}
				joiners = append(joiners, parts[4])
			}
		default:
			return false
		}
	}
	if len(members) == 0 {
		return false
	}
	want, err := MemberPolicy(nil, ReplicationStatements(self, members, joiners))
	return err == nil && SamePolicy(want, cur)
}

// stringList are the strings of a JSON list of strings.
func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// StatementsText is statements as a policy's Statement list, indented, for
// a condition that tells a table's owner what to add.
func StatementsText(statements []any) string {
	text, _ := json.MarshalIndent(statements, "", "  ")
	return string(text)
}

// JoinedMember says whether a table created by a join shows that it is a
// member of a global table: AWS reports GlobalTableVersion and the other
// members in Replicas (API TableDescription). An endpoint that took the
// join for a plain CreateTable (DynamoDB Local ignores
// GlobalTableSourceArn) reports neither.
func JoinedMember(d *types.TableDescription) bool {
	return d != nil && aws.ToString(d.GlobalTableVersion) != "" && len(d.Replicas) > 0
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
