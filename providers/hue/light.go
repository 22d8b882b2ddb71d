package hue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// LightExternal is the HueLight adapter. It reads bulbs from its bridge's
// Poller cache and sends only what differs, within the bridge's budget.
type LightExternal struct {
	Reader   client.Reader // HueBridges and HueLights (cached)
	Registry *Registry
}

var (
	_ providers.External[*huev1alpha1.HueLight] = (*LightExternal)(nil)
	_ providers.Pauser[*huev1alpha1.HueLight]   = (*LightExternal)(nil)
)

// target is a HueLight resolved to its bridge and bulb.
type target struct {
	bridge *huev1alpha1.HueBridge
	poller *Poller
	light  LightSnapshot
}

// Observe compares the bulb with the spec. A bulb held by an earlier
// HueLight, or unreachable, is reported not available and nothing is sent.
func (e *LightExternal) Observe(ctx context.Context, l *huev1alpha1.HueLight) (providers.Observation, error) {
	t, err := e.resolve(ctx, l)
	if err != nil {
		return providers.Observation{}, err
	}
	key := client.ObjectKeyFromObject(l)
	recordObserved(l, t)
	if holder, err := e.holder(ctx, t.poller, l, t.light.ID); err != nil {
		return providers.Observation{}, err
	} else if holder != key {
		// Not watched: the holder's changes are not this one's drift. The
		// holder's deletion wakes it (Poller.Forget).
		t.poller.Unwatch(key)
		return notAvailable(t.poller, ReasonConflict, fmt.Sprintf(
			"light %q on bridge %s is already managed by HueLight %s; this one sends nothing while that one exists",
			t.light.Name, t.bridge.Name, holder)), nil
	}
	want := DesiredFrom(l.Spec)
	t.poller.Watch(key, watch{name: l.Spec.Name, lightID: t.light.ID, want: want, reachable: t.light.Reachable})
	if !t.light.Reachable {
		return notAvailable(t.poller, ReasonLightUnreachable, fmt.Sprintf(
			"bridge %s cannot reach light %q (switched off at the wall or out of range); retried on the next poll",
			t.bridge.Name, t.light.Name)), nil
	}
	if d := Compare(want, t.light); d != nil {
		return providers.Observation{Exists: true, Diff: d, Available: true}, nil
	}
	// Nothing left to send: a queued command (or its error) is moot.
	t.poller.sender.drop(key)
	return providers.Observation{Exists: true, UpToDate: true, Available: true}, nil
}

func notAvailable(p *Poller, reason, message string) providers.Observation {
	return providers.Observation{Exists: true, UpToDate: true, Reason: reason, Message: message, RecheckAfter: p.interval}
}

// Create is never needed: a bulb cannot be created, and Observe reports a
// missing one as LightNotFound.
func (e *LightExternal) Create(ctx context.Context, l *huev1alpha1.HueLight) error {
	_, err := e.resolve(ctx, l)
	return err
}

// Update sends the difference when the bridge's budget allows.
func (e *LightExternal) Update(ctx context.Context, l *huev1alpha1.HueLight, diff providers.Difference) error {
	d, ok := diff.(*LightDiff)
	if !ok || d == nil {
		return nil
	}
	t, err := e.resolve(ctx, l)
	if err != nil {
		return err
	}
	// Compared again with the latest cache: a group command (or this
	// HueLight's own, just sent) may have done it since Observe, and then
	// sending again would only spend a slot.
	want := DesiredFrom(l.Spec)
	if d = Compare(want, t.light); d == nil {
		return nil
	}
	return send(ctx, t, l, d.Body, FullBody(want))
}

// sendWait is how long Update waits for its command when it is the only one
// in line: on an idle bridge the reconcile that asked gets the bridge's
// answer, without a second pass. Under load nobody waits, so workers keep
// queueing (which lets same-state commands be grouped) instead of idling.
const sendWait = 200 * time.Millisecond

// send hands body over to the bridge's sender. A command that went out
// returns the bridge's answer; one still in line returns Pending with an
// estimate, and the sender wakes the HueLight once it is sent. An error
// from a command the HueLight did not wait for is returned here, at its
// next reconcile.
func send(ctx context.Context, t target, l *huev1alpha1.HueLight, body, full StateBody) error {
	s, key := t.poller.sender, client.ObjectKeyFromObject(l)
	if err := s.takeFailure(key, full.key()); err != nil {
		return classify(t.bridge.Name, err)
	}
	o := s.enqueue(request{key: key, lightID: t.light.ID, body: body, full: full})
	wait := time.Duration(0) // under load: leave at once, to be woken
	if s.alone(o, sendWait) {
		wait = sendWait
	}
	if sent, err := s.await(ctx, o, wait); sent {
		return classify(t.bridge.Name, err)
	}
	return providers.Pending(s.estimate(o), ReasonThrottled,
		"queued for bridge %s: its command budget is shared by all namespaces in turn", t.bridge.Name)
}

