package hue

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// LightExternal is the HueLight adapter's connect stage: it finds the
// HueLight's bridge session and bulb, once per pass.
type LightExternal struct {
	Reader   client.Reader // HueBridges and HueLights (cached)
	Registry *Registry
}

var (
	_ providers.Connector[*huev1alpha1.HueLight] = (*LightExternal)(nil)
	_ providers.Pauser[*huev1alpha1.HueLight]    = (*LightExternal)(nil)
	_ providers.External[*huev1alpha1.HueLight]  = (*lightConn)(nil)
)

// lightConn is a HueLight connected to its bridge session and bulb for one
// pass: it reads the session's cache and sends only what differs, within
// the bridge's budget.
type lightConn struct {
	reader  client.Reader
	bridge  *huev1alpha1.HueBridge
	session *bridge.Session
	light   model.Light
	key     types.NamespacedName
	// generation is the HueLight's, for the sender's gathering.
	generation int64
}

// Connect resolves the HueLight's bridge (spec.bridgeRef, or the only one),
// checks that its namespace may use it, and finds its bulb. A HueLight being
// deleted with nothing left to switch off (no bridge, no bulb, onDelete
// Keep) lets go instead.
func (e *LightExternal) Connect(ctx context.Context, l *huev1alpha1.HueLight) (providers.External[*huev1alpha1.HueLight], error) {
	key := client.ObjectKeyFromObject(l)
	deleting := !l.DeletionTimestamp.IsZero()
	if deleting && l.Spec.OnDelete == huev1alpha1.DeletionKeep {
		e.forget(ctx, l, key)
		return providers.Released[*huev1alpha1.HueLight](), nil
	}
	c, err := e.connect(ctx, l, key)
	if err != nil {
		if deleting && (isGone(err) || neverHeldABulb(l, err)) {
			e.forget(ctx, l, key)
			return providers.Released[*huev1alpha1.HueLight](), nil
		}
		return nil, err
	}
	return c, nil
}

func (e *LightExternal) connect(ctx context.Context, l *huev1alpha1.HueLight, key types.NamespacedName) (*lightConn, error) {
	// A session the HueLight leaves must not keep its bulb claimed,
	// wanted (group 0) or watched for drift.
	b, s, err := sessionFor(ctx, e.Reader, e.Registry, l.Spec.BridgeRef, l.Namespace, l.Status.Bridge,
		func(s *bridge.Session) { s.Release(key) })
	if err != nil {
		return nil, err
	}
	lights, err := s.Lights(ctx)
	if err != nil {
		return nil, Classify(b.Name, err)
	}
	light, err := findLight(lights, l, b.Name)
	if err != nil {
		// No bulb by that name (any more): let go of the one it held, and
		// watch for one of the name to appear.
		s.Release(key)
		s.Settle(key, bridge.Settling{Want: &bridge.Want{Name: l.Spec.Name}})
		return nil, err
	}
	return &lightConn{reader: e.Reader, bridge: b, session: s, light: light, key: key, generation: l.Generation}, nil
}

// Paused stops the bridge's session from acting for l: a paused HueLight
// promises no calls, group commands included.
func (e *LightExternal) Paused(ctx context.Context, l *huev1alpha1.HueLight) {
	if b, err := e.bridge(ctx, l); err == nil {
		if s, ok := e.Registry.Running(b.Name); ok {
			s.Settle(client.ObjectKeyFromObject(l), bridge.Settling{Unwatch: true, Generation: l.Generation, End: bridge.PassMatched})
		}
	}
}

// forget drops the HueLight's watch and claim on its bridge's session.
func (e *LightExternal) forget(ctx context.Context, l *huev1alpha1.HueLight, key types.NamespacedName) {
	if b, err := e.bridge(ctx, l); err == nil {
		e.forgetOn(b.Name, key)
	}
}

func (e *LightExternal) forgetOn(name string, key types.NamespacedName) {
	if s, ok := e.Registry.Running(name); ok {
		s.Release(key)
	}
}

