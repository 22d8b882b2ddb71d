package charttest

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tether-dev/tether/internal/chartdoc"
	"github.com/tether-dev/tether/internal/testenv"
)

// TestChartRefusesWhatItDoesNotKnow: values.schema.json makes `helm install`
// fail on a key the chart does not have (a typo, or a setting another chart
// has) and on a value of the wrong type, instead of rendering and ignoring it.
func TestChartRefusesWhatItDoesNotKnow(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	chrt, err := loader.Load(filepath.Join(root, "charts", "tether"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		values map[string]any
		err    string
	}{
		{"replicas for replicaCount", map[string]any{"replicas": 5}, "replicas"},
		{"a typo in a nested key", map[string]any{"serviceAccount": map[string]any{"crate": false}}, "crate"},
		{"a setting of another chart", map[string]any{"podDisruptionBudget": map[string]any{"maxUnavailable": 1}}, "maxUnavailable"},
		{"a number as a string", map[string]any{"replicaCount": "two"}, "replicaCount"},
		{"a boolean as a string", map[string]any{"serviceMonitor": map[string]any{"enabled": "yes"}}, "enabled"},
		{"a flag without its dashes", map[string]any{"extraArgs": []any{"zap-log-level=debug"}}, "extraArgs"},
		{"a CIDR that is not one", map[string]any{"networkPolicy": map[string]any{"awsCIDRs": []any{"everywhere"}}}, "awsCIDRs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderValues(chrt, release, tc.values)
			NewWithT(t).Expect(err).To(MatchError(ContainSubstring(tc.err)))
		})
	}
	// And the defaults, and every value the tests set, pass.
	_, err = renderValues(chrt, release, nil)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
}

