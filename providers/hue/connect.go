package hue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// How a HueBridge becomes a Client: where the bridge is (spec.address, or
// mDNS by spec.bridgeID: discovery.go), which API to speak (spec.apiVersion)
// and what its certificate is checked against (trust.go).
//
// apiVersion Auto asks the bridge for CLIP v2 over HTTPS first (a v2
// bridge answers GET /clip/v2/resource, 403 without a key: aiohue's test)
// and speaks v1 when the address does not speak HTTPS or has no v2. It
// never falls back to plain v1 because a certificate was refused: that
// would let anyone who can answer in the bridge's place turn verification
// off. An address given as http://... is v1, as written.

// APIs as the port's clients name them (the HueBridge's status.api).
const (
	APIV1 = string(huev1alpha1.APIV1)
	APIV2 = string(huev1alpha1.APIV2)
)

// versioned is a Client that names its API.
type versioned interface{ APIVersion() string }

// APIVersion names the API the v1 client speaks.
func (c *v1Client) APIVersion() string { return APIV1 }

// certified is a Client over HTTPS.
type certified interface{ Certificate() CertificateInfo }

// apiOf is the API a client speaks.
func apiOf(c Client) string {
	if v, ok := c.(versioned); ok {
		return v.APIVersion()
	}
	return APIV1
}

// certificateOf is what the client checked of the bridge's certificate.
func certificateOf(c Client) CertificateInfo {
	if cc, ok := c.(certified); ok {
		return cc.Certificate()
	}
	return CertificateInfo{Check: CertificateNone}
}

// dial returns the client the HueBridge asks for, with the config read
// through it (Authorized false when user is "" or unknown to the bridge).
func (r *Registry) dial(ctx context.Context, b *huev1alpha1.HueBridge, user string) (Client, BridgeConfig, error) {
	address, err := r.address(ctx, b)
	if err != nil {
		return nil, BridgeConfig{}, err
	}
	if r.settings.NewClient != nil { // a test's client
		c := r.settings.NewClient(address, user, r.settings.CallTimeout)
		cfg, err := c.Config(ctx)
		return c, cfg, err
	}
	api := b.Spec.APIVersion
	if api == "" {
		api = huev1alpha1.APIAuto
	}
	if api == huev1alpha1.APIV1 || (api == huev1alpha1.APIAuto && strings.HasPrefix(address, "http://")) {
		c := NewClient(address, user, r.settings.CallTimeout)
		cfg, err := c.Config(ctx)
		return c, cfg, err
	}
	trust, err := r.trust(ctx, b)
	if err != nil {
		return nil, BridgeConfig{}, err
	}
	c, err := NewClientV2(address, user, r.settings.CallTimeout, trust)
	if err != nil {
		return nil, BridgeConfig{}, err
	}
	cfg, err := c.Config(ctx)
	if err == nil {
		err = checkBridgeID(certificateOf(c), cfg.BridgeID)
	}
	if err != nil && api == huev1alpha1.APIAuto && noV2(err) {
		r.log.V(1).Info("no CLIP v2 at the address; speaking v1", "hueBridge", b.Name, "reason", err.Error())
		v1 := NewClient(address, user, r.settings.CallTimeout)
		cfg, err := v1.Config(ctx)
		return v1, cfg, err
	}
	return c, cfg, err
}

// noV2 reports whether an error of a v2 call means the address has no
// CLIP v2 (so Auto speaks v1): it does not speak HTTPS, refuses the
// connection, or has no such path. A refused certificate is not one.
func noV2(err error) bool {
	var certErr *CertificateError
	if errors.As(err, &certErr) {
		return false
	}
	if t := apiErrorType(err); t == errNotAvailable {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"server gave HTTP response to HTTPS client", "first record does not look like a TLS handshake",
		"connection refused", "tls: ", "EOF"} {
		if strings.Contains(msg, s) && !strings.Contains(msg, "certificate") {
			return true
		}
	}
	var perr *ProtocolError
	return errors.As(err, &perr)
}

// trust is what the HueBridge's certificate is checked against.
func (r *Registry) trust(ctx context.Context, b *huev1alpha1.HueBridge) (Trust, error) {
	t := Trust{BridgeID: b.Spec.BridgeID, InsecureSkipVerify: b.Spec.InsecureSkipVerify, CABundle: []byte(b.Spec.CABundle)}
	ref := b.Spec.CABundleSecretRef
	if ref == nil {
		return t, nil
	}
	if !slices.Contains(r.settings.CredentialsNamespaces, ref.Namespace) {
		return Trust{}, providers.Terminalf(ReasonCredentialsNamespaceNotAllowed,
			"caBundleSecretRef names a Secret in namespace %q, but Tether reads Secrets only in %s (the manager's --credentials-namespaces)",
			ref.Namespace, quoteAll(r.settings.CredentialsNamespaces))
	}
	key := ref.Key
	if key == "" {
		key = "ca.crt"
	}
	var s corev1.Secret
	err := r.secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) || (err == nil && len(s.Data[key]) == 0) {
		return Trust{}, providers.RetryAfter(time.Minute, ReasonCertificateUntrusted, fmt.Errorf(
			"caBundleSecretRef: Secret %s/%s has no key %q", ref.Namespace, ref.Name, key))
	}
	if err != nil {
		return Trust{}, err
	}
	t.CABundle = append(append(t.CABundle, '\n'), s.Data[key]...)
	return t, nil
}

// checkSpecBridgeID refuses a bridge that is not the one spec.bridgeID
// names (on v1 too, where no certificate says it).
func checkSpecBridgeID(b *huev1alpha1.HueBridge, cfg BridgeConfig) error {
	if b.Spec.BridgeID == "" || cfg.BridgeID == "" || normalizeBridgeID(b.Spec.BridgeID) == normalizeBridgeID(cfg.BridgeID) {
		return nil
	}
	return &CertificateError{Reason: ReasonCertificateMismatch, Detail: fmt.Sprintf(
		"the bridge at the address says it is %s, not spec.bridgeID %s", cfg.BridgeID, b.Spec.BridgeID)}
}