// Observe compares the bulb with the spec, projected onto what the bulb
// can show and without what the bridge refused. A bulb held by an earlier
// HueLight, an unreachable one, one whose command is already in line, or
// one whose only difference the bridge refused is a wait: nothing is sent.
// Its look ends on the session (Settle): what it watches for drift and,
// unless Update follows with the difference found here, that the line no
// longer waits for it (PassSendsNothing), or that nothing in line for it
// is needed once the bulb matches (PassMatched).
func (c *lightConn) Observe(ctx context.Context, l *huev1alpha1.HueLight) (providers.Observation, error) {
	obs, st, err := c.observe(ctx, l)
	st.Generation = l.Generation
	switch {
	case st.End == bridge.PassMatched:
	case err != nil || obs.Outcome == providers.OutcomeWait || obs.Outcome == providers.OutcomeUpToDate:
		st.End = bridge.PassSendsNothing
	}
	c.session.Settle(c.key, st)
	return obs, err
}

// observe is Observe; st is how its look ends on the session (PassMatched
// when the bulb shows all of the spec the bridge took).
func (c *lightConn) observe(ctx context.Context, l *huev1alpha1.HueLight) (obs providers.Observation, st bridge.Settling, err error) {
	recordObserved(l, c)
	look, err := c.look(ctx, l)
	if err != nil {
		return providers.Observation{}, st, err
	} else if look.Holder != c.key {
		// Not watched: the holder's changes are not this one's drift. The
		// holder's deletion wakes it (Session.Release).
		st.Unwatch = true
		return providers.Waiting(providers.Conflict(look.Interval,
			"light %q on bridge %s is already managed by HueLight %s; this one sends nothing while that one exists",
			c.light.Name, c.bridge.Name, look.Holder)), st, nil
	}
	v := look.View
	fit := model.Fit(desiredFrom(l.Spec), v.Known)
	st.Want = &bridge.Want{Name: l.Spec.Name, LightID: c.light.ID, Desired: fit.Want, Reachable: v.State.Reachable}
	if !v.State.Reachable {
		return c.wait(look, ReasonLightUnreachable, fmt.Sprintf(
			"bridge %s cannot reach light %q (switched off at the wall or out of range); retried on the next poll",
			c.bridge.Name, c.light.Name), 0), st, nil
	}
	if q := look.Queued; q.For(fit.Full) {
		if quietInLine(look.Answering, q.Waited) {
			return providers.Waiting(providers.Wait{Quiet: true, For: quietQueue - q.Waited}), st, nil
		}
		return c.wait(look, providers.ReasonThrottled, queuedNote(c.bridge.Name, q.ETA), q.ETA), st, nil
	}
	if d := fit.Diff; d != nil {
		return providers.Differs(&LightDiff{Diff: *d, full: fit.Full, confirmed: v.Confirmed}), st, nil
	}
	st.End = bridge.PassMatched
	if len(fit.Refused) > 0 {
		return c.wait(look, ReasonAttributeRefused, strings.Join(append(fit.Refused, fit.Notes...), "; "), 0), st, nil
	}
	if v.Unconfirmed {
		if w, ok := awaitReadBack(look.Interval, v.AcceptedAt); ok {
			return providers.Waiting(w), st, nil
		}
	}
	obs = providers.Matches()
	obs.Unconfirmed = v.Unconfirmed
	if v.Unconfirmed {
		// The session reads the bridge once per interval: the look after
		// that read records what it showed in status.observed.
		obs.NextLook = look.Interval
	}
	if len(fit.Notes) > 0 {
		obs.Reason, obs.Message = ReasonLimited, strings.Join(fit.Notes, "; ")
	}
	return obs, st, nil
}

// wait is an observation that sends nothing, looked at again after
// recheck (by default the bridge's poll interval).
func (c *lightConn) wait(look bridge.LightLook, reason, message string, recheck time.Duration) providers.Observation {
	if recheck <= 0 {
		recheck = look.Interval
	}
	return providers.Waiting(providers.Wait{Reason: reason, Message: message, For: recheck})
}

// Create is never needed: a bulb cannot be created, and Connect reports a
// missing one as LightNotFound.
func (c *lightConn) Create(context.Context, *huev1alpha1.HueLight) error { return nil }

