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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/logr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// How a HueBridge becomes a Client: where the bridge is (spec.address, or
// mDNS by spec.bridgeID: discovery.go), which API to speak (spec.apiVersion)
// and what its certificate is checked against (trust.go). It happens in two
// steps, so that no username leaves before the bridge is proven:
//
//   - reach decides the API and learns which bridge answers without
//     sending credentials: over v2 an unauthenticated GET /clip/v2/resource
//     (a v2 bridge answers 403: aiohue's test) and the public /api/config,
//     on a connection whose certificate is verified and must name the
//     expected id (spec.bridgeID, else the id the HueBridge was bound to
//     before, status.bridgeID, else the credentials' bridge id) or, when
//     none is known yet (pairing a new HueBridge), the id the bridge
//     reports; over v1 the public /api/config;
//   - dial then checks that the bridge proved the id the credentials belong
//     to, that the HueBridge may share that bridge's session (identity.go)
//     and that it proves the bridge as the credentials Secret records
//     (checkRecordedProof), and only then builds the client with the
//     username, its certificate pinned to the id (and, below a Hue root,
//     to the certificate the probe checked) on every connection.
//
// apiVersion Auto speaks v2 when the address serves it and v1 otherwise,
// and never falls back to plain v1 because a certificate was refused: that
// would let anyone who can answer in the bridge's place turn verification
// off. Once a bridge was proven over verified v2 Auto does not fall back to
// plain v1 for it at all (a refused port 443, a TLS alert and a plain-HTTP
// answer are as easy to fake): DowngradeRefused, and nothing is sent. What
// says it was is kept with the credentials, where a re-created HueBridge
// finds it too: the Secret's proof (ProofKey) is a verified certificate.
// (status.verifiedV2BridgeID says so as well, and refuses too, but a status
// is lost with its object and anyone with patch on it can clear it.) Only
// spec.apiVersion V1, set by hand on the HueBridge the Secret was paired
// for, allows plain v1 then (recordedProofAllows). A first Auto binding
// that lands on plain v1 is Ready with reason PlainV1 and one Warning
// event. An address given as http://... is v1, as written.

// downgradeRefusedDelay spaces the retries: the bridge may answer over v2
// again (a restart), and a spec change rebinds at once anyway.
const downgradeRefusedDelay = 30 * time.Second

// dialer reaches and dials bridges for the registry: where a HueBridge's
// bridge is, which API it speaks and what its certificate is checked
// against, all before any username leaves.
type dialer struct {
	settings Settings
	secrets  client.Reader // CA bundles (uncached)
	found    *discovered   // addresses found by mDNS
	log      logr.Logger
}

// reached is a bridge reached at a HueBridge's address before any
// credentials went to it: its public config (the id), a client without
// credentials, and how to build the one that carries a username (of the
// API it speaks).
type reached struct {
	address string
	config  wire.BridgeConfig
	probe   wire.Client // without credentials: pairing asks through it
	// withUser builds the client with a username, its certificate pinned
	// to the id the bridge proved.
	withUser func(user string) (wire.Client, error)
}

// expectedID is the bridge a HueBridge is for: spec.bridgeID, else the one
// it was bound to before (status.bridgeID, pinned), else "" (not known).
func expectedID(b *huev1alpha1.HueBridge) string {
	if b.Spec.BridgeID != "" {
		return b.Spec.BridgeID
	}
	return b.Status.BridgeID
}

// dial reaches the HueBridge's bridge and returns a client with the
// credentials' username and the config read through it, once the bridge
// proved the id the credentials belong to and admit let the HueBridge
// share that bridge's session. Every refusal comes before the username is
// sent.
func (d *dialer) dial(ctx context.Context, b *huev1alpha1.HueBridge, cred credentials,
	admit func(b *huev1alpha1.HueBridge, bridgeID string, id wire.Identity) error) (wire.Client, wire.BridgeConfig, reached, error) {
	want := expectedID(b)
	if want != "" && !wire.SameBridgeID(want, cred.bridgeID) {
		return nil, wire.BridgeConfig{}, reached{}, credentialsForAnotherBridge(b, cred, "this HueBridge is for bridge "+want+" ("+expectedIDSource(b)+")")
	}
	// Over v2 the handshake already refuses a certificate of another id
	// than the credentials': not even the probe reaches another bridge.
	rc, err := d.reach(ctx, b, want, cred.bridgeID, cred)
	if err != nil {
		return nil, wire.BridgeConfig{}, reached{}, err
	}
	id := wire.IdentityOf(rc.probe, rc.address)
	if !wire.SameBridgeID(rc.config.BridgeID, cred.bridgeID) {
		return nil, wire.BridgeConfig{}, rc, credentialsForAnotherBridge(b, cred, fmt.Sprintf("the bridge at %s proves it is %s (%s)", rc.address, rc.config.BridgeID, id))
	}
	if err := admit(b, rc.config.BridgeID, id); err != nil {
		return nil, wire.BridgeConfig{}, rc, err
	}
	if err := checkRecordedProof(b, cred, id); err != nil {
		return nil, wire.BridgeConfig{}, rc, err
	}
	c, err := rc.withUser(cred.username)
	if err != nil {
		return nil, wire.BridgeConfig{}, rc, err
	}
	cfg, err := c.Config(ctx)
	return c, cfg, rc, err
}

