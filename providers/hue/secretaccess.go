package hue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The rules for credentials Secrets, all in this file. A HueBridge is
// cluster-scoped and may name any namespace's Secret, so without them anyone
// allowed to create a HueBridge could make Tether read, or write a username
// into, any Secret it can reach (a confused deputy). So:
//   - credentials Secrets live only in the namespaces the manager is given
//     (--credentials-namespaces, by default its own), where alone its RBAC
//     grants Secret access; a HueBridge naming another namespace is refused
//     before anything is read;
//   - Tether writes only into a Secret it created for that HueBridge (marked
//     by OwnerLabel). It reads a Secret someone else made (a username put
//     there by hand), but never writes into it.
//
// And a username is tied to the bridge that issued it (so that a HueBridge
// naming someone else's Secret and pointing at its own server gets
// nothing):
//   - the Secret holds the bridge's id beside the username (BridgeIDKey):
//     Tether writes it when it pairs, and refuses a Secret made by hand
//     without it (CredentialsBridgeIDMissing);
//   - the username goes only to a bridge that proves that id: over CLIP v2
//     a verified certificate naming it, checked in the TLS handshake before
//     anything is sent; over v1 the id the bridge reports, which proves
//     only that whoever answers at the address says so
//     (CredentialsForAnotherBridge, connect.go);
//   - a Secret one HueBridge uses (Tether paired it for it, or it is bound
//     with it) is refused to another unless that one names the same bridge
//     id in spec.bridgeID (CredentialsSecretInUse, checkSecretUser). The
//     owner label wins over what is bound now: the HueBridge Tether paired
//     the Secret for may always use it;
//   - the Secret records how the bridge was proven (ProofKey, proof.go)
//     when Tether pairs, or else at the first binding with it, and the
//     username goes only over that proof or a certificate chained to a Hue
//     root (BridgeProofMismatch, connect.go), whether or not a session
//     exists. That first binding is the owner's for a Secret Tether paired
//     (another HueBridge waits for it: CredentialsSecretInUse), and
//     whichever HueBridge binds first for a Secret made by hand or whose
//     owner is gone: the one key Tether writes into a Secret it did not
//     create, and only into one that holds a username and a bridge id.

// OwnerLabel marks a credentials Secret that Tether created for a HueBridge;
// its value is the HueBridge's name.
const OwnerLabel = "hue.tether.dev/bridge"

// notOwnedDelay spaces the looks at a Secret Tether may not write into: the
// person who fixes it (deletes it, or puts the username in) changes nothing
// Tether watches (it has no Secret informer), so the HueBridge looks again
// as often as one waiting for its link button: a GET of one Secret.
const notOwnedDelay = PairingMaxInterval

// credentialsArrivedDelay is the wait before binding with a username that
// was put into the Secret while Tether was about to pair.
const credentialsArrivedDelay = time.Second

// allowCredentialsRef refuses a HueBridge whose Secret is in a namespace
// Tether may not use. Only a new spec (or a manager started with other
// namespaces) changes that, so it is terminal.
func allowCredentialsRef(namespaces []string, b *huev1alpha1.HueBridge) error {
	ns := b.Spec.CredentialsSecretRef.Namespace
	if slices.Contains(namespaces, ns) {
		return nil
	}
	return providers.Terminalf(ReasonCredentialsNamespaceNotAllowed,
		"credentialsSecretRef names a Secret in namespace %q, but Tether keeps credentials only in %s (the manager's --credentials-namespaces): move the Secret there and change the HueBridge",
		ns, quoteAll(namespaces))
}

// markOwn labels a Secret Tether is about to create for the bridge.
func markOwn(s *corev1.Secret, b *huev1alpha1.HueBridge) {
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[OwnerLabel] = b.Name
}