// TestChartSettings checks the settings every chart has.
func TestChartSettings(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	const deployment = "Deployment/tether-system/tether-controller-manager"
	cases := []struct {
		name    string
		release string
		values  map[string]any
		check   func(g Gomega, objs map[string]*unstructured.Unstructured)
	}{{
		name: "defaults: a PDB, GOMEMLIMIT from the limit, instance in the selector, tenant roles",
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			pdb := objs["PodDisruptionBudget/tether-system/tether-controller-manager"]
			g.Expect(pdb).NotTo(BeNil())
			g.Expect(pdb.Object["spec"]).To(HaveKeyWithValue("minAvailable", BeEquivalentTo(1)))
			d := objs[deployment]
			selector, _, _ := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
			g.Expect(selector).To(HaveKeyWithValue("app.kubernetes.io/instance", "tether"))
			pdbSelector, _, _ := unstructured.NestedStringMap(pdb.Object, "spec", "selector", "matchLabels")
			g.Expect(pdbSelector).To(Equal(selector))
			g.Expect(container(g, d)["env"]).To(ContainElement(And(HaveKeyWithValue("name", "TETHER_MEMORY_LIMIT"),
				HaveKeyWithValue("valueFrom", HaveKeyWithValue("resourceFieldRef", HaveKeyWithValue("resource", "limits.memory"))))))
			g.Expect(objs["ClusterRole//tether-view"].GetLabels()).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-view", "true"))
			g.Expect(objs["ClusterRole//tether-edit"].GetLabels()).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-edit", "true"))
			g.Expect(objs).NotTo(HaveKey("NetworkPolicy/tether-system/tether-controller-manager"))
		},
	}, {
		name:   "a ServiceAccount made elsewhere (IRSA by Terraform)",
		values: map[string]any{"serviceAccount": map[string]any{"create": false, "name": "tether-irsa"}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(objs).NotTo(HaveKey(HavePrefix("ServiceAccount/")))
			spec, _, _ := unstructured.NestedMap(objs[deployment].Object, "spec", "template", "spec")
			g.Expect(spec).To(HaveKeyWithValue("serviceAccountName", "tether-irsa"))
			b := objs["ClusterRoleBinding//tether-manager-rolebinding"]
			g.Expect(b.Object["subjects"]).To(ConsistOf(HaveKeyWithValue("name", "tether-irsa")))
		},
	}, {
		name: "pod labels, annotations, priority, placement, volumes",
		values: map[string]any{
			"podLabels":                 map[string]any{"team": "platform"},
			"podAnnotations":            map[string]any{"example.com/scrape": "false"},
			"priorityClassName":         "system-cluster-critical",
			"nodeSelector":              map[string]any{"kubernetes.io/arch": "arm64"},
			"tolerations":               []any{map[string]any{"key": "dedicated", "operator": "Exists"}},
			"topologySpreadConstraints": []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}},
			"extraVolumes":              []any{map[string]any{"name": "ca", "configMap": map[string]any{"name": "corporate-ca"}}},
			"extraVolumeMounts":         []any{map[string]any{"name": "ca", "mountPath": "/etc/corporate-ca"}},
		},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			d := objs[deployment]
			labels, _, _ := unstructured.NestedStringMap(d.Object, "spec", "template", "metadata", "labels")
			g.Expect(labels).To(HaveKeyWithValue("team", "platform"))
			annotations, _, _ := unstructured.NestedStringMap(d.Object, "spec", "template", "metadata", "annotations")
			g.Expect(annotations).To(HaveKeyWithValue("example.com/scrape", "false"))
			spec, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec")
			g.Expect(spec).To(HaveKeyWithValue("priorityClassName", "system-cluster-critical"))
			g.Expect(spec).To(HaveKeyWithValue("nodeSelector", HaveKeyWithValue("kubernetes.io/arch", "arm64")))
			g.Expect(spec["tolerations"]).To(HaveLen(1))
			g.Expect(spec["topologySpreadConstraints"]).To(ConsistOf(And(HaveKeyWithValue("topologyKey", "topology.kubernetes.io/zone"),
				HaveKeyWithValue("labelSelector", HaveKeyWithValue("matchLabels", HaveKeyWithValue("app.kubernetes.io/instance", "tether"))))))
			g.Expect(spec["volumes"]).To(ConsistOf(HaveKeyWithValue("name", "ca")))
			g.Expect(container(g, d)["volumeMounts"]).To(ConsistOf(HaveKeyWithValue("mountPath", "/etc/corporate-ca")))
		},
	}, {
		name: "OpenShift: the platform picks the user, resources of its own",
		values: map[string]any{
			"podSecurityContext": map[string]any{"seccompProfile": nil},
			"securityContext":    map[string]any{"readOnlyRootFilesystem": false},
			"resources":          map[string]any{"requests": map[string]any{"cpu": "200m"}, "limits": map[string]any{"cpu": "1", "memory": "1Gi"}},
		},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			d := objs[deployment]
			psc, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec", "securityContext")
			g.Expect(psc).To(Equal(map[string]any{"runAsNonRoot": true}))
			c := container(g, d)
			g.Expect(c["securityContext"]).To(HaveKeyWithValue("readOnlyRootFilesystem", false))
			g.Expect(c["resources"]).To(HaveKeyWithValue("limits", Equal(map[string]any{"cpu": "1", "memory": "1Gi"})))
		},
	}, {
		name:   "the metrics certificate from a Secret",
		values: map[string]any{"metrics": map[string]any{"certSecret": "tether-metrics-tls"}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			d := objs[deployment]
			c := container(g, d)
			g.Expect(c["args"]).To(ContainElement("--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs"))
			g.Expect(c["volumeMounts"]).To(ConsistOf(And(HaveKeyWithValue("name", "metrics-certs"),
				HaveKeyWithValue("mountPath", "/tmp/k8s-metrics-server/metrics-certs"))))
			volumes, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "volumes")
			g.Expect(volumes).To(ConsistOf(HaveKeyWithValue("secret", HaveKeyWithValue("secretName", "tether-metrics-tls"))))
		},
	}, {
		name:    "name overrides",
		release: "home",
		values:  map[string]any{"nameOverride": "lights"},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(objs).To(HaveKey("Deployment/tether-system/home-lights-controller-manager"))
			labels, _, _ := unstructured.NestedStringMap(objs["Deployment/tether-system/home-lights-controller-manager"].Object,
				"spec", "selector", "matchLabels")
			g.Expect(labels).To(Equal(map[string]string{"app.kubernetes.io/name": "lights", "app.kubernetes.io/instance": "home",
				"app.kubernetes.io/component": "manager"}))
		},
	}, {
		name:   "fullnameOverride",
		values: map[string]any{"fullnameOverride": "ops-tether"},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(objs).To(HaveKey("Deployment/tether-system/ops-tether-controller-manager"))
			g.Expect(objs).To(HaveKey("ServiceAccount/tether-system/ops-tether-controller-manager"))
		},
	}, {
		name: "a NetworkPolicy with the cluster's addresses",
		values: map[string]any{"networkPolicy": map[string]any{"enabled": true,
			"apiServer":  map[string]any{"cidrs": []any{"10.0.0.1/32"}, "port": 443},
			"awsCIDRs":   []any{"0.0.0.0/0"},
			"hueBridges": map[string]any{"cidrs": []any{"192.168.1.0/24"}},
			"metricsFrom": map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{
				"kubernetes.io/metadata.name": "monitoring"}}}}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			np := objs["NetworkPolicy/tether-system/tether-controller-manager"]
			g.Expect(np).NotTo(BeNil())
			spec := np.Object["spec"].(map[string]any)
			g.Expect(spec["policyTypes"]).To(ConsistOf("Ingress", "Egress"))
			g.Expect(spec["podSelector"]).To(HaveKeyWithValue("matchLabels", HaveKeyWithValue("app.kubernetes.io/instance", "tether")))
			egress := spec["egress"].([]any)
			g.Expect(egress).To(HaveLen(4), "DNS, API server, AWS, bridges")
			g.Expect(egress[1]).To(HaveKeyWithValue("to", ConsistOf(HaveKeyWithValue("ipBlock", HaveKeyWithValue("cidr", "10.0.0.1/32")))))
			g.Expect(egress[3]).To(HaveKeyWithValue("ports", ConsistOf(HaveKeyWithValue("port", BeEquivalentTo(443)), HaveKeyWithValue("port", BeEquivalentTo(80)))))
			g.Expect(spec["ingress"]).To(ContainElement(HaveKeyWithValue("from", ConsistOf(HaveKeyWithValue("namespaceSelector",
				HaveKeyWithValue("matchLabels", HaveKeyWithValue("kubernetes.io/metadata.name", "monitoring")))))))
		},
	}, {
		name:   "no PDB, no tenant roles",
		values: map[string]any{"podDisruptionBudget": map[string]any{"enabled": false}, "tenantRoles": map[string]any{"enabled": false}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(objs).NotTo(HaveKey(HavePrefix("PodDisruptionBudget/")))
			g.Expect(objs).NotTo(HaveKey("ClusterRole//tether-view"))
			g.Expect(objs).NotTo(HaveKey("ClusterRole//tether-edit"))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rel := tc.release
			if rel == "" {
				rel = release
			}
			tc.check(NewWithT(t), byKey(renderChart(t, root, rel, tc.values)))
		})
	}
}

// TestChartREADMEIsCurrent: the README's values table is what make docs
// generates from values.yaml now, and every value has a description.
func TestChartREADMEIsCurrent(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	table, err := chartdoc.Table([]byte(readFile(t, root, "charts/tether/values.yaml")))
	g.Expect(err).NotTo(HaveOccurred())
	readme := readFile(t, root, "charts/tether/README.md")
	want, err := chartdoc.Replace(readme, table)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(readme).To(Equal(want), "charts/tether/README.md's values table is stale: run make docs")
}