func expectedIDSource(b *huev1alpha1.HueBridge) string {
	if b.Spec.BridgeID != "" {
		return "spec.bridgeID"
	}
	return "status.bridgeID, the bridge it was bound to"
}

// credentialsForAnotherBridge refuses to send a Secret's username to a
// bridge that does not prove the id it belongs to.
func credentialsForAnotherBridge(b *huev1alpha1.HueBridge, cred credentials, why string) error {
	ref := b.Spec.CredentialsSecretRef
	return providers.RetryAfter(time.Minute, ReasonCredentialsForAnotherBridge, fmt.Errorf(
		"Secret %s/%s holds the username of bridge %s, but %s: the username is not sent", ref.Namespace, ref.Name, cred.bridgeID, why))
}

// reach finds the HueBridge's bridge and learns its id without sending
// credentials. want is the id expected (expectedID: "" when none is known
// yet); a v2 certificate must name certID (want, or the credentials' id,
// when one of them is set); cred are the credentials about to be sent
// (none when pairing), whose recorded proof may forbid plain v1.
func (d *dialer) reach(ctx context.Context, b *huev1alpha1.HueBridge, want, certID string, cred credentials) (reached, error) {
	address, err := d.address(ctx, b)
	if err != nil {
		return reached{}, err
	}
	timeout := d.settings.CallTimeout
	if d.settings.NewClient != nil { // a test's client
		probe := d.settings.NewClient(address, "", timeout)
		rc := reached{address: address, probe: probe,
			withUser: func(user string) (wire.Client, error) { return d.settings.NewClient(address, user, timeout), nil }}
		if rc.config, err = probe.Config(ctx); err != nil {
			return reached{}, err
		}
		return rc, checkReportedID(want, rc.config.BridgeID)
	}
	api := b.Spec.APIVersion
	if api == "" {
		api = huev1alpha1.APIAuto
	}
	if api == huev1alpha1.APIV1 || (api == huev1alpha1.APIAuto && strings.HasPrefix(address, "http://")) {
		if api == huev1alpha1.APIAuto && verifiedOverV2(b, cred) {
			return reached{}, downgradeRefused(b, cred, errors.New("the address is http://"))
		}
		return d.reachV1(ctx, address, want)
	}
	rc, err := d.reachV2(ctx, b, address, want, certID)
	if err == nil || api == huev1alpha1.APIV2 || !noV2(err) {
		return rc, err
	}
	if verifiedOverV2(b, cred) {
		return reached{}, downgradeRefused(b, cred, err)
	}
	d.log.V(1).Info("no CLIP v2 at the address; speaking v1", "hueBridge", b.Name, "reason", err.Error())
	return d.reachV1(ctx, address, want)
}

// reachV1 reads the public /api/config over plain HTTP.
func (d *dialer) reachV1(ctx context.Context, address, want string) (reached, error) {
	timeout := d.settings.CallTimeout
	probe := wire.NewClient(address, "", timeout)
	cfg, err := probe.Config(ctx)
	if err != nil {
		return reached{}, err
	}
	rc := reached{address: address, config: cfg, probe: probe,
		withUser: func(user string) (wire.Client, error) { return wire.NewClient(address, user, timeout), nil }}
	return rc, checkReportedID(want, cfg.BridgeID)
}

