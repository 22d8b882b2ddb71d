package hue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
)

// What the adapters share: finding the HueBridge an object names,
// checking that its namespace may use it, telling an error that means
// there is nothing left on the bridge for the object to let go of, and how
// long a pass waits for a command alone in line.

// notFoundDelay is how soon an object looks again for a HueBridge, bulb or
// HueGroup it names that does not exist (yet). It is only the fallback: the
// controllers wake the objects of a HueBridge when it changes (a HueScene's
// when its HueGroup does), and the session wakes a HueLight when a read
// shows a bulb of its name (its watch by name). So the look need not be
// quick, and at 30 s a namespace of misnamed objects costs little.
const notFoundDelay = 30 * time.Second

// findBridge is the HueBridge ref names, or the only one when ref is nil.
func findBridge(ctx context.Context, reader client.Reader, ref *huev1alpha1.BridgeReference) (*huev1alpha1.HueBridge, error) {
	if ref != nil {
		var b huev1alpha1.HueBridge
		err := reader.Get(ctx, types.NamespacedName{Name: ref.Name}, &b)
		if apierrors.IsNotFound(err) {
			return nil, providers.RetryAfter(notFoundDelay, ReasonBridgeNotFound, fmt.Errorf("HueBridge %q does not exist", ref.Name))
		}
		return &b, err
	}
	var list huev1alpha1.HueBridgeList
	if err := reader.List(ctx, &list); err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, providers.RetryAfter(notFoundDelay, ReasonBridgeNotFound, fmt.Errorf("no HueBridge exists: create one"))
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

// sessionFor is the connect stage's common part: the HueBridge ref names
// and its session, once the namespace ns may use them (the HueBridge's
// allowedNamespaces, and those of every HueBridge sharing its session).
// letGo drops what the object holds on a session (claims, watches, a
// queued command): on the bridge it was on (old) when ref names another,
// and on this one when its namespace may not use it, so that an object the
// bridge does accept can take its bulbs. A nil letGo holds nothing.
func sessionFor(ctx context.Context, reader client.Reader, reg *Registry, ref *huev1alpha1.BridgeReference, ns, old string,
	letGo func(*bridge.Session)) (*huev1alpha1.HueBridge, *bridge.Session, error) {
	if letGo == nil {
		letGo = func(*bridge.Session) {}
	}
	b, err := findBridge(ctx, reader, ref)
	if err != nil {
		return nil, nil, err
	}
	if s, ok := reg.Running(old); ok && old != b.Name {
		letGo(s)
	}
	if err := allowedNS(b, ns); err != nil {
		if s, ok := reg.Running(b.Name); ok {
			letGo(s)
		}
		return nil, nil, err
	}
	s, err := reg.For(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	if err := reg.AllowedBySharers(ctx, b, s, ns); err != nil {
		letGo(s)
		return nil, nil, err
	}
	return b, s, nil
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

// sendWait is how long a command alone in line is waited for: on an idle
// bridge the reconcile that asked gets the bridge's answer, without a
// second pass. Under load nobody waits, so workers keep queueing (which
// lets same-state commands be grouped) instead of idling.
const sendWait = 200 * time.Millisecond

// A HueLight or HueGroup whose write the bridge accepted writes its status
// once, when a read shows the write (an event on a bridge that pushes its
// changes, the session's read-back otherwise): Ready and status.observed
// then agree in the same write. Until then its passes are quiet waits.

// afterSend is how an Update whose command the bridge answered ends: a
// quiet hand-over for the read that shows what it accepted, or, when a
// read already did (an event came before the answer) or the bridge refused
// it, for the look right after, which reports it. Either way the status is
// written once, by the pass that sees the outcome.
func afterSend(interval time.Duration, unconfirmed bool, acceptedAt time.Time) error {
	w := providers.Wait{Quiet: true, For: lookAgain}
	if unconfirmed {
		if wait, ok := awaitReadBack(interval, acceptedAt); ok {
			w = wait
		}
	}
	return &providers.HandedError{Reason: w.Reason, Message: w.Message, For: w.For, Quiet: w.Quiet}
}

// lookAgain is how soon the pass after a write whose outcome is known
// looks.
const lookAgain = 10 * time.Millisecond

// awaitReadBack is the quiet wait, on a session that reads every
// interval, for the read that shows a write the bridge accepted at
// acceptedAt; false once that wait is over (the bridge stopped answering,
// or the read-back was lost): the status then says Ready from what the
// bridge accepted, and the look after the next read records what it
// showed.
func awaitReadBack(interval time.Duration, acceptedAt time.Time) (providers.Wait, bool) {
	left := readBackWaitLeft(interval, time.Since(acceptedAt))
	if left <= 0 {
		return providers.Wait{}, false
	}
	return providers.Wait{Quiet: true, For: left}, true
}

// eventBatch is how long a CLIP v2 bridge may hold an event back: it sends at
// most one event message a second (Hue's CLIP v2 migration guide, "Event
// stream"; docs/hue-behaviour.md).
const eventBatch = time.Second

// readBackWaitLeft is what is left, elapsed after the bridge accepted a
// write, of the wait for the read that shows it: a poll interval and the
// event stream's batching, so that with a poll interval as short as that
// batching the event that shows the write still comes within the wait.
func readBackWaitLeft(interval, elapsed time.Duration) time.Duration {
	return interval + eventBatch - elapsed
}
