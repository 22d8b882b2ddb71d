package hue

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// Every read and write of a HueBridge's credentials Secret is in this file,
// under the rules of secretaccess.go (which namespaces, which Secrets may be
// written). The username is read with an uncached reader (no cluster-wide
// Secret informer), never logged, and never put in an error.

// notPairedDelay spaces the HueLights' looks at a bridge that is not paired
// yet; pairing itself has its own pace (PairingInterval).
const notPairedDelay = 10 * time.Second

// credentials are what a credentials Secret holds: the username, the id
// of the bridge that issued it (in its one form, wire.NormalizeBridgeID),
// the HueBridge Tether paired it for (OwnerLabel; "" for a Secret made by
// hand), and how the bridge was proven when the username was first sent
// (proof, when recorded: ProofKey).
type credentials struct {
	username string
	bridgeID string
	owner    string
	proof    wire.Identity
	recorded bool
	// mayRecord: the Secret records no proof yet and this HueBridge's
	// binding may record it (checkSecretUser decides).
	mayRecord bool
}

// readCredentials reads the username the bridge issued at pairing and the
// bridge id it belongs to. A username without a bridge id is refused
// before anything is sent: Tether could not tell which bridge may have it.
func readCredentials(ctx context.Context, secrets client.Reader, b *huev1alpha1.HueBridge) (credentials, error) {
	ref := b.Spec.CredentialsSecretRef
	var s corev1.Secret
	err := secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) || (err == nil && len(s.Data[huev1alpha1.CredentialsKey]) == 0) {
		return credentials{}, providers.RetryAfter(notPairedDelay, ReasonNotPaired, fmt.Errorf(
			"HueBridge %s is not paired yet (no %q in Secret %s/%s): see its Paired condition",
			b.Name, huev1alpha1.CredentialsKey, ref.Namespace, ref.Name))
	}
	if err != nil {
		return credentials{}, err
	}
	cred := credentials{username: string(s.Data[huev1alpha1.CredentialsKey]), bridgeID: wire.NormalizeBridgeID(string(s.Data[huev1alpha1.BridgeIDKey])),
		owner: s.Labels[OwnerLabel]}
	if rec, ok := s.Data[huev1alpha1.ProofKey]; ok {
		proof, err := wire.ParseIdentity(string(rec))
		if err != nil {
			return credentials{}, providers.RetryAfter(notOwnedDelay, ReasonBridgeProofMismatch, fmt.Errorf(
				"Secret %s/%s holds a %q Tether cannot read (%v): the username is not sent; delete that key only if the bridge at the HueBridge's address is the one that issued the username",
				ref.Namespace, ref.Name, huev1alpha1.ProofKey, err))
		}
		cred.proof, cred.recorded = proof, true
	}
	if cred.bridgeID == "" {
		return credentials{}, providers.RetryAfter(notOwnedDelay, ReasonCredentialsBridgeIDMissing, fmt.Errorf(
			"Secret %s/%s holds a %q but no %q: Tether sends a username only to the bridge that issued it, so add that bridge's id (the Hue app: Settings > Bridges; or its /api/config) as %q, or delete the Secret and press the link button to pair again",
			ref.Namespace, ref.Name, huev1alpha1.CredentialsKey, huev1alpha1.BridgeIDKey, huev1alpha1.BridgeIDKey))
	}
	return cred, nil
}

// storeCredentials creates the credentials Secret, or fills the one Tether
// created before (secretaccess.go: never one it did not create): the
// username, the client key beside it, the id of the bridge that issued
// them, and how that bridge was proven when it did (proof).
func storeCredentials(ctx context.Context, c client.Client, secrets client.Reader, b *huev1alpha1.HueBridge, cred wire.Credentials, bridgeID string, proof wire.Identity) error {
	ref := b.Spec.CredentialsSecretRef
	data := map[string][]byte{huev1alpha1.CredentialsKey: []byte(cred.Username), huev1alpha1.BridgeIDKey: []byte(bridgeID),
		huev1alpha1.ProofKey: []byte(proof.Record())}
	if cred.ClientKey != "" {
		data[huev1alpha1.ClientKeyKey] = []byte(cred.ClientKey)
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
	markOwn(s, b)
	err := c.Create(ctx, s)
	if apierrors.IsAlreadyExists(err) {
		var existing corev1.Secret
		if err := secrets.Get(ctx, client.ObjectKeyFromObject(s), &existing); err != nil {
			return err
		}
		if err := allowWrite(&existing, b); err != nil {
			return err
		}
		if existing.Data == nil {
			existing.Data = map[string][]byte{}
		}
		for k, v := range data {
			existing.Data[k] = v
		}
		err = c.Update(ctx, &existing)
	}
	if err != nil {
		return fmt.Errorf("storing the bridge's credentials in Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	return nil
}

// recordProof writes how the bridge was proven into a Secret that records
// none yet, at the first binding that may (checkSecretUser): only that key,
// and only while the Secret still holds the username and bridge id that
// binding used (otherwise the next binding decides again). A Secret that
// gained a record meanwhile keeps it.
func recordProof(ctx context.Context, c client.Client, secrets client.Reader, b *huev1alpha1.HueBridge, used credentials, proof wire.Identity) error {
	ref := b.Spec.CredentialsSecretRef
	var s corev1.Secret
	if err := secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &s); err != nil {
		return client.IgnoreNotFound(err)
	}
	if _, ok := s.Data[huev1alpha1.ProofKey]; ok ||
		string(s.Data[huev1alpha1.CredentialsKey]) != used.username ||
		!wire.SameBridgeID(string(s.Data[huev1alpha1.BridgeIDKey]), used.bridgeID) ||
		s.Labels[OwnerLabel] != used.owner {
		return nil
	}
	s.Data[huev1alpha1.ProofKey] = []byte(proof.Record())
	if err := c.Update(ctx, &s); err != nil {
		return fmt.Errorf("recording how the bridge was proven in Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	return nil
}