// allowWrite refuses to write into a Secret Tether did not create for b.
// One that holds a username is not refused but answered as credentials that
// arrived: someone put them there after this pass found none.
func allowWrite(s *corev1.Secret, b *huev1alpha1.HueBridge) error {
	if s.Labels[OwnerLabel] == b.Name {
		return nil
	}
	if hasUsername(s) {
		return credentialsArrived(s)
	}
	return providers.RetryAfter(notOwnedDelay, ReasonCredentialsSecretNotOwned, fmt.Errorf(
		"Secret %s/%s exists but Tether did not create it, and it holds no %q: Tether writes only into Secrets it created (label %s=%s); put the bridge's username in it, or delete it so that Tether creates it when paired",
		s.Namespace, s.Name, huev1alpha1.CredentialsKey, OwnerLabel, b.Name))
}

// checkWritable is the check before pairing: a username the bridge issues
// must have a Secret to go to, or the bridge keeps a user nobody can use.
// It reads the Secret again, after the pass's first read found no username:
// one that holds a username now (created or filled in between, as by
// `kubectl apply` of the HueBridge before its Secret) is used, not paired
// over and not refused.
func checkWritable(ctx context.Context, secrets client.Reader, b *huev1alpha1.HueBridge) error {
	ref := b.Spec.CredentialsSecretRef
	var s corev1.Secret
	err := secrets.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if hasUsername(&s) {
		return credentialsArrived(&s)
	}
	return allowWrite(&s, b)
}

func hasUsername(s *corev1.Secret) bool {
	return len(s.Data[huev1alpha1.CredentialsKey]) > 0
}

// credentialsArrived asks for the next pass, which binds the HueBridge with
// the username now in the Secret.
func credentialsArrived(s *corev1.Secret) error {
	return providers.Pendingf(credentialsArrivedDelay, ReasonNotPaired,
		"Secret %s/%s now holds a %q: binding with it", s.Namespace, s.Name, huev1alpha1.CredentialsKey)
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "no namespace"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// secretInUseDelay spaces the looks at a Secret another HueBridge uses:
// only a spec change (or that HueBridge's deletion) resolves it.
const secretInUseDelay = time.Minute

// checkSecretUser refuses a Secret another HueBridge uses, and says
// whether b's binding may record the Secret's proof (mayRecord). The
// Secret's user is the HueBridge Tether paired it for (cred.owner, its
// OwnerLabel) while it exists (reader serves HueBridges), else boundWith:
// a HueBridge bound with it now ("" for none). The owner itself is never
// refused. Another HueBridge may use it only naming the Secret's bridge id
// in spec.bridgeID, and, while the owner exists, only once the Secret
// records a proof (the owner's first binding records it): until then
// nothing tells which bridge the owner proved.
func checkSecretUser(ctx context.Context, reader client.Reader, b *huev1alpha1.HueBridge, cred credentials, boundWith string) (mayRecord bool, err error) {
	if cred.owner == b.Name {
		return !cred.recorded, nil
	}
	ownerLives := false
	if cred.owner != "" {
		err := reader.Get(ctx, types.NamespacedName{Name: cred.owner}, &huev1alpha1.HueBridge{})
		switch {
		case err == nil:
			ownerLives = true
		case !apierrors.IsNotFound(err):
			return false, err
		}
	}
	ref := b.Spec.CredentialsSecretRef
	namesID := b.Spec.BridgeID != "" && wire.SameBridgeID(b.Spec.BridgeID, cred.bridgeID)
	switch {
	case namesID && ownerLives && !cred.recorded:
		return false, providers.RetryAfter(secretInUseDelay, ReasonCredentialsSecretInUse, fmt.Errorf(
			"Secret %s/%s is HueBridge %s's credentials, and records no proof of its bridge yet: another HueBridge may use them once HueBridge %s is bound and has recorded how bridge %s proves itself",
			ref.Namespace, ref.Name, cred.owner, cred.owner, cred.bridgeID))
	case namesID:
		return !ownerLives && !cred.recorded, nil
	}
	user := boundWith
	if ownerLives {
		user = cred.owner
	}
	if user == "" {
		return !cred.recorded, nil
	}
	return false, providers.RetryAfter(secretInUseDelay, ReasonCredentialsSecretInUse, fmt.Errorf(
		"Secret %s/%s is HueBridge %s's credentials: another HueBridge may use them only naming their bridge in spec.bridgeID (%s)",
		ref.Namespace, ref.Name, user, cred.bridgeID))
}
