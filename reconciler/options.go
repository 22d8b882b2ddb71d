// Package controllers holds the one generic managed-resource reconciler and a
// thin controller per kind that plugs its provider into it.
package reconciler

import (
	"time"

	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Every kind records events through the events.k8s.io API. Patch is for an
// event series (the same event again for the same object version).
//
// Each kind's own markers grant only list;watch;patch on the kind and patch on
// its status: every read goes through the manager's cache (informers list and
// watch), every write is a merge patch (finalizer, annotation, status).
// internal/rbactest fails when a granted verb goes unused or a needed one is
// refused.
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Finalizer keeps a managed object until its external side is gone.
const Finalizer = "tether.dev/finalizer"

// Managed is what every Tether kind offers the generic reconciler.
type Managed interface {
	client.Object
	// Managed returns the part of the status the generic reconciler owns.
	Managed() *commonv1alpha1.ManagedStatus
}

// Options tune the generic reconciler for one kind.
type Options struct {
	// PollInterval is the kind's default resync interval; the annotation
	// tether.dev/poll-interval overrides it per object.
	PollInterval time.Duration
	// AfterWrite is how long to wait before looking again after a Create or
	// Update, so the next Observe sees the result. Default 1 s.
	AfterWrite time.Duration
	// MinBackoff and MaxBackoff bound the per-object exponential backoff for
	// errors. Defaults 1 s and 5 min.
	MinBackoff, MaxBackoff time.Duration
	// MaxConcurrentReconciles defaults to 4.
	MaxConcurrentReconciles int
	// RecordCreateStart writes the annotation tether.dev/create-started on
	// the object before each Create, for providers that cannot otherwise
	// recognise what they created if the manager dies before the status
	// write (a table on an endpoint without tags). Costs one API write per
	// create.
	RecordCreateStart bool
	// StallAfter is how many times the same write may be sent for one
	// generation with no visible effect before the stall breaker stops it
	// (stall.go). Default 3; negative turns the breaker off.
	StallAfter int
	// Customize adds a kind's own watches (another kind, a session's
	// wake-up channel).
	Customize func(*builder.Builder) *builder.Builder
}

func (o Options) withDefaults() Options {
	if o.PollInterval <= 0 {
		o.PollInterval = 5 * time.Minute
	}
	if o.AfterWrite <= 0 {
		o.AfterWrite = time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Minute
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = 4
	}
	if o.StallAfter == 0 {
		o.StallAfter = providers.DefaultStallAfter
	}
	return o
}

// Reconciler drives a provider through the whole lifecycle of one kind:
// finalizer, connect, observe, create/update/delete, conditions, events,
// resync, backoff and the stall breaker. Kinds differ only in their provider
// and options.
type Reconciler[O Managed] struct {
	client    client.Client
	recorder  events.EventRecorder
	kind      string
	newObj    func() O
	connector providers.Connector[O]
	opts      Options

	// retryBackoff spaces retries of faults that repeat (an offline bridge):
	// the provider's hint is a floor, this grows it exponentially.
	retryBackoff workqueue.TypedRateLimiter[reconcile.Request]
	// errorBackoff is the workqueue's own limiter for plain errors; kept
	// here to report its current delay.
	errorBackoff workqueue.TypedRateLimiter[reconcile.Request]
	backoffs     *backoffs
	terminal     *terminalGate
	stalls       *stallBreaker
	writes       *ownWrites
	notes        *announcedNotes
}

// New wires a provider for kind into the generic reconciler
// (providers.Connected wraps an adapter without a connect stage).
func New[O Managed](c client.Client, recorder events.EventRecorder, kind string,
	newObj func() O, connector providers.Connector[O], opts Options) *Reconciler[O] {
	opts = opts.withDefaults()
	// A counter is served from its first sample; at 0 from the start, an
	// alert or panel over it works before the first drift.
	driftCorrections.WithLabelValues(kind)
	return &Reconciler[O]{
		client:       c,
		recorder:     recorder,
		kind:         kind,
		newObj:       newObj,
		connector:    connector,
		opts:         opts,
		retryBackoff: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](opts.MinBackoff, opts.MaxBackoff),
		errorBackoff: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](opts.MinBackoff, opts.MaxBackoff),
		backoffs:     newBackoffs(kind),
		terminal:     newTerminalGate(),
		stalls:       newStallBreaker(opts.StallAfter),
		writes:       newOwnWrites(),
		notes:        newAnnouncedNotes(),
	}
}

// SetupWithManager registers the controller. It reacts to spec, annotation and
// deletion changes only: its own status writes do not wake it, so the external
// side is read once per resync, not once per write.
func (r *Reconciler[O]) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).
		Named(r.kind).
		For(r.newObj(), builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{},
			userAnnotationChanged(),
		))).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: r.opts.MaxConcurrentReconciles,
			RateLimiter:             r.errorBackoff,
		})
	if r.opts.Customize != nil {
		b = r.opts.Customize(b)
	}
	return b.Complete(r)
}
