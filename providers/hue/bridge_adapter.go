package hue

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// BridgeExternal is the HueBridge adapter: pairing (the "external thing" it
// creates is the bridge's username, kept in the credentials Secret) and
// health (reachable and authorised). Its connect stage binds the HueBridge
// to its bridge's session.
type BridgeExternal struct {
	Client   client.Client // creates the credentials Secret
	Registry *Registry
}

var (
	_ providers.Connector[*huev1alpha1.HueBridge] = (*BridgeExternal)(nil)
	_ providers.External[*huev1alpha1.HueBridge]  = (*bridgeConn)(nil)
)

// bridgeConn is a HueBridge with its session for one pass; session is nil
// while the bridge is not paired.
type bridgeConn struct {
	e       *BridgeExternal
	session *bridge.Session
}

// Connect binds the HueBridge to its bridge's session. One without
// credentials connects without a session: Observe then asks for pairing.
func (e *BridgeExternal) Connect(ctx context.Context, b *huev1alpha1.HueBridge) (providers.External[*huev1alpha1.HueBridge], error) {
	if !b.DeletionTimestamp.IsZero() {
		return &bridgeConn{e: e}, nil // Delete makes no call
	}
	s, err := e.Registry.For(ctx, b)
	if ra, ok := providers.AsRetryAfter(err); ok {
		switch ra.Reason {
		case ReasonNotPaired:
			return &bridgeConn{e: e}, nil
		case ReasonUnauthorized:
			setPaired(b, false, ReasonUnauthorized, err.Error())
		}
	}
	if err != nil {
		e.recordStreamOnly(b)
		return nil, err
	}
	return &bridgeConn{e: e, session: s}, nil
}

// recordStreamOnly keeps status.eventStream true on a pass that fails
// before the binding is written: the stream of the session the HueBridge
// is bound to, none when it is not bound. Left as the last good pass
// wrote it, it would say Connected while no stream is open.
func (e *BridgeExternal) recordStreamOnly(b *huev1alpha1.HueBridge) {
	st, _ := e.Registry.StreamOf(b)
	recordStream(b, st)
}

// Observe reports the bridge not created while it is not paired, so that
// the reconciler calls Create (pairing). Otherwise the bridge's health is
// its session's last read of the lights; /config (bridge id, name, API
// version) is read only when the HueBridge is bound, and after the bridge
// comes back from failing reads.
func (c *bridgeConn) Observe(ctx context.Context, b *huev1alpha1.HueBridge) (providers.Observation, error) {
	if c.session == nil {
		setPaired(b, false, ReasonNotPaired, "no credentials yet: "+linkButtonMessage)
		return providers.Absent(), nil
	}
	cfg, err := c.session.Config(ctx)
	if err != nil {
		c.e.recordStreamOnly(b)
		return providers.Observation{}, Classify(b.Name, err)
	}
	if !cfg.Authorized {
		c.e.recordStreamOnly(b)
		err := Classify(b.Name, wire.UnauthorizedError())
		setPaired(b, false, ReasonUnauthorized, err.Error())
		return providers.Observation{}, err
	}
	// What the bridge says of itself is bounded as any message is.
	b.Status.BridgeID, b.Status.Name, b.Status.APIVersion = providers.Truncate(cfg.BridgeID), providers.Truncate(cfg.Name), providers.Truncate(cfg.APIVersion)
	h := c.session.Health(ctx)
	if h.Err != nil {
		c.e.recordStreamOnly(b)
		err := Classify(b.Name, h.Err)
		if wire.ErrorType(h.Err) == wire.TypeUnauthorized {
			setPaired(b, false, ReasonUnauthorized, err.Error())
		}
		return providers.Observation{}, err
	}
	b.Status.LastContactTime = ptrTime(metav1.NewTime(h.LastContact))
	b.Status.LightCount = int32(h.LightCount)
	setPaired(b, true, ReasonPaired, "")
	obs := providers.Matches()
	if id, used, ok := c.e.Registry.proofToRecord(b.Name); ok {
		if err := recordProof(ctx, c.e.Client, c.e.Registry.secrets, b, used, id); err != nil {
			return providers.Observation{}, err
		}
		c.e.Registry.recorded(b.Name)
	}
	if bd, ok := c.e.Registry.BindingOf(ctx, b); ok {
		recordBinding(b, bd)
		if bd.API == wire.APIV2 && bd.Certificate.Check == wire.CertificateVerified {
			b.Status.VerifiedV2BridgeID = b.Status.BridgeID // Auto speaks only v2 to it from now on
		}
		// Ready with a note: the generic reconciler emits one Warning event
		// when it appears.
		switch {
		case bd.Certificate.Check == wire.CertificateSkipped:
			obs.Reason, obs.Message = ReasonInsecureTLS, fmt.Sprintf(
				"spec.insecureSkipVerify: the bridge's certificate (%q) is not checked, so anyone on the network can pose as the bridge",
				bd.Certificate.Subject)
		case bd.API == wire.APIV1 && (b.Spec.APIVersion == "" || b.Spec.APIVersion == huev1alpha1.APIAuto):
			obs.Reason, obs.Message = ReasonPlainV1, fmt.Sprintf(
				"apiVersion Auto found no CLIP v2 at %s and speaks the v1 API over plain HTTP: the username travels unencrypted, and only the address vouches for the bridge. Set spec.apiVersion: V1 to accept that, or V2 with the bridge's HTTPS address",
				bd.Address)
		}
	}
	return obs, nil
}