// Delete turns the bulb off (onDelete TurnOff) or lets it be (Keep). A
// HueLight that never held the bulb, or whose bridge or bulb is gone, lets
// go without a call.
func (e *LightExternal) Delete(ctx context.Context, l *huev1alpha1.HueLight) error {
	key := client.ObjectKeyFromObject(l)
	if l.Spec.OnDelete == huev1alpha1.DeletionKeep {
		e.forget(ctx, l, key)
		return nil
	}
	t, err := e.resolve(ctx, l)
	if err != nil {
		if isGone(err) || neverHeldABulb(l, err) {
			e.forget(ctx, l, key)
			return nil
		}
		return err
	}
	if holder := t.poller.Claim(key, t.light.ID, l.CreationTimestamp); holder != key {
		t.poller.Forget(key)
		return nil
	}
	if t.light.On {
		// Not wanting the spec's state any more: group 0 must not switch
		// the bulb back on between "off" and the finalizer's removal.
		t.poller.Unwatch(key)
		off := StateBody{On: ptr.To(false), TransitionTime: DesiredFrom(l.Spec).Transition}
		if err := send(ctx, t, l, off, off); err != nil {
			return err
		}
	}
	t.poller.Forget(key)
	return nil
}

// Paused stops the bridge's poller and sender from acting for l: a paused
// HueLight promises no calls, group commands included.
func (e *LightExternal) Paused(ctx context.Context, l *huev1alpha1.HueLight) {
	if b, err := e.bridge(ctx, l); err == nil {
		if p, ok := e.Registry.Running(b.Name); ok {
			p.Pause(client.ObjectKeyFromObject(l))
		}
	}
}

// forget drops the HueLight's watch and claim if its bridge has a poller.
func (e *LightExternal) forget(ctx context.Context, l *huev1alpha1.HueLight, key types.NamespacedName) {
	if b, err := e.bridge(ctx, l); err == nil {
		if p, ok := e.Registry.Running(b.Name); ok {
			p.Forget(key)
		}
	}
}

// isGone is true for errors that mean there is nothing this HueLight may
// switch off: no bulb, no bridge, no credentials, or a namespace the bridge
// does not (or no longer) accept.
func isGone(err error) bool {
	if ra, ok := providers.AsRetryAfter(err); ok {
		switch ra.Reason {
		case ReasonLightNotFound, ReasonBridgeNotFound, ReasonNotPaired, ReasonNamespaceNotAllowed:
			return true
		}
	}
	return false
}

// neverHeldABulb is true when the bridge cannot be used (it refuses the
// stored username) and this HueLight never switched a bulb: there is nothing
// to turn off, and waiting for a re-pairing would hang the deletion (and the
// namespace's). A HueLight that did hold a bulb keeps trying, with the reason
// in its condition; pausing it lets go.
func neverHeldABulb(l *huev1alpha1.HueLight, err error) bool {
	ra, ok := providers.AsRetryAfter(err)
	return ok && ra.Reason == ReasonUnauthorized && l.Status.LightID == ""
}

// resolve finds the HueLight's bridge, poller and bulb.
func (e *LightExternal) resolve(ctx context.Context, l *huev1alpha1.HueLight) (target, error) {
	b, err := e.bridge(ctx, l)
	if err != nil {
		return target{}, err
	}
	key := client.ObjectKeyFromObject(l)
	if old := l.Status.Bridge; old != "" && old != b.Name {
		// bridgeRef changed: the old bridge's poller must not keep the
		// bulb claimed, wanted (group 0) or watched for drift.
		if p, ok := e.Registry.Running(old); ok {
			p.Forget(key)
		}
	}
	if err := allowedNS(b, l.Namespace); err != nil {
		return target{}, err
	}
	p, err := e.Registry.For(ctx, b)
	if err != nil {
		return target{}, err
	}
	lights, err := p.Snapshot(ctx)
	if err != nil {
		return target{}, classify(b.Name, err)
	}
	light, err := findLight(lights, l, b.Name)
	if err != nil {
		// No bulb by that name (any more): let go of the one it held, and
		// watch for one of the name to appear.
		p.Forget(key)
		p.Watch(key, watch{name: l.Spec.Name})
		return target{}, err
	}
	return target{bridge: b, poller: p, light: light}, nil
}

