package charttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tether-dev/tether/internal/testenv"
)

// The chart's extras for platform teams, each off by default (the default
// rendering is compared with config/default, which has none of them):
// Argo CD health checks, a PrometheusRule and a Grafana dashboard.

// extrasOn are the values that turn every extra on.
var extrasOn = map[string]any{
	"serviceMonitor":   map[string]any{"enabled": true, "labels": map[string]any{"release": "kube-prometheus-stack"}},
	"prometheusRule":   map[string]any{"enabled": true, "labels": map[string]any{"release": "kube-prometheus-stack"}},
	"grafanaDashboard": map[string]any{"enabled": true, "annotations": map[string]any{"grafana_folder": "Operators"}},
}

// kindsWithStatus are the Tether kinds Argo CD needs a health check for.
var kindsWithStatus = []string{"aws.tether.dev_AWSAccount", "aws.tether.dev_DynamoDBTable", "hue.tether.dev_HueBridge", "hue.tether.dev_HueGroup",
	"hue.tether.dev_HueLight", "hue.tether.dev_HueScene"}

func TestChartRendersTheExtras(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	objs := byKey(renderChart(t, root, release, extrasOn))

	// The ServiceMonitor: the token, and without a certificate of the
	// operator's own no verification (the manager's is self-signed) ...
	sm := objs["ServiceMonitor/tether-system/tether-controller-manager-metrics"]
	g.Expect(sm).NotTo(BeNil(), "no ServiceMonitor")
	g.Expect(sm.GetLabels()).To(HaveKeyWithValue("release", "kube-prometheus-stack"))
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	g.Expect(endpoints).To(ConsistOf(And(HaveKeyWithValue("bearerTokenFile", "/var/run/secrets/kubernetes.io/serviceaccount/token"),
		HaveKeyWithValue("tlsConfig", Equal(map[string]any{"insecureSkipVerify": true})))))
	// ... and with metrics.certSecret, exactly the kustomize component's
	// (which installtest's TestServiceMonitorScrapesTheManager scrapes with).
	verified := byKey(renderChart(t, root, release, map[string]any{"serviceMonitor": map[string]any{"enabled": true},
		"metrics": map[string]any{"certSecret": "tether-metrics-cert"}}))["ServiceMonitor/tether-system/tether-controller-manager-metrics"]
	g.Expect(verified).NotTo(BeNil())
	component := testenv.ReadManifest(t, filepath.Join(root, "config", "components", "service-monitor", "servicemonitor.yaml"))
	g.Expect(component).To(HaveLen(1))
	g.Expect(verified.Object["spec"]).To(Equal(component[0].Object["spec"]))

	rule := objs["PrometheusRule/tether-system/tether"]
	g.Expect(rule).NotTo(BeNil(), "no PrometheusRule")
	g.Expect(rule.GetAPIVersion()).To(Equal("monitoring.coreos.com/v1"))
	g.Expect(rule.GetLabels()).To(HaveKeyWithValue("release", "kube-prometheus-stack"))
	for _, r := range alertingRules(t, rule) {
		g.Expect(r.Annotations).To(HaveKeyWithValue("runbook_url",
			"https://github.com/tether-dev/tether/blob/main/docs/runbooks.md#"+strings.ToLower(r.Alert)))
	}

	dashboard := objs["ConfigMap/tether-system/tether-grafana-dashboard"]
	g.Expect(dashboard).NotTo(BeNil(), "no dashboard ConfigMap")
	g.Expect(dashboard.GetLabels()).To(HaveKeyWithValue("grafana_dashboard", "1"))
	g.Expect(dashboard.GetAnnotations()).To(HaveKeyWithValue("grafana_folder", "Operators"))
	raw, _, _ := unstructured.NestedString(dashboard.Object, "data", "tether.json")
	g.Expect(raw).To(Equal(strings.TrimSuffix(readFile(t, root, "charts/tether/files/grafana/tether.json"), "\n")))
	var parsed map[string]any
	g.Expect(json.Unmarshal([]byte(raw), &parsed)).To(Succeed())

	for _, m := range lint.All(filepath.Join(root, "charts", "tether"), extrasOn, namespace, true).Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint with the extras on: %s", m)
		}
	}

	// The dashboard may go where Grafana's sidecar looks.
	moved := byKey(renderChart(t, root, release, map[string]any{"grafanaDashboard": map[string]any{"enabled": true, "namespace": "monitoring"}}))
	g.Expect(moved).To(HaveKey("ConfigMap/monitoring/tether-grafana-dashboard"))
}

// TestRunbooksCoverEveryAlert: each alert has its section in
// docs/runbooks.md, under the anchor its runbook_url names.
func TestRunbooksCoverEveryAlert(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	runbooks := readFile(t, root, "docs/runbooks.md")
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^## (\S+)\s*$`).FindAllStringSubmatch(runbooks, -1) {
		headings[strings.ToLower(m[1])] = true
	}
	for _, r := range alertingRules(t, byKey(renderChart(t, root, release, extrasOn))["PrometheusRule/tether-system/tether"]) {
		if !headings[strings.ToLower(r.Alert)] {
			t.Errorf("docs/runbooks.md has no section \"## %s\"", r.Alert)
		}
	}
}

// TestGitOpsPageShowsTheArgoCDHealthChecks: the argocd-cm snippet in
// docs/gitops.md holds the chart's script for every kind with a status.
func TestGitOpsPageShowsTheArgoCDHealthChecks(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	page := readFile(t, root, "docs/gitops.md")
	var snippet string
	for _, block := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(page, -1) {
		if strings.Contains(block[1], "name: argocd-cm") {
			snippet = block[1]
		}
	}
	g.Expect(snippet).NotTo(BeEmpty(), "docs/gitops.md shows no argocd-cm snippet")
	var cm struct {
		Data map[string]string `json:"data"`
	}
	g.Expect(yaml.Unmarshal([]byte(snippet), &cm)).To(Succeed())
	script := readFile(t, root, "charts/tether/files/argocd/health.lua")
	g.Expect(cm.Data).To(HaveLen(len(kindsWithStatus)))
	for _, kind := range kindsWithStatus {
		g.Expect(cm.Data).To(HaveKeyWithValue("resource.customizations.health."+kind, script))
	}
}

func readFile(t *testing.T, root, path string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
