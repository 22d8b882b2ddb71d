// Package charttest keeps the Helm chart (charts/tether) in step with the
// kustomize install (config/default): rendered with its default values, the
// chart must hold the same objects with the same content, and helm's own
// linter must find nothing wrong with it. Helm's Go packages render it, as
// `helm template` and `helm lint` do.
package charttest

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/tether-dev/tether/internal/testenv"
)

const (
	release   = "tether"
	namespace = "tether-system"
)

// onlyInKustomize are objects config/default has and the chart does not,
// with the reason.
var onlyInKustomize = map[string]string{
	// Helm installs into a namespace that exists (helm install
	// --create-namespace, or kubectl create namespace first, where it can
	// carry the pod-security label config/default sets).
	"Namespace//tether-system": "helm installs into an existing namespace",
}

// TestChartRendersWhatKustomizeRenders compares every object of the two
// installs, field by field, except that the chart may add labels and
// annotations (Helm's own, and keep on the CRDs).
func TestChartRendersWhatKustomizeRenders(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())

	kustomized := byKey(withoutNamespaceWhereClusterScoped(testenv.ReadManifest(t, testenv.RenderInstall(t, root))))
	charted := byKey(renderChart(t, root, release, nil))

	for key, want := range kustomized {
		got, ok := charted[key]
		if !ok {
			if onlyInKustomize[key] == "" {
				t.Errorf("config/default has %s, the chart does not", key)
			}
			continue
		}
		compare(t, key, want, got)
	}
	for key := range charted {
		if _, ok := kustomized[key]; !ok {
			t.Errorf("the chart has %s, config/default does not", key)
		}
	}
	// Every CRD the chart installs is kept on uninstall.
	for key, obj := range charted {
		if obj.GetKind() == "CustomResourceDefinition" {
			g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"), key)
		}
	}
}

// compare fails when want and got differ anywhere but in labels and
// annotations, and when got lacks one of want's labels or annotations.
func compare(t *testing.T, key string, want, got *unstructured.Unstructured) {
	t.Helper()
	for k, v := range want.GetLabels() {
		if got.GetLabels()[k] != v {
			t.Errorf("%s: the chart's label %s is %q, config/default's %q", key, k, got.GetLabels()[k], v)
		}
	}
	for k, v := range want.GetAnnotations() {
		if got.GetAnnotations()[k] != v {
			t.Errorf("%s: the chart's annotation %s is %q, config/default's %q", key, k, got.GetAnnotations()[k], v)
		}
	}
	w, g := stripMeta(want), stripMeta(got)
	if !equality.Semantic.DeepEqual(w.Object, g.Object) {
		t.Errorf("%s differs between config/default and the chart:\n%s", key, diff(w.Object, g.Object, ""))
	}
}

func stripMeta(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	c.SetLabels(nil)
	c.SetAnnotations(nil)
	return c
}

// diff lists the paths where two decoded YAML values differ.
func diff(want, got any, path string) string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		keys := map[string]bool{}
		for k := range wm {
			keys[k] = true
		}
		for k := range gm {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		var out strings.Builder
		for _, k := range sorted {
			out.WriteString(diff(wm[k], gm[k], path+"."+k))
		}
		return out.String()
	}
	if equality.Semantic.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("  %s: config/default %v, chart %v\n", path, want, got)
}

