// Package providers defines the small contract between the generic
// managed-resource reconciler and the adapters that talk to the outside world.
//
// An adapter implements Connector for one kind: each pass of the generic
// reconciler first connects (finds the endpoint or session the object lives
// on, checks that the object may use it) and then calls the External it got.
// Every External method is idempotent: Create of something that exists is
// success, Delete of something gone is success. Adapters say what should
// happen next through the typed errors in errors.go, never by sleeping or
// retrying in a loop themselves.
package providers

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Connector is the connect stage (crossplane's Connect, external-secrets'
// NewClient): it resolves what every method would otherwise find again (a
// bridge session and bulb, a regional client, a conflict check) once per
// pass, and returns the External bound to it. It makes no change outside
// the cluster. An error ends the pass like an Observe error. For an object
// being deleted it should let go instead of failing when there is nothing
// left to delete (no bridge, no bulb), so the deletion is not stuck.
type Connector[O client.Object] interface {
	Connect(ctx context.Context, obj O) (External[O], error)
}

// Connected is the Connector of an adapter that needs no connect stage:
// every pass uses e itself. A Pauser e stays one, and so does a
// DeleteDescriber.
func Connected[O client.Object](e External[O]) Connector[O] { return connected[O]{e} }

type connected[O client.Object] struct{ External[O] }

func (c connected[O]) Connect(context.Context, O) (External[O], error) { return c.External, nil }

func (c connected[O]) DescribeDelete(obj O) string {
	if d, ok := c.External.(DeleteDescriber[O]); ok {
		return d.DescribeDelete(obj)
	}
	return ""
}

// DeleteDescriber is an optional part of a Connector: it says in a few
// words what deleting obj did outside, for the Deleted event: a bulb
// switched off, a room left on the bridge, a table retained. Deleting an
// object does not always remove the thing outside, so a generic "the
// external resource is gone" would often be untrue. "" leaves the generic
// words.
type DeleteDescriber[O any] interface {
	DescribeDelete(obj O) string
}

func (c connected[O]) Paused(ctx context.Context, obj O) {
	if p, ok := c.External.(Pauser[O]); ok {
		p.Paused(ctx, obj)
	}
}

func (c connected[O]) ResyncInterval(obj O) (time.Duration, bool) {
	if r, ok := c.External.(Resyncer[O]); ok {
		return r.ResyncInterval(obj)
	}
	return 0, false
}

// External is what an adapter offers the generic reconciler for one object
// in one pass, once connected.
type External[O client.Object] interface {
	// Observe reads the external side and reports how it compares with the
	// spec. It makes no change outside the cluster. It may record what it saw
	// in the object's status (never in its spec).
	Observe(ctx context.Context, obj O) (Observation, error)
	// Create makes the external thing from the spec.
	Create(ctx context.Context, obj O) error
	// Update applies the difference Observe reported.
	Update(ctx context.Context, obj O, diff Difference) error
	// Delete removes the external thing (or lets go of it, as the object's
	// deletion policy says). It returns nil only once the external side is
	// confirmed gone; while it is going, a PendingError.
	Delete(ctx context.Context, obj O) error
}

// Pauser is optional, on the Connector. An adapter that acts for objects
// between reconciles (the Hue sender's queued and group commands, the bridge
// session's watches) is told when an object is paused, so it stops acting
// for it until the next Observe. It must make no external call.
type Pauser[O client.Object] interface {
	Paused(ctx context.Context, obj O)
}

// Resyncer is optional, on the Connector. An adapter that learns of
// external changes by a push channel while the channel is healthy (the
// DynamoDB change feed) sets an object's resync interval instead of the
// reconciler's poll interval: ok false keeps the poll interval. The
// adapter wakes the object itself when the channel fails. It must make no
// external call.
type Resyncer[O client.Object] interface {
	ResyncInterval(obj O) (d time.Duration, ok bool)
}

// Difference is an adapter's typed description of what differs between the
// spec and the external side. The reconciler only prints it; Update receives
// the value Observe returned and type-asserts it.
type Difference interface {
	// String is a short human summary, used in events and conditions. The
	// stall breaker takes the same String for the same write.
	String() string
}

// StallKeyer is optional, on a Difference: an adapter that knows more than
// String says (that the last write did show before the external side
// changed back) gives the stall breaker a key of its own.
type StallKeyer interface {
	StallKey() string
}

// Outcome is what Observe found: exactly one of four.
type Outcome int

const (
	// OutcomeCreate: the external thing is not there; Create is next.
	OutcomeCreate Outcome = iota + 1
	// OutcomeUpdate: the external thing differs from the spec by
	// Observation.Diff; Update is next, and receives that Diff.
	OutcomeUpdate
	// OutcomeUpToDate: the external thing matches the spec. Ready is True
	// when it is also Available, otherwise False with Reason and Message.
	OutcomeUpToDate
	// OutcomeWait: nothing may be written now, whatever differs (the bulb
	// is held by another object or unreachable, a command is already on its
	// way, a table is CREATING or UPDATING): Observation.Wait says why and
	// until when. It never means "matches the spec".
	OutcomeWait
)

// Observation is the result of Observe: its Outcome, and what that outcome
// carries. Build it with Absent, Differs, Matches or Waiting.
type Observation struct {
	Outcome Outcome
	// Diff is what differs (OutcomeUpdate).
	Diff Difference
	// Wait is why nothing is written now and when to look again
	// (OutcomeWait).
	Wait Wait

	// The rest describes a match (OutcomeUpToDate).

	// Available is true when the external thing can be used (a table
	// ACTIVE, a light reachable). Ready is True only when it is up to date
	// and available.
	Available bool
	// Reason and Message explain why it is not available. When it is
	// available, Message may still carry a note for the Ready condition (a
	// part of the spec the backend cannot apply), and Reason, when set,
	// replaces "Available" as Ready's reason: the reconciler then emits one
	// Warning event when the note appears.
	Reason  string
	Message string
	// NextLook, when set, is the one way to ask for a look sooner than the
	// resync interval: for a match not available yet (a transition the
	// backend finishes by itself), or for an Unconfirmed one (when a read
	// can have confirmed the write; the reconciler's AfterWrite when
	// unset).
	NextLook time.Duration
	// Unconfirmed: the match rests on the adapter's record of a write the
	// backend accepted, not yet on a read of the backend (the read that
	// should show it did not come in time; an adapter waits for that read
	// quietly first, so that one status write reports both). Ready is
	// reported as for any match; the stall breaker keeps counting the write
	// until a read confirms it, and the next look is NextLook, so that the
	// status ends with what was read.
	Unconfirmed bool
}

// Absent is the observation of an external thing that is not there.
func Absent() Observation { return Observation{Outcome: OutcomeCreate} }

// Differs is the observation of an external thing that differs by diff.
func Differs(diff Difference) Observation { return Observation{Outcome: OutcomeUpdate, Diff: diff} }

// Matches is the observation of an external thing that matches the spec and
// can be used; set Available false, a note or Unconfirmed on it as needed.
func Matches() Observation { return Observation{Outcome: OutcomeUpToDate, Available: true} }

// Waiting is the observation of a pass that writes nothing now, and why.
func Waiting(w Wait) Observation { return Observation{Outcome: OutcomeWait, Wait: w} }
