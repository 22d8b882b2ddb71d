package charttest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
)

// promql parses the rules' and the dashboard's queries as Prometheus does.
var promql = parser.NewParser(parser.Options{})

// alertingRules parses a rendered PrometheusRule's spec with Prometheus'
// own rule-file parser, which also checks every expression and template.
func alertingRules(t *testing.T, rule *unstructured.Unstructured) []rulefmt.Rule {
	t.Helper()
	if rule == nil {
		t.Fatal("no PrometheusRule rendered")
	}
	spec, err := yaml.Marshal(rule.Object["spec"])
	if err != nil {
		t.Fatal(err)
	}
	groups, errs := rulefmt.Parse(spec, false, model.UTF8Validation, promql, slog.New(slog.DiscardHandler))
	for _, err := range errs {
		t.Errorf("the PrometheusRule: %v", err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	var out []rulefmt.Rule
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				t.Errorf("group %s: a recording rule %s; the chart ships alerts", g.Name, r.Record)
			}
			out = append(out, r)
		}
	}
	return out
}

// metricNames adds the metrics a query reads to names, noting where.
func metricNames(t *testing.T, names map[string][]string, where, query string) {
	t.Helper()
	expr, err := promql.ParseExpr(query)
	if err != nil {
		t.Errorf("%s: %v\n%s", where, err, query)
		return
	}
	found := false
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok && vs.Name != "" {
			names[vs.Name] = append(names[vs.Name], where)
			found = true
		}
		return nil
	})
	if !found {
		t.Errorf("%s reads no metric by name: %s", where, query)
	}
}

// grafanaVariables are the dashboard's variables and Grafana's own, with a
// value each, so that a panel's query parses as PromQL.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$kind", "huelight", "$job", "tether",
	"$namespace", "home")

