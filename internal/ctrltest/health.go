package ctrltest

import (
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/internal/argohealth"
	"github.com/tether-dev/tether/internal/gitopshealth"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
	"github.com/tether-dev/tether/providers/hue"
)

// stoppedReasons are the reasons with which Tether stops trying until the
// spec, an annotation or the external side changes: what the providers
// report as terminal errors, and the stall breaker's. An object with one of
// them is Failed for kstatus and Degraded for Argo CD; with any other it is
// InProgress / Progressing until Ready.
var stoppedReasons = map[string]bool{
	providers.ReasonStalled:                  true,
	access.ReasonInvalidSpec:                 true,
	dynamodb.ReasonNotOwned:                  true,
	dynamodb.ReasonImmutableMismatch:         true,
	dynamodb.ReasonIndexReplacement:          true,
	dynamodb.ReasonRestoreFailed:             true,
	dynamodb.ReasonImportLeftNoTable:         true,
	dynamodb.ReasonUnsupportedByEndpoint:     true,
	dynamodb.ReasonVectorIndexRefused:        true,
	plan.ReasonVectorIndexMismatch:           true,
	plan.ReasonStrongRefused:                 true,
	hue.ReasonInvalidValue:                   true,
	hue.ReasonCredentialsNamespaceNotAllowed: true,
}

// ExpectHealth checks that kstatus and Argo CD read obj as docs/gitops.md
// promises. The integration tests' helpers call it on every object they
// wait for, so every condition reason those tests reach is checked.
func ExpectHealth(g Gomega, obj gitopshealth.Object) {
	got := HealthOf(g, obj)
	if !obj.GetDeletionTimestamp().IsZero() {
		// Argo CD shows a deletion itself, whatever the script says.
		got.Argo = argohealth.Progressing
	}
	g.Expect(got).To(Equal(gitopshealth.Want(obj, func(r string) bool { return stoppedReasons[r] })), "kstatus and Argo CD of %s %s/%s with %v",
		obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), obj.Managed().Conditions)
}

// HealthOf computes obj's health as kstatus and Argo CD would.
func HealthOf(g Gomega, obj client.Object) gitopshealth.Health {
	h, err := gitopshealth.Of(obj, env.Scheme)
	g.Expect(err).NotTo(HaveOccurred())
	return h
}