// Update hands the difference Observe found to the bridge's sender.
func (c *lightConn) Update(ctx context.Context, _ *huev1alpha1.HueLight, diff providers.Difference) error {
	d, ok := diff.(*LightDiff)
	if !ok || d == nil {
		return nil
	}
	sent, after, err := c.send(ctx, d.Body, d.full)
	if err != nil {
		return err
	}
	if sent {
		// An Update whose command the bridge answered (afterSend).
		return afterSend(after.Interval, after.View.Unconfirmed, after.View.AcceptedAt)
	}
	q := after.Queued
	if quietInLine(after.Answering, q.Waited) {
		return &providers.HandedError{For: quietQueue - q.Waited, Reason: providers.ReasonThrottled, Quiet: true,
			Message: "queued for bridge " + c.bridge.Name}
	}
	return &providers.HandedError{For: q.ETA, Reason: providers.ReasonThrottled, Message: queuedNote(c.bridge.Name, q.ETA)}
}

// queuedNote says why a HueLight's command waits in the sender's line, and
// for about how long.
func queuedNote(bridgeName string, eta time.Duration) string {
	return fmt.Sprintf("queued for bridge %s (its command budget is shared by all namespaces in turn): about %s",
		bridgeName, eta.Round(100*time.Millisecond))
}

// quietQueue is how long a HueLight's or HueGroup's command may wait in the
// session's line, while the bridge answers, before its status says so
// (Throttled). A line at the bridge's budget is not a fault: a burst of
// changes to 20 HueGroups takes 20 group slots (one a second), and the
// HueLights' batches wait behind them; the sender wakes each object when
// its command goes, and the pass after the read that shows it writes its
// status once (one status write per change: docs/hue-lights.md). A line
// that does not move for that long still shows, and one on a bridge that
// stopped answering shows at once.
const quietQueue = 30 * bridge.GroupSlot

// quietInLine reports whether a command in line is still said nothing of,
// while the bridge answers: d is how long it has waited (a HueLight's,
// whose line moves by the light budget) or is due to wait (a HueGroup's,
// one group slot each).
func quietInLine(answering bool, d time.Duration) bool {
	return d < quietQueue && answering
}

// send hands body over to the bridge's sender. It reports whether the
// command went out (then err is the bridge's answer) and the bulb and the
// line after; one still in line is sent later, and its HueLight woken then.
// An error from a command the HueLight did not wait for is returned here,
// at its next pass.
func (c *lightConn) send(ctx context.Context, body, full model.StateBody) (bool, bridge.LightLook, error) {
	sent, after, err := c.session.Send(ctx, bridge.Change{Key: c.key, LightID: c.light.ID, Body: body, Full: full, Generation: c.generation}, sendWait)
	return sent, after, Classify(c.bridge.Name, err)
}

// Delete turns the bulb off (onDelete TurnOff). A HueLight that never held
// the bulb lets go without a call.
func (c *lightConn) Delete(ctx context.Context, l *huev1alpha1.HueLight) error {
	s := c.session
	look := s.LookAt(c.key, c.light, l.CreationTimestamp)
	if look.Holder != c.key {
		s.Release(c.key)
		return nil
	}
	if look.View.State.On {
		// Not wanting the spec's state any more: group 0 must not switch
		// the bulb back on between "off" and the finalizer's removal.
		s.Settle(c.key, bridge.Settling{Unwatch: true, Generation: l.Generation})
		off := model.StateBody{On: ptr.To(false), TransitionTime: desiredFrom(l.Spec).Transition}
		sent, after, err := c.send(ctx, off, off)
		if err != nil {
			return err
		}
		if !sent {
			return providers.Pendingf(after.Queued.ETA, providers.ReasonThrottled,
				"switching off: queued for bridge %s, whose command budget is shared by all namespaces in turn", c.bridge.Name)
		}
	}
	s.Release(c.key)
	return nil
}

// bridge is spec.bridgeRef, or the only HueBridge when it is left out.
func (e *LightExternal) bridge(ctx context.Context, l *huev1alpha1.HueLight) (*huev1alpha1.HueBridge, error) {
	return findBridge(ctx, e.Reader, l.Spec.BridgeRef)
}

