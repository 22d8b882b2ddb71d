package dynamodb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/repo"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// MODEL: the MRSC sample (config/samples/aws_v1alpha1_dynamodbtable_strong.yaml)
// does what its comments say: the table becomes a STRONG global table in
// one call, Ready with its replica and witness ACTIVE, and stays without a
// write; deleting it takes the one way out (one call) before DeleteTable.
func TestStrongSampleConvergesOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config/samples/aws_v1alpha1_dynamodbtable_strong.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	obj := &awsv1alpha1.DynamoDBTable{}
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096).Decode(obj); err != nil {
		t.Fatal(err)
	}
	obj.Spec.TableName = newTable().Name
	obj.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyDelete
	obj.UID, obj.Generation = apitypes.UID(uuid.NewUUID()), 1
	f.converge(obj)
	f.steady(obj, 2)
	if got := replicaStatuses(obj)["us-east-2"]; got != "ACTIVE" {
		t.Errorf("replica us-east-2 is %q", got)
	}
	if s := obj.Status; s.MultiRegionConsistency != "STRONG" || len(s.GlobalTableWitnesses) != 1 || s.GlobalTableWitnesses[0].WitnessStatus != "ACTIVE" {
		t.Errorf("status: consistency %q, witnesses %+v", s.MultiRegionConsistency, s.GlobalTableWitnesses)
	}
	f.deleteFully(obj)
	if n := f.gap.Calls(ddbgap.CallStrong); n != 2 {
		t.Errorf("%d MRSC calls, want 2: one to make it, one to leave it before DeleteTable", n)
	}
}

// TestStrongRegionsRefusedBeforeAnyCall: what the CEL rules cannot check,
// the table's Region as resolved (the AWSAccount's or the operator's), is
// checked before any call.
func TestStrongRegionsRefusedBeforeAnyCall(t *testing.T) {
	strong := func(witness string, replicas ...string) *awsv1alpha1.DynamoDBTable {
		obj := newTable()
		obj.Spec.MultiRegionConsistency = awsv1alpha1.MultiRegionConsistencyStrong
		for _, r := range replicas {
			obj.Spec.Replicas = append(obj.Spec.Replicas, awsv1alpha1.Replica{RegionName: r})
		}
		if witness != "" {
			obj.Spec.GlobalTableWitness = &awsv1alpha1.GlobalTableWitness{RegionName: witness}
		}
		return obj
	}
	cases := []struct {
		name, region string
		obj          *awsv1alpha1.DynamoDBTable
		refused      string
	}{
		{"fine", "us-east-1", strong("us-west-2", "us-east-2"), ""},
		{"witness in the resolved Region", "us-west-2", strong("us-west-2", "us-east-2"), "globalTableWitness is in the table's own Region"},
		{"replica in the resolved Region", "us-east-2", strong("", "us-east-2", "us-west-2"), "spec.replicas names the table's own Region"},
		{"table in us-west-1", "us-west-1", strong("", "us-east-2", "us-west-2"), "Unsupported Region(s)"},
		{"not STRONG: not this check's", "us-east-2", newTable(func(o *awsv1alpha1.DynamoDBTable) {
			o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "us-east-2"}}
		}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := strongRegionsRefused(c.obj, c.region)
			if c.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			te, ok := providers.AsTerminal(err)
			if !ok || te.Reason != plan.ReasonStrongRefused || !strings.Contains(err.Error(), c.refused) {
				t.Fatalf("err = %v, want terminal %s with %q", err, plan.ReasonStrongRefused, c.refused)
			}
		})
	}
}

// TestStrongRefusedIsNamed: the call that makes a STRONG table, refused by
// an endpoint without MRSC ("Nothing to update", DynamoDB Local), is
// UnsupportedByEndpoint; refused by AWS, MultiRegionConsistencyRefused with
// AWS's words; either stops until the spec changes. Other steps and
// errors are not this function's.
func TestStrongRefusedIsNamed(t *testing.T) {
	create := plan.Step{Kind: plan.StepCreateStrong, Description: "make the table a strongly consistent global table"}
	validation := func(msg string) error { return &smithy.GenericAPIError{Code: "ValidationException", Message: msg} }
	cases := []struct {
		name   string
		step   plan.Step
		err    error
		reason string
	}{
		{"DynamoDB Local", create, validation("Nothing to update"), ReasonUnsupportedByEndpoint},
		{"AWS refuses", create, validation("Unsupported Region(s)"), plan.ReasonStrongRefused},
		{"throttled: not a refusal", create, &smithy.GenericAPIError{Code: "ThrottlingException"}, ""},
		{"another step", plan.Step{Kind: plan.StepCreateReplica}, validation("Nothing to update"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := strongRefused(c.step, c.err)
			var te *providers.TerminalError
			switch {
			case c.reason == "" && err != nil:
				t.Fatalf("err = %v, want nil", err)
			case c.reason != "" && (!errors.As(err, &te) || te.Reason != c.reason):
				t.Fatalf("err = %v, want terminal %s", err, c.reason)
			}
		})
	}
}

// MODEL: a replica AWS reports REPLICATION_NOT_AUTHORIZED while the table
// stays ACTIVE (aws-sdk-go-v2 service/dynamodb CHANGELOG v1.44.0) makes the
// table not Ready, reason ReplicationNotAuthorized saying what to fix; no
// replica is re-created, removed or changed for it.
func TestReplicaReplicationNotAuthorizedOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	obj := newTable(withStream("NEW_AND_OLD_IMAGES"), func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Replicas = []awsv1alpha1.Replica{{RegionName: "eu-west-1"}}
	})
	f.converge(obj)
	f.gap.SetReplicaStatus(obj.Name, "eu-west-1", "REPLICATION_NOT_AUTHORIZED", "")
	f.proxy.ResetCounts()
	for range 3 {
		obs, err := f.pass(obj)
		if err != nil || obs.Available || obs.Reason != reasonReplicationNotAuthorized ||
			!strings.Contains(obs.Message, "replica eu-west-1 is REPLICATION_NOT_AUTHORIZED") || !strings.Contains(obs.Message, "service-linked role") {
			t.Fatalf("observation = %+v, %v", obs, err)
		}
	}
	for _, op := range []string{"UpdateTable", "CreateTable", "DeleteTable"} {
		if got := f.proxy.Calls()[op]; got != 0 {
			t.Errorf("%s calls = %d", op, got)
		}
	}
}
