package plan

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// multiAccount makes the fuzzed table, on one choice in two, a member that
// joined another account's table (FromSource), and returns the check that
// no step of its plan changes what settings replication takes from the
// source: billing, capacity, indexes, stream, TTL, on-demand and warm
// throughput, autoscaling.
func (s *fuzzSource) multiAccount(want, have *Table) func(fail func(string, ...any), p *Plan) {
	if !s.bool() {
		return func(func(string, ...any), *Plan) {}
	}
	// A joining spec declares no replicas of its own (the API server
	// refuses it).
	want.Replicas, want.RemoveReplicas, want.Disassociate = nil, nil, nil
	FromSource(want, have)
	return func(fail func(string, ...any), p *Plan) {
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

// sourceDecides says whether an UpdateTable changes a setting settings
// replication synchronises.
func sourceDecides(in *dynamodb.UpdateTableInput) bool {
	return in.BillingMode != "" || in.ProvisionedThroughput != nil || len(in.GlobalSecondaryIndexUpdates) > 0 ||
		in.StreamSpecification != nil || in.OnDemandThroughput != nil || in.WarmThroughput != nil
}