// neverHeldABulb is true when the bridge cannot be used (it refuses the
// stored username, Tether refuses its certificate, its identity or to send
// it the credentials) and this HueLight
// never switched a bulb: there is nothing to turn off, and waiting for a
// re-pairing or a certificate fix would hang the deletion (and the
// namespace's). A HueLight that did hold a bulb keeps trying, with the
// reason in its condition; pausing it lets go.
func neverHeldABulb(l *huev1alpha1.HueLight, err error) bool {
	ra, ok := providers.AsRetryAfter(err)
	if !ok || l.Status.LightID != "" {
		return false
	}
	switch ra.Reason {
	case ReasonUnauthorized, wire.ReasonCertificateMismatch, wire.ReasonCertificateUntrusted, ReasonBridgeIdentityConflict,
		ReasonDowngradeRefused, ReasonCredentialsBridgeIDMissing, ReasonCredentialsForAnotherBridge, ReasonCredentialsSecretInUse:
		return true
	}
	return false
}

// findLight resolves spec.id, or spec.name (exact) via the cached id.
func findLight(lights bridge.Lights, l *huev1alpha1.HueLight, bridgeName string) (model.Light, error) {
	if id := l.Spec.ID; id != "" {
		if light, ok := lights[id]; ok {
			return light, nil
		}
		return model.Light{}, providers.RetryAfter(notFoundDelay, ReasonLightNotFound,
			fmt.Errorf("bridge %s has no light with id %s", bridgeName, id))
	}
	if light, ok := lights[l.Status.LightID]; ok && light.Name == l.Spec.Name {
		return light, nil
	}
	if light, ok := lights.ByName(l.Spec.Name); ok {
		return light, nil
	}
	return model.Light{}, providers.RetryAfter(notFoundDelay, ReasonLightNotFound, fmt.Errorf(
		"bridge %s has no light named %q; it has: %s", bridgeName, l.Spec.Name, strings.Join(lights.Names(), ", ")))
}

// look is the HueLight's look at its bulb on the session (LookAt). A
// holder that no longer exists (deleted while paused, so Delete never ran)
// is dropped, and the bulb looked at again.
func (c *lightConn) look(ctx context.Context, l *huev1alpha1.HueLight) (bridge.LightLook, error) {
	for {
		look := c.session.LookAt(c.key, c.light, l.CreationTimestamp)
		if look.Holder == c.key {
			return look, nil
		}
		err := c.reader.Get(ctx, look.Holder, &huev1alpha1.HueLight{})
		if err == nil {
			return look, nil
		}
		if !apierrors.IsNotFound(err) {
			return look, err
		}
		c.session.Release(look.Holder)
	}
}

// recordObserved writes what the bridge reports into the status.
func recordObserved(l *huev1alpha1.HueLight, c *lightConn) {
	st := c.light.State
	l.Status.LightID = c.light.ID
	l.Status.Bridge = c.bridge.Name
	l.Status.Reachable = ptr.To(st.Reachable)
	l.Status.Observed = &huev1alpha1.ObservedLightState{On: st.On, ColorMode: st.ColorMode}
	if st.Bri != nil {
		l.Status.Observed.Brightness = int32(*st.Bri)
	}
	if st.Effect != nil {
		l.Status.Observed.Effect = *st.Effect
	}
	if st.Powerup != nil {
		l.Status.Observed.Powerup = st.Powerup.Preset
	}
	l.Status.Observed.Gradient = observedGradient(st.Gradient)
	if st.Speed != nil {
		l.Status.Observed.Speed = ptr.To(huev1alpha1.Speed(*st.Speed))
	}
	l.Status.Capabilities = capabilitiesStatus(c.light)
}

// LightDiff is what differs between a HueLight's spec and its bulb: what
// to send (Diff), the whole state the HueLight wants (what a group command
// or a temporary scene would send for it), and how many of the bulb's
// earlier writes a read showed.
type LightDiff struct {
	model.Diff
	full model.StateBody
	// confirmed: the same difference after one more write did show is new
	// drift, not a write that does not stick.
	confirmed uint64
}

// StallKey is the difference for the stall breaker.
func (d *LightDiff) StallKey() string { return fmt.Sprintf("%s #%d", d.String(), d.confirmed) }
