package charttest

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/prometheus/promql/promqltest"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestAlertsFireWhenTheyShould evaluates the shipped alerts' expressions
// with Prometheus' own query engine over series as the manager and
// Prometheus write them: each fires on what it is for, stays quiet on the
// states that are expected to last (an index backfill, a bulb off at the
// wall), carries the namespace when it is about objects, and has a
// severity a team can route.
func TestAlertsFireWhenTheyShould(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	severity := map[string]string{}
	for _, r := range alertingRules(t, byKey(renderChart(t, root, release, extrasOn))["PrometheusRule/tether-system/tether"]) {
		rules[r.Alert] = r.Expr
		severity[r.Alert] = r.Labels["severity"]
	}
	g := NewWithT(t)
	for alert, s := range severity {
		g.Expect(s).To(BeElementOf("critical", "warning", "info"), alert)
	}
	g.Expect(severity).To(HaveKeyWithValue("TetherOperatorDown", "critical"))
	g.Expect(severity).To(HaveKeyWithValue("TetherNoLeader", "critical"))

	cases := []struct {
		name, alert, series string
		fires               bool
		labels              map[string]string
	}{
		{name: "an object not Ready for an hour", alert: "TetherObjectNotReady", fires: true,
			labels: map[string]string{"kind": "dynamodbtable", "namespace": "payments"},
			series: `tether_objects_not_ready_longest_seconds{job="tether",kind="dynamodbtable",namespace="payments",expected="false"} 3600+60x20`},
		{name: "an index backfilling for hours", alert: "TetherObjectNotReady",
			series: `tether_objects_not_ready_longest_seconds{job="tether",kind="dynamodbtable",namespace="payments",expected="true"} 7200+60x20
				tether_objects_not_ready_longest_seconds{job="tether",kind="dynamodbtable",namespace="payments",expected="false"} 0x20`},
		{name: "a bulb off at the wall all day", alert: "TetherObjectNotReady",
			series: `tether_objects_not_ready_longest_seconds{job="tether",kind="huelight",namespace="home",expected="true"} 86400+60x20`},
		{name: "no manager answers", alert: "TetherOperatorDown", fires: true,
			series: `up{job="tether",instance="10.0.0.1:8443"} 0x20`},
		{name: "one manager of two answers", alert: "TetherOperatorDown",
			series: `up{job="tether",instance="10.0.0.1:8443"} 0x20
				up{job="tether",instance="10.0.0.2:8443"} 1x20`},
		{name: "managers up, none leads", alert: "TetherNoLeader", fires: true,
			series: `leader_election_master_status{job="tether",instance="a",name="manager.tether.dev"} 0x20
				leader_election_master_status{job="tether",instance="b",name="manager.tether.dev"} 0x20`},
		{name: "one leads", alert: "TetherNoLeader",
			series: `leader_election_master_status{job="tether",instance="a",name="manager.tether.dev"} 1x20
				leader_election_master_status{job="tether",instance="b",name="manager.tether.dev"} 0x20`},
		{name: "a feed polling", alert: "TetherDynamoDBChangeFeedPolling", fires: true, labels: map[string]string{"feed": "payments"},
			series: `tether_dynamodb_change_feed_healthy{job="tether",feed="payments"} 0x20`},
		{name: "a feed in Events mode", alert: "TetherDynamoDBChangeFeedPolling",
			series: `tether_dynamodb_change_feed_healthy{job="tether",feed="payments"} 1x20`},
		{name: "objects wait minutes for a worker", alert: "TetherWorkQueueBacklog", fires: true, labels: map[string]string{"name": "dynamodbtable"},
			series: `workqueue_queue_duration_seconds_bucket{job="tether",name="dynamodbtable",le="10"} 0+1x20
				workqueue_queue_duration_seconds_bucket{job="tether",name="dynamodbtable",le="100"} 0+10x20
				workqueue_queue_duration_seconds_bucket{job="tether",name="dynamodbtable",le="+Inf"} 0+10x20`},
		{name: "objects taken at once", alert: "TetherWorkQueueBacklog",
			series: `workqueue_queue_duration_seconds_bucket{job="tether",name="dynamodbtable",le="0.01"} 0+10x20
				workqueue_queue_duration_seconds_bucket{job="tether",name="dynamodbtable",le="+Inf"} 0+10x20`},
	}
	engine := promqltest.NewTestEngine(t, false, 5*time.Minute, 100000)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewWithT(t)
			expr, ok := rules[c.alert]
			g.Expect(ok).To(BeTrue(), "no alert %s", c.alert)
			storage := promqltest.LoadedStorage(t, "load 1m\n\t"+c.series)
			q, err := engine.NewInstantQuery(context.Background(), storage, nil, expr, time.Unix(0, 0).Add(20*time.Minute))
			g.Expect(err).NotTo(HaveOccurred())
			res := q.Exec(context.Background())
			g.Expect(res.Err).NotTo(HaveOccurred())
			vector, err := res.Vector()
			g.Expect(err).NotTo(HaveOccurred())
			if !c.fires {
				g.Expect(vector).To(BeEmpty(), "%s fired: %v", c.alert, vector)
				return
			}
			g.Expect(vector).To(HaveLen(1), "%s did not fire", c.alert)
			for k, v := range c.labels {
				g.Expect(vector[0].Metric.Get(k)).To(Equal(v), "label %s", k)
			}
		})
	}
}
