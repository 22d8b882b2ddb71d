package hue

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// PairingInterval is how often Tether asks an unpaired bridge for a
// username: the link button opens a 30 s window, so a few seconds is enough
// to catch it without flooding the bridge.
const PairingInterval = 3 * time.Second

// linkButtonMessage is what a person must do; it is the condition message.
const linkButtonMessage = "press the link button on the bridge"

// BridgeExternal is the HueBridge adapter: pairing (the "external thing" it
// creates is the bridge's username, kept in the credentials Secret) and
// health (reachable and authorised).
type BridgeExternal struct {
	Client   client.Client // creates the credentials Secret
	Registry *Registry
}

var _ providers.External[*huev1alpha1.HueBridge] = (*BridgeExternal)(nil)

// Observe reports the bridge not created while it is not paired, so that
// the reconciler calls Create (pairing). Otherwise the bridge's health is
// the poller's last GET /lights; /config (bridge id, name, API version) is
// read only on first contact, after the bridge comes back, and after the
// address or credentials change (the poller is rebuilt then).
func (e *BridgeExternal) Observe(ctx context.Context, b *huev1alpha1.HueBridge) (providers.Observation, error) {
	p, err := e.Registry.For(ctx, b)
	if ra, ok := providers.AsRetryAfter(err); ok && ra.Reason == ReasonNotPaired {
		setPaired(b, false, ReasonNotPaired, "no credentials yet: "+linkButtonMessage)
		return providers.Observation{}, nil
	}
	if err != nil {
		return providers.Observation{}, err
	}
	if p.needsConfig() || b.Status.BridgeID == "" {
		if err := readConfig(ctx, b, p); err != nil {
			return providers.Observation{}, err
		}
	}
	h := p.health(ctx)
	if h.err != nil {
		err := classify(b.Name, h.err)
		if apiErrorType(h.err) == errUnauthorized {
			setPaired(b, false, ReasonUnauthorized, err.Error())
		}
		return providers.Observation{}, err
	}
	b.Status.LastContactTime = ptrTime(metav1.NewTime(h.lastContact))
	b.Status.LightCount = int32(h.lightCount)
	setPaired(b, true, ReasonPaired, "")
	return providers.Observation{Exists: true, UpToDate: true, Available: true}, nil
}

// readConfig fills the bridge's identity from /config and checks that the
// bridge knows the stored username.
func readConfig(ctx context.Context, b *huev1alpha1.HueBridge, p *Poller) error {
	cfg, err := p.client.GetConfig(ctx)
	if err != nil {
		return classify(b.Name, err)
	}
	b.Status.BridgeID, b.Status.Name, b.Status.APIVersion = cfg.BridgeID, cfg.Name, cfg.APIVersion
	// A bridge answers /config to anyone, with the whitelist only for
	// users it knows: no whitelist means the stored username is refused.
	if cfg.WhitelistMap == nil {
		err := classify(b.Name, apiError(errUnauthorized))
		setPaired(b, false, ReasonUnauthorized, err.Error())
		return err
	}
	p.markConfigRead()
	return nil
}

// Create pairs: it asks the bridge for a username, which succeeds only in
// the 30 s after someone pressed the link button, and stores it.
func (e *BridgeExternal) Create(ctx context.Context, b *huev1alpha1.HueBridge) error {
	if err := allowCredentialsRef(e.Registry.settings.CredentialsNamespaces, b); err != nil {
		return err
	}
	if err := checkWritable(ctx, e.Registry.secrets, b); err != nil {
		return err
	}
	c := e.Registry.settings.NewClient(b.Spec.Address, "", e.Registry.settings.CallTimeout)
	user, err := c.CreateUser(ctx, "tether#"+truncateName(b.Name, 19))
	if apiErrorType(err) == errLinkButton {
		setPaired(b, false, ReasonLinkButton, linkButtonMessage)
		return providers.Pending(PairingInterval, ReasonLinkButton, linkButtonMessage)
	}
	if err != nil {
		return classify(b.Name, err)
	}
	if err := e.storeUsername(ctx, b, user); err != nil {
		return err
	}
	e.Registry.Drop(b.Name)
	setPaired(b, true, ReasonPaired, "paired: credentials stored in the Secret")
	return nil
}

// storeUsername creates the credentials Secret, or fills the one Tether
// created before (secretaccess.go: never one it did not create).
func (e *BridgeExternal) storeUsername(ctx context.Context, b *huev1alpha1.HueBridge, user string) error {
	ref := b.Spec.CredentialsSecretRef
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(user)},
	}
	markOwn(s, b)
	err := e.Client.Create(ctx, s)
	if apierrors.IsAlreadyExists(err) {
		var existing corev1.Secret
		if err := e.Registry.secrets.Get(ctx, client.ObjectKeyFromObject(s), &existing); err != nil {
			return err
		}
		if err := allowWrite(&existing, b); err != nil {
			return err
		}
		if existing.Data == nil {
			existing.Data = map[string][]byte{}
		}
		existing.Data[huev1alpha1.CredentialsKey] = []byte(user)
		err = e.Client.Update(ctx, &existing)
	}
	if err != nil {
		return fmt.Errorf("storing the bridge's credentials in Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	return nil
}

// Update has nothing to change on a bridge.
func (e *BridgeExternal) Update(context.Context, *huev1alpha1.HueBridge, providers.Difference) error {
	return nil
}

// Delete stops the bridge's poller. The credentials Secret stays: it is the
// user's, and recreating the HueBridge then needs no new pairing.
func (e *BridgeExternal) Delete(_ context.Context, b *huev1alpha1.HueBridge) error {
	e.Registry.Drop(b.Name)
	return nil
}

func setPaired(b *huev1alpha1.HueBridge, ok bool, reason, message string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{
		Type: huev1alpha1.ConditionPaired, Status: status, Reason: reason, Message: message,
		ObservedGeneration: b.Generation,
	})
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// truncateName keeps the devicetype within the bridge's 40 characters.
func truncateName(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