// dashboardQueries returns every panel's queries by panel title.
func dashboardQueries(t *testing.T, raw string) map[string][]string {
	t.Helper()
	var dashboard struct {
		Panels []json.RawMessage `json:"panels"`
	}
	if err := json.Unmarshal([]byte(raw), &dashboard); err != nil {
		t.Fatal(err)
	}
	type panel struct {
		Type    string            `json:"type"`
		Title   string            `json:"title"`
		Panels  []json.RawMessage `json:"panels"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	}
	out := map[string][]string{}
	var walk func([]json.RawMessage)
	walk = func(raws []json.RawMessage) {
		for _, r := range raws {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				t.Fatal(err)
			}
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			for _, target := range p.Targets {
				out[p.Title] = append(out[p.Title], grafanaVariables.Replace(target.Expr))
			}
		}
	}
	walk(dashboard.Panels)
	return out
}

// TestAlertsAndDashboardReadExportedMetrics: every metric the chart's
// alerts and dashboard read is one the manager binary serves. The manager
// runs against a real API server with a Hue bridge on CLIP v2 (the
// simulator, over HTTPS, with its event stream), DynamoDB Local and a few
// objects, so that the metrics that appear with their first sample
// (counters, histograms, the stream state) are there; then its metrics
// endpoint is scraped.
func TestAlertsAndDashboardReadExportedMetrics(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs := byKey(renderChart(t, root, release, extrasOn))
	read := map[string][]string{}
	for _, r := range alertingRules(t, objs["PrometheusRule/tether-system/tether"]) {
		metricNames(t, read, "alert "+r.Alert, r.Expr)
	}
	raw, _, _ := unstructured.NestedString(objs["ConfigMap/tether-system/tether-grafana-dashboard"].Object, "data", "tether.json")
	for title, queries := range dashboardQueries(t, raw) {
		for _, q := range queries {
			metricNames(t, read, "panel "+title, q)
		}
	}
	if t.Failed() {
		return
	}

	metricsURL := runManagerWithObjects(t)
	NewWithT(t).Eventually(func(g Gomega) {
		exported := scrapeNames(g, metricsURL)
		var missing []string
		for name, where := range read {
			if !exported[name] && !prometheusOwn[name] {
				missing = append(missing, name+" (read by "+strings.Join(where, ", ")+")")
			}
		}
		sort.Strings(missing)
		g.Expect(missing).To(BeEmpty(), "metrics the manager does not serve")
	}, 2*time.Minute, time.Second).Should(Succeed())
}

// prometheusOwn are series Prometheus writes itself for every target.
var prometheusOwn = map[string]bool{"up": true}

// scrapeNames lists the series names the manager serves: each family's
// name, and a histogram's _bucket, _sum and _count, a summary's _sum and
// _count.
func scrapeNames(g Gomega, url string) map[string]bool {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]bool{}
	for name, f := range families {
		out[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			out[name+"_sum"], out[name+"_count"] = true, true
		}
	}
	return out
}

// runManagerWithObjects starts the world and the manager binary, creates a
// HueBridge on CLIP v2 with a HueLight and a HueLight for a bulb the bridge
// lacks (a retry), and a DynamoDBTable, and returns the metrics URL.
func runManagerWithObjects(t *testing.T) string {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start(awsv1alpha1.AddToScheme, huev1alpha1.AddToScheme)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	local := ddbtest.DynamoDBLocal(t, ddbtest.LocalOptions{})
	sim, err := huesim.Start(huesim.Options{Lights: []string{"lamp"}, Usernames: []string{"metrics-test-user-0123456789"}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sim.Close)

	dir := t.TempDir()
	bin, err := bench.BuildManager(dir)
	g.Expect(err).NotTo(HaveOccurred())
	// With leader election, as deployed (its metric), and a change feed of
	// the operator's own identity (its health gauge; the queue need not
	// answer).
	op, err := bench.StartOperator(ctx, bin, kubeconfig(t, env, dir), local.URL, filepath.Join(dir, "manager.log"),
		"--leader-elect", "--leader-election-namespace=tether-system",
		"--dynamodb-change-events-queue=http://127.0.0.1:9/000000000000/tether-changes")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		op.Stop()
		if t.Failed() {
			t.Logf("the manager's log:\n%s", bench.Tail(op.LogPath, 40))
		}
	})

	c := env.Client
	for _, ns := range []string{"tether-system", "home"} {
		g.Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	g.Expect(c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tether-system", Name: "bridge-credentials"},
		Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte("metrics-test-user-0123456789"),
			huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())},
	})).To(Succeed())
	g.Expect(c.Create(ctx, &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "bridge"},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundle: string(sim.CACertPEM()),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "tether-system", Name: "bridge-credentials"}},
	})).To(Succeed())
	for name, bulb := range map[string]string{"lamp": "lamp", "attic": "attic"} {
		g.Expect(c.Create(ctx, &huev1alpha1.HueLight{
			ObjectMeta: metav1.ObjectMeta{Namespace: "home", Name: name},
			Spec:       huev1alpha1.HueLightSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: "bridge"}, Name: bulb, Brightness: ptr.To[int32](100)},
		})).To(Succeed())
	}
	g.Expect(c.Create(ctx, &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: "home", Name: "orders"},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		},
	})).To(Succeed())
	return op.MetricsURL()
}

// kubeconfig writes the test API server's admin credentials for the
// manager binary.
func kubeconfig(t *testing.T, env *testenv.Env, dir string) string {
	t.Helper()
	cfg := env.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDashboardVariablesAndUnits: the dashboard lets a team pick the data
// source, the job and its namespaces; every query follows the job; every
// graph has a unit; and the operator itself (managers up, the leader, the
// pods' memory and CPU) and the change feed have panels.
func TestDashboardVariablesAndUnits(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	var dashboard struct {
		Templating struct {
			List []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			Type        string `json:"type"`
			Title       string `json:"title"`
			FieldConfig struct {
				Defaults struct {
					Unit string `json:"unit"`
				} `json:"defaults"`
			} `json:"fieldConfig"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	g.Expect(json.Unmarshal([]byte(readFile(t, root, "charts/tether/files/grafana/tether.json")), &dashboard)).To(Succeed())
	variables := map[string]string{}
	for _, v := range dashboard.Templating.List {
		variables[v.Name] = v.Type
	}
	g.Expect(variables).To(HaveKeyWithValue("datasource", "datasource"))
	g.Expect(variables).To(HaveKeyWithValue("job", "query"))
	g.Expect(variables).To(HaveKeyWithValue("namespace", "query"))
	read := map[string]bool{}
	for _, p := range dashboard.Panels {
		if p.Type == "row" {
			continue
		}
		g.Expect(p.FieldConfig.Defaults.Unit).NotTo(BeEmpty(), "panel %q has no unit", p.Title)
		for _, target := range p.Targets {
			g.Expect(target.Expr).To(ContainSubstring(`job=~"$job"`), "panel %q does not follow the job variable", p.Title)
			if strings.Contains(target.Expr, "tether_objects") {
				g.Expect(target.Expr).To(ContainSubstring(`namespace=~"$namespace"`), "panel %q does not follow the namespace variable", p.Title)
			}
			names := map[string][]string{}
			metricNames(t, names, p.Title, grafanaVariables.Replace(target.Expr))
			for n := range names {
				read[n] = true
			}
		}
	}
	for _, m := range []string{"up", "leader_election_master_status", "process_resident_memory_bytes", "process_cpu_seconds_total",
		"tether_dynamodb_change_feed_healthy", "workqueue_queue_duration_seconds_bucket"} {
		g.Expect(read).To(HaveKey(m), "no panel reads %s", m)
	}
}