// TestChartValues checks what the values change.
func TestChartValues(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		release string
		values  map[string]any
		check   func(g Gomega, objs map[string]*unstructured.Unstructured)
	}{{
		name: "image, replicas, resources, region and flags",
		values: map[string]any{
			"image":        map[string]any{"repository": "registry.example:5000/platform/tether", "tag": "v1.2.3", "pullPolicy": "Always"},
			"replicaCount": 3,
			"resources":    map[string]any{"limits": map[string]any{"memory": "1Gi"}},
			"awsRegion":    "eu-west-1",
			"extraArgs":    []any{"--hue-poll-interval=10s"},
		},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			d := objs["Deployment/tether-system/tether-controller-manager"]
			g.Expect(d).NotTo(BeNil())
			c := container(g, d)
			g.Expect(c["image"]).To(Equal("registry.example:5000/platform/tether:v1.2.3"))
			g.Expect(c["imagePullPolicy"]).To(Equal("Always"))
			g.Expect(c["args"]).To(ContainElements("--aws-region=eu-west-1", "--hue-poll-interval=10s", "--leader-elect"))
			// Helm merges given values into the defaults: the requests stay.
			g.Expect(c["resources"]).To(Equal(map[string]any{"limits": map[string]any{"memory": "1Gi"},
				"requests": map[string]any{"cpu": "50m", "memory": "64Mi"}}))
			g.Expect(d.Object["spec"].(map[string]any)["replicas"]).To(BeEquivalentTo(3))
		},
	}, {
		name:   "every namespace on the operator's own AWS identity",
		values: map[string]any{"awsRequireAccount": false},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			args := container(g, objs["Deployment/tether-system/tether-controller-manager"])["args"]
			g.Expect(args).To(ContainElement("--aws-require-account=false"))
			g.Expect(args).NotTo(ContainElement("--aws-require-account=true"))
		},
	}, {
		name: "the operator's own DynamoDB change feed",
		values: map[string]any{"dynamodbChangeEvents": map[string]any{
			"queue": "https://sqs.eu-west-1.amazonaws.com/111122223333/tether-changes", "safetyInterval": "1h"}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(container(g, objs["Deployment/tether-system/tether-controller-manager"])["args"]).To(ContainElements(
				"--dynamodb-change-events-queue=https://sqs.eu-west-1.amazonaws.com/111122223333/tether-changes",
				"--dynamodb-change-events-safety-interval=1h"))
		},
	}, {
		name:   "without leader election",
		values: map[string]any{"leaderElection": map[string]any{"enabled": false}, "replicaCount": 1},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(container(g, objs["Deployment/tether-system/tether-controller-manager"])["args"]).NotTo(ContainElement("--leader-elect"))
			g.Expect(objs).NotTo(HaveKey("Role/tether-system/tether-leader-election-role"))
		},
	}, {
		name:   "plain HTTP metrics",
		values: map[string]any{"metrics": map[string]any{"secure": false, "port": 8080}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			c := container(g, objs["Deployment/tether-system/tether-controller-manager"])
			g.Expect(c["args"]).To(ContainElements("--metrics-secure=false", "--metrics-bind-address=:8080"))
			g.Expect(c["ports"]).To(ConsistOf(And(HaveKeyWithValue("name", "http"), HaveKeyWithValue("containerPort", BeEquivalentTo(8080)))))
			g.Expect(objs).NotTo(HaveKey("ClusterRole//tether-metrics-auth-role"))
		},
	}, {
		name:   "credentials in two namespaces",
		values: map[string]any{"credentialsNamespaces": []any{"home", "office"}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			c := container(g, objs["Deployment/tether-system/tether-controller-manager"])
			g.Expect(c["args"]).To(ContainElement("--credentials-namespaces=home,office"))
			for _, ns := range []string{"home", "office"} {
				role := objs["Role/"+ns+"/tether-manager-role"]
				g.Expect(role).NotTo(BeNil(), "no Secret access in %s", ns)
				g.Expect(role.Object["rules"]).To(ContainElement(HaveKeyWithValue("resources", ContainElement("secrets"))))
				g.Expect(objs).To(HaveKey("RoleBinding/" + ns + "/tether-manager-rolebinding"))
			}
			g.Expect(objs).NotTo(HaveKey("Role/tether-system/tether-manager-role"), "Secret access where no credentials are")
		},
	}, {
		name:   "CRDs left out",
		values: map[string]any{"crds": map[string]any{"install": false}},
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			for key := range objs {
				g.Expect(key).NotTo(HavePrefix("CustomResourceDefinition/"))
			}
		},
	}, {
		name:    "another release name",
		release: "lights",
		check: func(g Gomega, objs map[string]*unstructured.Unstructured) {
			g.Expect(objs).To(HaveKey("Deployment/tether-system/lights-tether-controller-manager"))
			b := objs["ClusterRoleBinding//lights-tether-manager-rolebinding"]
			g.Expect(b).NotTo(BeNil())
			g.Expect(b.Object["subjects"]).To(ConsistOf(HaveKeyWithValue("name", "lights-tether-controller-manager")))
			g.Expect(b.Object["roleRef"]).To(HaveKeyWithValue("name", "lights-tether-manager-role"))
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

// TestChartLints runs helm lint's checks, strictly (warnings fail too).
func TestChartLints(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	result := lint.All(filepath.Join(root, "charts", "tether"), nil, namespace, true)
	for _, m := range result.Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint: %s", m)
		}
	}
}

func container(g Gomega, d *unstructured.Unstructured) map[string]any {
	g.Expect(d).NotTo(BeNil())
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	g.Expect(cs).To(HaveLen(1))
	return cs[0].(map[string]any)
}

// renderChart is `helm template <rel> charts/tether -n tether-system` with
// the given values.
func renderChart(t *testing.T, root, rel string, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	chrt, err := loader.Load(filepath.Join(root, "charts", "tether"))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := renderValues(chrt, rel, values)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(chrt, vals)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(files[name]), 4096)
		for {
			var u unstructured.Unstructured
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatalf("%s: %v\n%s", name, err, files[name])
			}
			if len(u.Object) > 0 {
				out = append(out, &u)
			}
		}
	}
	return out
}

// renderValues are the values a template sees, validated against
// values.schema.json as `helm install` and `helm template` validate them,
// against a cluster as the tests' API server is: one that serves
// ValidatingAdmissionPolicy (helm template's defaults know nothing of the
// cluster, so name what discovery reports).
func renderValues(chrt *chart.Chart, rel string, values map[string]any) (chartutil.Values, error) {
	return chartutil.ToRenderValuesWithSchemaValidation(chrt, values,
		chartutil.ReleaseOptions{Name: rel, Namespace: namespace, IsInstall: true, Revision: 1},
		clusterCapabilities(), false)
}

// clusterCapabilities are helm template's defaults and the kinds a 1.30 or
// later API server reports that the chart asks about.
func clusterCapabilities() *chartutil.Capabilities {
	c := *chartutil.DefaultCapabilities
	c.APIVersions = append(append(chartutil.VersionSet{}, c.APIVersions...), "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")
	return &c
}

// clusterScopedKindsKustomizeDoesNotKnow are cluster-scoped kinds newer
// than the schema of the kustomize kubectl embeds: it gives them
// config/default's namespace, which the API server ignores for them.
var clusterScopedKindsKustomizeDoesNotKnow = map[string]bool{"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true}

func withoutNamespaceWhereClusterScoped(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	for _, o := range objs {
		if clusterScopedKindsKustomizeDoesNotKnow[o.GetKind()] {
			o.SetNamespace("")
		}
	}
	return objs
}

// byKey indexes objects by kind/namespace/name.
func byKey(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		out[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = o
	}
	return out
}
