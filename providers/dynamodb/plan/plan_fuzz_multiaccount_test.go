package plan

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// multiAccount makes the fuzzed table, on one choice in two, a member that
// joined another account's table (FromSource), and returns the check that
// no step of its plan changes what settings replication takes from the
// source: billing, capacity, indexes (vector indexes among them), stream,
// TTL, on-demand and warm throughput, autoscaling.
func (s *fuzzSource) multiAccount(want, have *Table) func(fail func(string, ...any), p *Plan) {
	if !s.bool() {
		// On one choice in two of the rest, a source others join: its
		// stream and settings replication, whatever mode it reports.
		if s.bool() && want.Consistency == "" { // multi-account global tables are MREC only
			AsSource(want)
			have.SettingsReplication = s.pick("", "DISABLED", settingsReplicationEnabled, settingsReplicationWithOverrides)
		}
		return checkSettingsReplicationAlone
	}
	// A joining spec declares no replicas of its own (the API server
	// refuses it).
	want.Replicas, want.RemoveReplicas, want.Disassociate = nil, nil, nil
	want.Consistency, want.Witnesses = "", nil // nor is it STRONG (MREC only)
	FromSource(want, have)
	return func(fail func(string, ...any), p *Plan) {
		checkSettingsReplicationAlone(fail, p)
		for _, st := range p.Steps {
			if st.TTL != nil || st.Register != nil || st.ScalingPolicy != nil || st.Deregister != nil {
				fail("a joined table's plan changes what the source decides: %s", st.Description)
			}
			if st.Table != nil && sourceDecides(st.Table) {
				fail("a joined table's plan changes what the source decides: %s", st.Description)
			}
		}
	}
}

// checkSettingsReplicationAlone: the mode is set alone in its call, to
// ENABLED, the one value UpdateTable takes (ENABLED_WITH_OVERRIDES is
// refused).
func checkSettingsReplicationAlone(fail func(string, ...any), p *Plan) {
	for _, st := range p.Steps {
		in := st.Table
		if in == nil || in.GlobalTableSettingsReplicationMode == "" {
			continue
		}
		only := &dynamodb.UpdateTableInput{TableName: in.TableName, GlobalTableSettingsReplicationMode: in.GlobalTableSettingsReplicationMode}
		if !reflect.DeepEqual(in, only) || in.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabled {
			fail("settings replication not alone, or not ENABLED: %s", st.Description)
		}
	}
}

// applyMultiAccountTable applies an UpdateTable's settings replication
// mode to the table (applyPlan).
func applyMultiAccountTable(tb *Table, in *dynamodb.UpdateTableInput) {
	if in.GlobalTableSettingsReplicationMode != "" {
		tb.SettingsReplication = string(in.GlobalTableSettingsReplicationMode)
	}
}

// sourceDecides says whether an UpdateTable changes a setting settings
// replication synchronises.
func sourceDecides(in *dynamodb.UpdateTableInput) bool {
	return in.BillingMode != "" || in.ProvisionedThroughput != nil || len(in.GlobalSecondaryIndexUpdates) > 0 ||
		in.StreamSpecification != nil || in.OnDemandThroughput != nil || in.WarmThroughput != nil || len(in.VectorIndexUpdates) > 0
}
