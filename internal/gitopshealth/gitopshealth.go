// Package gitopshealth computes what GitOps tools make of Tether's objects:
// kstatus (Flux, kubectl-based tooling) and the Argo CD health check the
// chart ships (charts/tether/files/argocd/health.lua), and what
// docs/gitops.md promises they make of them. Tests of the generic
// reconciler and of every kind hold the two against each other over
// objects as the real reconciler wrote them to the API server.
package gitopshealth

import (
	"os"
	"path/filepath"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/argohealth"
	"github.com/tether-dev/tether/internal/repo"
)

// Health is what kstatus and Argo CD's health check say of an object.
type Health struct {
	Kstatus status.Status
	Argo    string
}

// The healths docs/gitops.md names.
var (
	Current    = Health{status.CurrentStatus, argohealth.Healthy}
	InProgress = Health{status.InProgressStatus, argohealth.Progressing}
	Failed     = Health{status.FailedStatus, argohealth.Degraded}
	Suspended  = Health{status.InProgressStatus, argohealth.Suspended}
)

// Object is a Tether object: one with the managed part of a status.
type Object interface {
	client.Object
	Managed() *commonv1alpha1.ManagedStatus
}

var (
	scriptOnce sync.Once
	script     string
	scriptErr  error
)

// argoScript is the chart's Argo CD health check.
func argoScript() (string, error) {
	scriptOnce.Do(func() {
		root, err := repo.Root()
		if err != nil {
			scriptErr = err
			return
		}
		raw, err := os.ReadFile(filepath.Join(root, "charts", "tether", "files", "argocd", "health.lua"))
		script, scriptErr = string(raw), err
	})
	return script, scriptErr
}

// Of computes obj's health as kstatus and Argo CD would.
func Of(obj client.Object, scheme *runtime.Scheme) (Health, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return Health{}, err
	}
	u := &unstructured.Unstructured{Object: content}
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return Health{}, err
	}
	u.SetGroupVersionKind(gvk)
	res, err := status.Compute(u)
	if err != nil {
		return Health{}, err
	}
	lua, err := argoScript()
	if err != nil {
		return Health{}, err
	}
	argo, _, err := argohealth.Evaluate(lua, u.Object)
	if err != nil {
		return Health{}, err
	}
	return Health{Kstatus: res.Status, Argo: argo}, nil
}

// Want is what docs/gitops.md promises for obj, from its conditions:
// Suspended (Argo CD) while paused; InProgress until Tether has acted on
// the object's generation; Failed for a reason with which Tether stops
// trying (stopped says which); Current when Ready. A deletion is
// Terminating for kstatus, Progressing for Argo CD.
func Want(obj Object, stopped func(reason string) bool) Health {
	if !obj.GetDeletionTimestamp().IsZero() {
		return Health{Kstatus: status.TerminatingStatus, Argo: argohealth.Progressing}
	}
	var want Health
	ready := meta.FindStatusCondition(obj.Managed().Conditions, commonv1alpha1.Ready)
	switch {
	case obj.Managed().ObservedGeneration != obj.GetGeneration():
		want = InProgress
	case ready != nil && stopped(ready.Reason):
		want = Failed
	case ready != nil && ready.Status == metav1.ConditionTrue:
		want = Current
	default:
		want = InProgress
	}
	if obj.GetAnnotations()[commonv1alpha1.AnnotationReconcile] == commonv1alpha1.ReconcilePaused {
		want.Argo = argohealth.Suspended
	}
	return want
}
