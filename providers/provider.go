// Package providers defines the small contract between the generic
// managed-resource reconciler and the adapters that talk to the outside world.
//
// An adapter implements External for one kind. Every method is idempotent:
// Create of something that exists is success, Delete of something gone is
// success. Adapters say what should happen next through the typed errors in
// errors.go, never by sleeping or retrying in a loop themselves.
package providers

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// External is what an adapter offers the generic reconciler for one kind O.
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
	// confirmed gone; while it is going, a Pending error.
	Delete(ctx context.Context, obj O) error
}

// Pauser is optional. An adapter that acts for objects between reconciles
// (the Hue sender's queued and group commands, the poller's watches) is told
// when an object is paused, so it stops acting for it until the next
// Observe. It must make no external call.
type Pauser[O client.Object] interface {
	Paused(ctx context.Context, obj O)
}

// Difference is an adapter's typed description of what differs between the
// spec and the external side. The reconciler only prints it; Update receives
// the value Observe returned and type-asserts it.
type Difference interface {
	// String is a short human summary, used in events and conditions.
	String() string
}

// Observation is the result of Observe.
type Observation struct {
	// Exists is false when the external thing is not there (Create is next).
	Exists bool
	// UpToDate is true when the external thing matches the spec.
	UpToDate bool
	// Diff is what differs when UpToDate is false.
	Diff Difference
	// Available is true when the external thing can be used (a table ACTIVE,
	// a light reachable). Ready is True only when it exists, is up to date
	// and is available.
	Available bool
	// Reason and Message explain why it is not available. When it is
	// available, Message may still carry a note for the Ready condition
	// (a part of the spec the backend cannot apply).
	Reason  string
	Message string
	// RecheckAfter asks for an earlier look than the resync interval, for
	// transitions that finish by themselves (a table CREATING).
	RecheckAfter time.Duration
}