// reachV2 asks, without a key, whether the address serves CLIP v2 and
// which bridge it is, over a connection whose certificate trust.go
// verified (against want, else certID, when known).
func (d *dialer) reachV2(ctx context.Context, b *huev1alpha1.HueBridge, address, want, certID string) (reached, error) {
	trust, err := d.trust(ctx, b)
	if err != nil {
		return reached{}, err
	}
	trust.BridgeID = certID
	if want != "" {
		trust.BridgeID = want
	}
	timeout := d.settings.CallTimeout
	probe, cfg, err := wire.ProbeV2(ctx, address, timeout, trust)
	if err != nil {
		return reached{}, err
	}
	if err := checkReportedID(want, cfg.BridgeID); err != nil {
		return reached{}, err
	}
	trust.BridgeID = cfg.BridgeID // every later connection must name it
	if info := wire.CertificateOf(probe); info.Check == wire.CertificateVerified && !info.HueRoot {
		trust.PinSHA256 = info.Fingerprint // and, below a Hue root, be the certificate the probe checked
	}
	return reached{address: address, config: cfg, probe: probe,
		withUser: func(user string) (wire.Client, error) { return wire.NewClientV2(address, user, timeout, trust) }}, nil
}

// checkReportedID refuses a bridge that reports another id than the one
// expected (on v1 too, where no certificate says it).
func checkReportedID(want, reported string) error {
	if want == "" || wire.SameBridgeID(want, reported) {
		return nil
	}
	return &wire.CertificateError{Reason: wire.ReasonCertificateMismatch, Detail: fmt.Sprintf(
		"the bridge at the address says it is %s, not %s: another bridge answers there (if the bridge was replaced, set spec.bridgeID)", reported, want)}
}

// verifiedOverV2 reports whether the HueBridge's bridge was proven over
// verified CLIP v2, so that Auto speaks nothing else to it: the
// credentials' recorded proof is a verified certificate, or the status
// says so (unless spec.bridgeID now names another bridge).
func verifiedOverV2(b *huev1alpha1.HueBridge, cred credentials) bool {
	if cred.recorded && cred.proof.Verified() {
		return true
	}
	v := b.Status.VerifiedV2BridgeID
	return v != "" && (b.Spec.BridgeID == "" || wire.SameBridgeID(b.Spec.BridgeID, v))
}

// downgradeRefused is Auto's refusal to speak plain v1 to a bridge it had
// verified over v2.
func downgradeRefused(b *huev1alpha1.HueBridge, cred credentials, cause error) error {
	id, where := b.Status.VerifiedV2BridgeID, "status.verifiedV2BridgeID"
	if cred.recorded && cred.proof.Verified() {
		ref := b.Spec.CredentialsSecretRef
		id, where = cred.bridgeID, fmt.Sprintf("the %q of Secret %s/%s", huev1alpha1.ProofKey, ref.Namespace, ref.Name)
	}
	return providers.RetryAfter(downgradeRefusedDelay, ReasonDowngradeRefused, fmt.Errorf(
		"bridge %s was proven over CLIP v2 with a verified certificate (%s), and CLIP v2 does not answer at the address now (%v): apiVersion Auto does not fall back to plain v1 for it, which would send the username unencrypted to whoever answers. Nothing was sent. If the bridge really lost CLIP v2, set spec.apiVersion: V1",
		id, where, cause))
}

// checkRecordedProof refuses to send the username over a weaker or another
// proof than the one its Secret records (ProofKey): only the same proof,
// or a certificate chained to a Hue root, meets it (wire.Identity.Meets).
// The one exception is plain v1 asked for by hand (spec.apiVersion V1) by
// the HueBridge Tether paired the Secret for: the downgrade its owner
// chose.
func checkRecordedProof(b *huev1alpha1.HueBridge, cred credentials, id wire.Identity) error {
	if !cred.recorded || id.Meets(cred.proof) || downgradeByHand(b, cred, id) {
		return nil
	}
	ref := b.Spec.CredentialsSecretRef
	return providers.RetryAfter(identityConflictDelay, ReasonBridgeProofMismatch, fmt.Errorf(
		"the bridge at the address proves it is %s over %s, but Secret %s/%s records that the bridge that issued its username was proven over %s: the username goes only over that proof or a certificate chained to a Hue root, so nothing was sent. Point the HueBridge at the bridge as it was reached then; if the bridge really changed, pair again (delete the Secret) or remove its %q",
		cred.bridgeID, id, ref.Namespace, ref.Name, cred.proof, huev1alpha1.ProofKey))
}

// downgradeByHand is plain v1 set by hand on the Secret's owner.
func downgradeByHand(b *huev1alpha1.HueBridge, cred credentials, id wire.Identity) bool {
	return id.PlainV1() && b.Spec.APIVersion == huev1alpha1.APIV1 && cred.owner == b.Name
}