// recordBinding writes the connection into the status: the API, the
// address, the certificate check and the event stream's health.
func recordBinding(b *huev1alpha1.HueBridge, bd Binding) {
	b.Status.API, b.Status.Address = huev1alpha1.HueAPI(bd.API), bd.Address
	cert := &huev1alpha1.CertificateStatus{Check: bd.Certificate.Check, Subject: bd.Certificate.Subject, Issuer: bd.Certificate.Issuer}
	if cert.Check == "" {
		cert.Check = wire.CertificateNone
	}
	if !bd.Certificate.NotAfter.IsZero() {
		cert.NotAfter = ptrTime(metav1.NewTime(bd.Certificate.NotAfter))
	}
	b.Status.Certificate = cert
	recordStream(b, bd.Stream)
}

// recordStream writes the event stream's health into the status: none
// on v1 or without a session.
func recordStream(b *huev1alpha1.HueBridge, st bridge.StreamStatus) {
	b.Status.EventStream = nil
	if st.State != "" {
		es := &huev1alpha1.EventStreamStatus{State: st.State, Reconnects: int32(st.Reconnects), Message: providers.Truncate(st.Message)}
		if !st.ConnectedSince.IsZero() {
			es.ConnectedSince = ptrTime(metav1.NewTime(st.ConnectedSince))
		}
		if !st.LastEvent.IsZero() {
			es.LastEventTime = ptrTime(metav1.NewTime(st.LastEvent))
		}
		b.Status.EventStream = es
	}
}

// Create pairs: it asks the bridge for a username, which succeeds only in
// the 30 s after someone pressed the link button, and stores it.
func (c *bridgeConn) Create(ctx context.Context, b *huev1alpha1.HueBridge) error {
	r := c.e.Registry
	if err := allowCredentialsRef(r.settings.CredentialsNamespaces, b); err != nil {
		return err
	}
	if err := checkWritable(ctx, r.secrets, b); err != nil {
		return err
	}
	// Pairing sends no credentials (it receives them), but asks only the
	// bridge the HueBridge is for, and records which bridge issued them.
	rc, err := r.dialer.reach(ctx, b, expectedID(b), expectedID(b), credentials{})
	if err != nil {
		return Classify(b.Name, err)
	}
	cred, err := rc.probe.Pair(ctx, "tether#"+truncateName(b.Name, 19))
	if wire.ErrorType(err) == wire.TypeLinkButton {
		setPaired(b, false, ReasonLinkButton, linkButtonMessage)
		return providers.Pendingf(pairingDelay(b, time.Now()), ReasonLinkButton, linkButtonMessage)
	}
	if err != nil {
		return Classify(b.Name, err)
	}
	if err := storeCredentials(ctx, c.e.Client, r.secrets, b, cred, rc.config.BridgeID, wire.IdentityOf(rc.probe, rc.address)); err != nil {
		return err
	}
	r.Drop(b.Name)
	setPaired(b, true, ReasonPaired, "paired: credentials stored in the Secret")
	return nil
}

// Update has nothing to change on a bridge.
func (c *bridgeConn) Update(context.Context, *huev1alpha1.HueBridge, providers.Difference) error {
	return nil
}

// Delete unbinds the HueBridge; its session stops when no other HueBridge
// names the bridge. The credentials Secret stays: it is the user's, and
// recreating the HueBridge then needs no new pairing.
func (c *bridgeConn) Delete(_ context.Context, b *huev1alpha1.HueBridge) error {
	c.e.Registry.Drop(b.Name)
	return nil
}

func setPaired(b *huev1alpha1.HueBridge, ok bool, reason, message string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{
		Type: huev1alpha1.ConditionPaired, Status: status, Reason: reason, Message: providers.Truncate(message),
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