// bridge is spec.bridgeRef, or the only HueBridge when it is left out.
func (e *LightExternal) bridge(ctx context.Context, l *huev1alpha1.HueLight) (*huev1alpha1.HueBridge, error) {
	if ref := l.Spec.BridgeRef; ref != nil {
		var b huev1alpha1.HueBridge
		err := e.Reader.Get(ctx, types.NamespacedName{Name: ref.Name}, &b)
		if apierrors.IsNotFound(err) {
			return nil, providers.RetryAfter(30*time.Second, ReasonBridgeNotFound, fmt.Errorf("HueBridge %q does not exist", ref.Name))
		}
		return &b, err
	}
	var list huev1alpha1.HueBridgeList
	if err := e.Reader.List(ctx, &list); err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, providers.RetryAfter(30*time.Second, ReasonBridgeNotFound, fmt.Errorf("no HueBridge exists: create one"))
	case 1:
		return &list.Items[0], nil
	}
	names := make([]string, 0, len(list.Items))
	for _, b := range list.Items {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	// A retry, not terminal: deleting the extra bridge also fixes it.
	return nil, providers.RetryAfter(time.Minute, ReasonBridgeAmbiguous, fmt.Errorf(
		"%d HueBridges exist (%s): set spec.bridgeRef.name", len(names), strings.Join(names, ", ")))
}

// allowedNS refuses namespaces the bridge's allowedNamespaces leave out. It
// is a retry, not terminal: the bridge's owner may add the namespace.
func allowedNS(b *huev1alpha1.HueBridge, ns string) error {
	if len(b.Spec.AllowedNamespaces) == 0 || slices.Contains(b.Spec.AllowedNamespaces, ns) {
		return nil
	}
	return providers.RetryAfter(time.Minute, ReasonNamespaceNotAllowed, fmt.Errorf(
		"HueBridge %s only accepts HueLights from namespaces %s", b.Name, strings.Join(b.Spec.AllowedNamespaces, ", ")))
}

// findLight resolves spec.id, or spec.name (exact) via the cached id.
func findLight(lights lightsByID, l *huev1alpha1.HueLight, bridge string) (LightSnapshot, error) {
	if id := l.Spec.ID; id != "" {
		if light, ok := lights[id]; ok {
			return light, nil
		}
		return LightSnapshot{}, providers.RetryAfter(30*time.Second, ReasonLightNotFound,
			fmt.Errorf("bridge %s has no light with id %s", bridge, id))
	}
	if light, ok := lights[l.Status.LightID]; ok && light.Name == l.Spec.Name {
		return light, nil
	}
	if light, ok := lights.byName(l.Spec.Name); ok {
		return light, nil
	}
	return LightSnapshot{}, providers.RetryAfter(30*time.Second, ReasonLightNotFound, fmt.Errorf(
		"bridge %s has no light named %q; it has: %s", bridge, l.Spec.Name, strings.Join(lights.names(), ", ")))
}

// holder returns the HueLight that holds the bulb. A holder that no longer
// exists (deleted while paused, so Delete never ran) is dropped.
func (e *LightExternal) holder(ctx context.Context, p *Poller, l *huev1alpha1.HueLight, lightID string) (types.NamespacedName, error) {
	key := client.ObjectKeyFromObject(l)
	for {
		h := p.Claim(key, lightID, l.CreationTimestamp)
		if h == key {
			return h, nil
		}
		err := e.Reader.Get(ctx, h, &huev1alpha1.HueLight{})
		if err == nil {
			return h, nil
		}
		if !apierrors.IsNotFound(err) {
			return h, err
		}
		p.Forget(h)
	}
}

// recordObserved writes what the bridge reports into the status.
func recordObserved(l *huev1alpha1.HueLight, t target) {
	l.Status.LightID = t.light.ID
	l.Status.Bridge = t.bridge.Name
	l.Status.Reachable = ptr.To(t.light.Reachable)
	l.Status.Observed = &huev1alpha1.ObservedLightState{
		On: t.light.On, Brightness: int32(t.light.Bri), ColorMode: t.light.ColorMode,
	}
}