// noV2 reports whether an error of a v2 call means the address has no
// CLIP v2 (so Auto speaks v1): it does not speak HTTPS, refuses the
// connection, or has no such path. A refused certificate is not one.
func noV2(err error) bool {
	var certErr *wire.CertificateError
	if errors.As(err, &certErr) {
		return false
	}
	if t := wire.ErrorType(err); t == wire.TypeNotAvailable {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"server gave HTTP response to HTTPS client", "first record does not look like a TLS handshake",
		"connection refused", "tls: ", "EOF"} {
		if strings.Contains(msg, s) && !strings.Contains(msg, "certificate") {
			return true
		}
	}
	var perr *wire.ProtocolError
	return errors.As(err, &perr)
}

// trust is what the HueBridge's certificate is checked against.
func (d *dialer) trust(ctx context.Context, b *huev1alpha1.HueBridge) (wire.Trust, error) {
	t := wire.Trust{BridgeID: b.Spec.BridgeID, InsecureSkipVerify: b.Spec.InsecureSkipVerify, CABundle: []byte(b.Spec.CABundle)}
	ref := b.Spec.CABundleSecretRef
	if ref == nil {
		return t, nil
	}
	if !slices.Contains(d.settings.CredentialsNamespaces, ref.Namespace) {
		return wire.Trust{}, providers.Terminalf(ReasonCredentialsNamespaceNotAllowed,
			"caBundleSecretRef names a Secret in namespace %q, but Tether reads Secrets only in %s (the manager's --credentials-namespaces)",
			ref.Namespace, quoteAll(d.settings.CredentialsNamespaces))
	}
	key := ref.Key
	if key == "" {
		key = "ca.crt"
	}
	var s corev1.Secret
	err := d.secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &s)
	if apierrors.IsNotFound(err) || (err == nil && len(s.Data[key]) == 0) {
		return wire.Trust{}, providers.RetryAfter(time.Minute, wire.ReasonCertificateUntrusted, fmt.Errorf(
			"caBundleSecretRef: Secret %s/%s has no key %q", ref.Namespace, ref.Name, key))
	}
	if err != nil {
		return wire.Trust{}, err
	}
	t.CABundle = append(append(t.CABundle, '\n'), s.Data[key]...)
	return t, nil
}

// checkSpecBridgeID refuses a bridge that is not the one spec.bridgeID
// names (on v1 too, where no certificate says it).
func checkSpecBridgeID(b *huev1alpha1.HueBridge, cfg wire.BridgeConfig) error {
	if b.Spec.BridgeID == "" || cfg.BridgeID == "" || wire.SameBridgeID(b.Spec.BridgeID, cfg.BridgeID) {
		return nil
	}
	return &wire.CertificateError{Reason: wire.ReasonCertificateMismatch, Detail: fmt.Sprintf(
		"the bridge at the address says it is %s, not spec.bridgeID %s", cfg.BridgeID, b.Spec.BridgeID)}
}

// discoveryRetry is how long a HueBridge whose bridge was not found waits
// before it is searched for again.
const discoveryRetry = 30 * time.Second

// address is where the HueBridge's bridge is: spec.address, or the address
// mDNS found for spec.bridgeID. A bridge at a discovered address is looked
// for again when it cannot be bound (it may have a new DHCP lease).
func (d *dialer) address(ctx context.Context, b *huev1alpha1.HueBridge) (string, error) {
	if b.Spec.Address != "" {
		return b.Spec.Address, nil
	}
	if addr, ok := d.found.get(b.Spec.BridgeID); ok {
		return addr, nil
	}
	addr, err := d.settings.Discover(ctx, b.Spec.BridgeID)
	switch {
	case err != nil:
		return "", providers.RetryAfter(discoveryRetry, ReasonBridgeNotDiscovered, fmt.Errorf(
			"cannot search for bridge %s by mDNS (%w): multicast is not available here; set spec.address", b.Spec.BridgeID, err))
	case addr == "":
		return "", providers.RetryAfter(discoveryRetry, ReasonBridgeNotDiscovered, fmt.Errorf(
			"no bridge with id %s answered an mDNS search for %s.local on this network: where multicast does not reach "+
				"(most cluster networks), set spec.address", b.Spec.BridgeID, wire.MDNSService))
	}
	d.log.Info("found the bridge by mDNS", "hueBridge", b.Name, "bridgeID", b.Spec.BridgeID, "address", addr)
	d.found.set(b.Spec.BridgeID, addr)
	return addr, nil
}
