package reconciler

import (
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/internal/argohealth"
	"github.com/tether-dev/tether/internal/gitopshealth"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// What GitOps tools make of every outcome of the generic reconciler
// (internal/gitopshealth: kstatus, and the Argo CD health check the chart
// ships), over widgets as the reconciler wrote them to the API server.

// stoppedReasons are the reasons the widgets of these tests stop with: a
// terminal error's, and the stall breaker's.
var stoppedReasons = map[string]bool{"InvalidSpec": true, providers.ReasonStalled: true}

// expectHealth checks that kstatus and Argo CD read w as docs/gitops.md
// promises.
func expectHealth(g Gomega, w *testv1alpha1.Widget) {
	got := healthOf(g, w)
	if !w.GetDeletionTimestamp().IsZero() {
		got.Argo = argohealth.Progressing // Argo CD shows a deletion itself
	}
	g.Expect(got).To(Equal(gitopshealth.Want(w, func(r string) bool { return stoppedReasons[r] })), "%v", w.Status.Conditions)
}

func healthOf(g Gomega, obj client.Object) gitopshealth.Health {
	h, err := gitopshealth.Of(obj, env.Scheme)
	g.Expect(err).NotTo(HaveOccurred())
	return h
}

// readyReason is "Status/Reason" of a condition, "" when it is absent.
func readyReason(conds []metav1.Condition, conditionType string) string {
	c := meta.FindStatusCondition(conds, conditionType)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

// TestGitOpsHealthOfEveryOutcome walks the generic reconciler through every
// outcome a pass can have and checks what kstatus and Argo CD make of the
// object it writes.
func TestGitOpsHealthOfEveryOutcome(t *testing.T) {
	g := NewWithT(t)
	type row struct {
		name   string
		setup  func(name string)
		after  func(t *testing.T, name string) // once the object exists
		ready  string                          // Ready's "Status/Reason" to wait for
		health gitopshealth.Health
	}
	current, inProgress, failed := gitopshealth.Current, gitopshealth.InProgress, gitopshealth.Failed
	rows := []row{
		{name: "ready", ready: "True/Available", health: current},
		{name: "ready-with-a-note", setup: func(n string) { widgets.mode(n, false, "", [2]string{"Limited", "the bulb shows less"}) },
			ready: "True/Limited", health: current},
		{name: "waiting", setup: func(n string) { widgets.mode(n, false, "Conflict", [2]string{}) },
			ready: "False/Conflict", health: inProgress},
		{name: "pending", setup: func(n string) { widgets.fail(n, "Observe", providers.Pendingf(time.Hour, "TableBusy", "busy")) },
			ready: "False/TableBusy", health: inProgress},
		{name: "retrying-a-fault", setup: func(n string) {
			widgets.fail(n, "Observe", providers.RetryAfter(time.Hour, "BridgeUnreachable", errors.New("no answer")))
		}, ready: "False/BridgeUnreachable", health: inProgress},
		{name: "plain-error", setup: func(n string) { widgets.fail(n, "Create", errors.New("something broke")) },
			ready: "False/CreateFailed", health: inProgress},
		{name: "terminal", setup: func(n string) { widgets.fail(n, "Create", providers.Terminalf("InvalidSpec", "size 7 is not allowed")) },
			ready: "False/InvalidSpec", health: failed},
		{name: "stall-breaker", after: func(t *testing.T, n string) {
			waitReady(t, n)
			widgets.mode(n, true, "", [2]string{})
			update(t, n, func(w *testv1alpha1.Widget) { w.Spec.Size = 9 })
		}, ready: "False/" + providers.ReasonStalled, health: failed},
		{name: "paused-before-the-first-pass", setup: func(string) {}, ready: "", health: gitopshealth.Suspended},
		{name: "paused-after-an-edit", after: func(t *testing.T, n string) {
			waitReady(t, n)
			update(t, n, func(w *testv1alpha1.Widget) {
				w.Annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
				w.Spec.Size = 8
			})
		}, ready: "True/Available", health: gitopshealth.Suspended},
	}
	for _, r := range rows {
		name := "health-" + r.name
		if r.setup != nil {
			r.setup(name)
		}
		var annotations map[string]string
		if r.name == "paused-before-the-first-pass" {
			annotations = map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
		}
		create(t, newWidget(name, 7, annotations))
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			name := "health-" + r.name
			if r.after != nil {
				r.after(t, name)
			}
			NewWithT(t).Eventually(func(g Gomega) {
				w := fetch(g, name)
				g.Expect(readyReason(w.Status.Conditions, commonv1alpha1.Ready)).To(Equal(r.ready))
				g.Expect(healthOf(g, w)).To(Equal(r.health))
				expectHealth(g, w)
			}, timeout, poll).Should(Succeed())
		})
	}

	// Stalled is there only while Tether has stopped: a spec that works
	// again clears it.
	widgets.fail("health-terminal", "Create", nil)
	update(t, "health-terminal", func(w *testv1alpha1.Widget) { w.Spec.Size = 6 })
	w := waitReady(t, "health-terminal")
	g.Expect(meta.FindStatusCondition(w.Status.Conditions, commonv1alpha1.Stalled)).To(BeNil())
	g.Expect(healthOf(g, w)).To(Equal(current))

	// A deletion the backend refuses is Terminating for kstatus.
	widgets.fail("health-ready", "Delete", errors.New("backend says no"))
	g.Expect(env.Client.Delete(context.Background(), fetch(g, "health-ready"))).To(Succeed())
	g.Eventually(func(g Gomega) status.Status {
		w := fetch(g, "health-ready")
		g.Expect(readyReason(w.Status.Conditions, commonv1alpha1.Ready)).To(Equal("False/DeleteFailed"))
		return healthOf(g, w).Kstatus
	}, timeout, poll).Should(Equal(status.TerminatingStatus))
	widgets.fail("health-ready", "Delete", nil)
}
