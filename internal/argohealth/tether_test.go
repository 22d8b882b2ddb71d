package argohealth

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"

	"github.com/tether-dev/tether/internal/repo"
)

// TestTetherHealthOfEveryKindInEveryState evaluates the health check Tether
// ships (charts/tether/files/argocd/health.lua) as Argo CD does, and kstatus
// as Flux does, for an object of every kind the CRDs define in every state
// docs/gitops.md names. The objects are as the generic reconciler writes
// them; controllers' TestGitOpsHealth* check the same over objects the real
// reconciler wrote.
func TestTetherHealthOfEveryKindInEveryState(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "charts", "tether", "files", "argocd", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	cond := func(typ, st, reason string) map[string]any {
		return map[string]any{"type": typ, "status": st, "reason": reason, "message": "m", "lastTransitionTime": "2026-11-28T10:00:00Z"}
	}
	type state struct {
		name        string
		annotations map[string]any
		deleting    bool
		observed    int64
		conditions  []any
		argo        string
		kstatus     status.Status
	}
	const gen = 3
	states := []state{
		{name: "ready", observed: gen, conditions: []any{cond("Ready", "True", "Available"), cond("Synced", "True", "Available")},
			argo: Healthy, kstatus: status.CurrentStatus},
		{name: "ready with a note", observed: gen, conditions: []any{cond("Ready", "True", "Limited")},
			argo: Healthy, kstatus: status.CurrentStatus},
		{name: "progressing: being created", observed: gen, conditions: []any{cond("Ready", "False", "Creating")},
			argo: Progressing, kstatus: status.InProgressStatus},
		{name: "progressing: the generation not acted on yet", observed: gen - 1, conditions: []any{cond("Ready", "True", "Available")},
			argo: Progressing, kstatus: status.InProgressStatus},
		{name: "progressing: never reported", observed: 0, argo: Progressing, kstatus: status.InProgressStatus},
		{name: "failed and retrying", observed: gen, conditions: []any{cond("Ready", "False", "AccessDenied"), cond("Synced", "False", "AccessDenied")},
			argo: Progressing, kstatus: status.InProgressStatus},
		{name: "terminal", observed: gen, conditions: []any{cond("Ready", "False", "InvalidSpec"), cond("Synced", "False", "InvalidSpec"),
			cond("Stalled", "True", "InvalidSpec")}, argo: Degraded, kstatus: status.FailedStatus},
		{name: "paused", annotations: map[string]any{"tether.dev/reconcile": "paused"}, observed: gen,
			conditions: []any{cond("Ready", "True", "Available"), cond("Synced", "False", "Paused")}, argo: Suspended, kstatus: status.CurrentStatus},
		{name: "paused before the first pass", annotations: map[string]any{"tether.dev/reconcile": "paused"},
			argo: Suspended, kstatus: status.InProgressStatus},
		{name: "deleting", deleting: true, observed: gen, conditions: []any{cond("Ready", "True", "Available")},
			argo: Progressing, kstatus: status.TerminatingStatus},
		{name: "deleting, refused by the outside", deleting: true, observed: gen, conditions: []any{cond("Ready", "False", "DeleteFailed")},
			argo: Progressing, kstatus: status.TerminatingStatus},
	}
	crds, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs: %v", err)
	}
	for _, f := range crds {
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Scope string `json:"scope"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema struct {
							Properties struct {
								Status struct {
									Default map[string]any `json:"default"`
								} `json:"status"`
							} `json:"properties"`
						} `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			t.Run(crd.Spec.Names.Kind+"/"+s.name, func(t *testing.T) {
				g := NewWithT(t)
				meta := map[string]any{"name": "x", "generation": int64(gen), "uid": "u"}
				if crd.Spec.Scope == "Namespaced" {
					meta["namespace"] = "team"
				}
				if s.annotations != nil {
					meta["annotations"] = s.annotations
				}
				if s.deleting {
					meta["deletionTimestamp"] = "2026-11-28T11:00:00Z"
					meta["finalizers"] = []any{"tether.dev/finalizer"}
				}
				obj := map[string]any{"apiVersion": crd.Spec.Group + "/v1alpha1", "kind": crd.Spec.Names.Kind, "metadata": meta}
				if s.observed > 0 || s.conditions != nil {
					obj["status"] = map[string]any{"observedGeneration": s.observed, "conditions": s.conditions}
				} else {
					// Before the first pass: the status the API server
					// defaults (observedGeneration -1), without which
					// kstatus would call a new object Current.
					def := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Status.Default
					g.Expect(def).To(HaveKeyWithValue("observedGeneration", BeEquivalentTo(-1)), "the CRD defaults no status")
					obj["status"] = map[string]any{"observedGeneration": int64(-1)}
				}
				argo, message, err := Evaluate(string(script), obj)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(argo).To(Equal(s.argo), "Argo CD: %s", message)
				g.Expect(message).NotTo(BeEmpty(), "Argo CD shows the message beside the health")
				res, err := status.Compute(&unstructured.Unstructured{Object: obj})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(res.Status).To(Equal(s.kstatus), "kstatus: %s", res.Message)
			})
		}
	}
}
