package reconciler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Reconcile runs one pass of the lifecycle for one object.
func (r *Reconciler[O]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.newObj()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		r.forget(req)
		r.stalls.settled(req)
		if apierrors.IsNotFound(err) {
			r.writes.forget(req)
			r.notes.forget(req)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.writes.behind(req, obj.GetResourceVersion(), time.Now()) {
		return ctrl.Result{RequeueAfter: cacheCatchUp}, nil
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, req, obj)
	}
	if isPaused(obj) {
		if p, ok := r.connector.(providers.Pauser[O]); ok {
			p.Paused(ctx, obj)
		}
		return ctrl.Result{}, r.writeStatusAfter(ctx, obj, func() { markPaused(obj) })
	}
	if err := r.ensureFinalizer(ctx, obj); err != nil {
		return ctrl.Result{}, err
	}
	if r.terminal.blocks(req, obj) {
		return r.recheck(ctx, req, obj)
	}

	orig := obj.DeepCopyObject().(O)
	result, syncErr := r.sync(ctx, req, obj)
	if errors.Is(syncErr, errQuiet) {
		return result, nil
	}
	if err := r.writeStatus(ctx, orig, obj); err != nil {
		return ctrl.Result{}, err
	}
	return result, syncErr
}

// sync connects, observes the external side and does at most one write to
// it.
func (r *Reconciler[O]) sync(ctx context.Context, req ctrl.Request, obj O) (ctrl.Result, error) {
	external, err := r.connector.Connect(ctx, obj)
	if err != nil {
		return r.handleError(ctx, req, obj, phaseConnect, err)
	}
	obs, err := external.Observe(ctx, obj)
	countCall(r.kind, phaseObserve, err)
	if err != nil {
		return r.handleError(ctx, req, obj, phaseObserve, err)
	}

	switch obs.Outcome {
	case providers.OutcomeCreate:
		if err := r.recordCreateStart(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
		err := external.Create(ctx, obj)
		countCall(r.kind, phaseCreate, err)
		if err != nil {
			return r.handleError(ctx, req, obj, phaseCreate, err)
		}
		r.event(obj, corev1.EventTypeNormal, ReasonCreated, "Create", "created the external resource")
		markWritten(obj, providers.ReasonCreating, "created; waiting to observe it")
		return r.succeeded(req, obj, r.opts.AfterWrite)

	case providers.OutcomeWait:
		return r.wait(req, obj, obs.Wait)

	case providers.OutcomeUpdate:
		return r.update(ctx, req, obj, external, obs)

	case providers.OutcomeUpToDate:
		if !obs.Unconfirmed {
			r.stalls.settled(req)
		}
		changed := markObserved(obj, obs)
		if obs.Available && obs.Reason != "" && r.notes.announce(req, obj.GetGeneration(), obs.Reason, obs.Message, changed) {
			r.event(obj, corev1.EventTypeWarning, obs.Reason, "Observe", "%s", obs.Message)
			log.FromContext(ctx).Info("ready, with a note", "reason", obs.Reason, "note", obs.Message)
		}
		return r.succeeded(req, obj, r.nextLook(obj, obs))

	default:
		return r.handleError(ctx, req, obj, phaseObserve, fmt.Errorf("the provider's observation has no outcome (%d)", obs.Outcome))
	}
}

// wait ends a pass whose Observe chose not to write: Ready says why, and the
// next look is when the wait says (the poll interval by default). A quiet
// wait leaves the status as it was.
func (r *Reconciler[O]) wait(req ctrl.Request, obj O, w providers.Wait) (ctrl.Result, error) {
	if w.Quiet {
		return r.quiet(req, w.For)
	}
	markWaiting(obj, w)
	next := w.For
	if next <= 0 {
		next, _ = r.pollInterval(obj)
	}
	return r.succeeded(req, obj, next)
}

// nextLook is when to observe a matching object again: at its resync
// interval, sooner for a transition that finishes by itself (RecheckAfter
// while not available), and sooner for a match that rests on a write not
// yet read back (Unconfirmed). Nothing else wakes the latter: the read that
// confirms the write shows no drift. Without this look its status would
// report the read before the write, until the resync.
func (r *Reconciler[O]) nextLook(obj O, obs providers.Observation) time.Duration {
	next := obs.RecheckAfter
	if next <= 0 || obs.Available {
		var warning string
		next, warning = r.pollInterval(obj)
		if warning != "" {
			setSynced(obj, true, ReasonSuccess, warning)
		}
	}
	if obs.Unconfirmed {
		confirm := obs.RecheckAfter
		if confirm <= 0 {
			confirm = r.opts.AfterWrite
		}
		next = min(next, confirm)
	}
	return next
}

// recheck reads the external side of an object whose last attempt failed
// terminally and whose spec and annotations have not changed since,
// writing nothing outside. A read that shows it matching the spec ends the
// failure: what the error said was wrong is not (a change AWS refused as
// already made, after a late read). Any other read leaves the status as
// the failure wrote it, and looks again at the poll interval: a terminal
// condition never sticks on an object that matches its spec.
func (r *Reconciler[O]) recheck(ctx context.Context, req ctrl.Request, obj O) (ctrl.Result, error) {
	next, _ := r.pollInterval(obj)
	orig := obj.DeepCopyObject().(O)
	obs, err := r.observeOnly(ctx, obj)
	if err != nil || obs.Outcome != providers.OutcomeUpToDate || obs.Unconfirmed {
		log.FromContext(ctx).V(1).Info("not retrying: the last attempt failed terminally, nothing has changed since, and the external side does not match the spec")
		return ctrl.Result{RequeueAfter: jitter(next)}, nil
	}
	r.terminal.clear(req)
	r.stalls.settled(req)
	markObserved(obj, obs)
	r.event(obj, corev1.EventTypeNormal, ReasonRecovered, "Observe", "the external resource matches the spec: the last failure is over")
	log.FromContext(ctx).Info("recovered: the external side matches the spec after a terminal failure")
	result, _ := r.succeeded(req, obj, r.nextLook(obj, obs))
	return result, r.writeStatus(ctx, orig, obj)
}

// observeOnly connects and observes.
func (r *Reconciler[O]) observeOnly(ctx context.Context, obj O) (providers.Observation, error) {
	external, err := r.connector.Connect(ctx, obj)
	if err != nil {
		return providers.Observation{}, err
	}
	obs, err := external.Observe(ctx, obj)
	countCall(r.kind, phaseObserve, err)
	return obs, err
}

// update sends the difference, unless the same difference was already sent
// StallAfter times for this generation without the external side showing it.
func (r *Reconciler[O]) update(ctx context.Context, req ctrl.Request, obj O, external providers.External[O], obs providers.Observation) (ctrl.Result, error) {
	diff, key := describe(obs.Diff), stallKey(obs.Diff)
	if times, stop := r.stalls.stalled(req, obj.GetGeneration(), key); stop {
		return r.stalled(ctx, req, obj, diff, times)
	}
	reason, verb := ReasonUpdated, "updated"
	if wasReadyAtThisGeneration(obj) {
		reason, verb = ReasonDriftCorrected, "corrected drift"
	}
	err := external.Update(ctx, obj, obs.Diff)
	countCall(r.kind, phaseUpdate, err)
	w, waits := providers.AsWait(err)
	if err == nil || (waits && w.Sent) {
		// Handed over: the event says so now, whether or not the status
		// does (a quiet wait leaves it for the pass that sees the write).
		r.stalls.record(req, obj.GetGeneration(), key)
		if reason == ReasonDriftCorrected {
			driftCorrections.WithLabelValues(r.kind).Inc()
		}
		r.event(obj, corev1.EventTypeNormal, reason, "Update", "%s: %s", verb, diff)
	}
	if waits && w.Sent && w.Quiet {
		return r.quiet(req, w.For)
	}
	if err != nil {
		return r.handleError(ctx, req, obj, phaseUpdate, err)
	}
	markWritten(obj, providers.ReasonUpdating, "sent: "+diff)
	return r.succeeded(req, obj, r.opts.AfterWrite)
}

// errQuiet marks a pass whose outcome is known within a moment (a write
// about to go out): Reconcile writes no status for it.
var errQuiet = errors.New("quiet wait: the status is left as it was")

// quiet ends a pass that waits a moment for a write the adapter will wake
// the object for (a quiet Wait from Observe, or from Update for a write it
// handed over). Writing "waiting" for that moment would double the
// object's status writes when many change at once; the next pass reports
// the outcome, or the wait if it lasted. The backoff starts over, as for
// any wait.
func (r *Reconciler[O]) quiet(req ctrl.Request, after time.Duration) (ctrl.Result, error) {
	r.resetBackoff(req)
	if after <= 0 {
		after = r.opts.AfterWrite
	}
	return ctrl.Result{RequeueAfter: after}, errQuiet
}

// stalled records a write the stall breaker stopped. Nothing is sent until
// the spec changes or the external side does (the difference then reads
// differently); the object is still observed at its resync interval.
func (r *Reconciler[O]) stalled(ctx context.Context, req ctrl.Request, obj O, diff string, times int) (ctrl.Result, error) {
	msg := fmt.Sprintf("sent %q %d times for generation %d with no visible effect: not sent again until the spec changes "+
		"or it is changed from outside", diff, times, obj.GetGeneration())
	if changed := markStalled(obj, providers.ReasonStalled, msg); changed {
		r.event(obj, corev1.EventTypeWarning, providers.ReasonStalled, "Update", "%s", msg)
		log.FromContext(ctx).Info("write stalled: not sent again", "diff", diff, "times", times)
	}
	next, _ := r.pollInterval(obj)
	return r.succeeded(req, obj, next)
}

// succeeded ends a pass that went as planned: the backoff starts over and the
// terminal gate opens.
func (r *Reconciler[O]) succeeded(req ctrl.Request, obj O, after time.Duration) (ctrl.Result, error) {
	r.forget(req)
	obj.Managed().ObservedGeneration = obj.GetGeneration()
	return ctrl.Result{RequeueAfter: jitter(after)}, nil
}

// handleError turns a provider error into conditions, an event on transition
// and the next step: a hinted wait, backoff, or no retry at all.
func (r *Reconciler[O]) handleError(ctx context.Context, req ctrl.Request, obj O, phase phase, err error) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("phase", phase)
	w, waits := providers.AsWait(err)
	if waits && w.Quiet {
		return r.deferred(logger, w), nil
	}
	obj.Managed().ObservedGeneration = obj.GetGeneration()

	if waits {
		markFailed(obj, w.Reason, w.Message)
		r.resetBackoff(req)
		logger.V(1).Info("waiting", "reason", w.Reason, "after", w.For)
		return ctrl.Result{RequeueAfter: w.For}, nil
	}

	t, terminal := providers.AsTerminal(err)
	mark := markFailed
	if terminal {
		mark = markStalled
	}
	if changed := mark(obj, reasonFor(phase, err), err.Error()); changed {
		r.event(obj, corev1.EventTypeWarning, reasonFor(phase, err), string(phase), "%s failed: %v", phase, err)
	}

	if terminal {
		r.terminal.record(req, obj)
		r.resetBackoff(req)
		logger.Info("not retrying until the spec changes", "reason", t.Reason, "error", err.Error())
		next, _ := r.pollInterval(obj)
		return ctrl.Result{RequeueAfter: jitter(next)}, nil
	}
	if ra, ok := providers.AsRetryAfter(err); ok {
		delay := max(ra.Delay, r.retryBackoff.When(req))
		retries.WithLabelValues(r.kind, reasonFor(phase, err)).Inc()
		r.backoffs.set(req, delay)
		logger.Info("will retry", "reason", ra.Reason, "after", delay, "error", err.Error())
		return ctrl.Result{RequeueAfter: delay}, nil
	}
	// Anything else: the workqueue's per-object exponential backoff.
	r.backoffs.set(req, nextBackoff(r.opts, r.errorBackoff.NumRequeues(req)))
	return ctrl.Result{}, fmt.Errorf("%s %s: %w", phase, r.kind, err)
}

// deferred gives the worker back to run the pass again when its turn comes
// (a quiet wait before the pass got to write). Conditions, backoff and the
// terminal gate stay as they were: a deferral says nothing about the
// external side, only that its shared budget is spent for now (the
// provider reports what that does to the poll interval).
func (r *Reconciler[O]) deferred(logger logr.Logger, w *providers.Wait) ctrl.Result {
	deferrals.WithLabelValues(r.kind, w.Reason).Inc()
	logger.V(2).Info("deferred", "reason", w.Reason, "after", w.For)
	return ctrl.Result{RequeueAfter: w.For}
}

// finalize deletes the external side, then lets the object go.
func (r *Reconciler[O]) finalize(ctx context.Context, req ctrl.Request, obj O) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return ctrl.Result{}, nil
	}
	if isPaused(obj) {
		r.event(obj, corev1.EventTypeNormal, ReasonReleased, "Delete", "reconciliation is paused: released the external resource without touching it")
		return ctrl.Result{}, r.removeFinalizer(ctx, obj)
	}

	orig := obj.DeepCopyObject().(O)
	err := r.deleteExternal(ctx, obj)
	if err != nil {
		result, handled := r.handleError(ctx, req, obj, phaseDelete, err)
		if err := r.writeStatus(ctx, orig, obj); err != nil {
			return ctrl.Result{}, err
		}
		return result, handled
	}
	r.event(obj, corev1.EventTypeNormal, ReasonDeleted, "Delete", "%s", r.describeDelete(obj))
	r.forget(req)
	r.stalls.settled(req)
	return ctrl.Result{}, r.removeFinalizer(ctx, obj)
}

// describeDelete words what the deletion did outside: the provider's words
// (providers.DeleteDescriber), or the generic ones.
func (r *Reconciler[O]) describeDelete(obj O) string {
	if d, ok := r.connector.(providers.DeleteDescriber[O]); ok {
		if words := d.DescribeDelete(obj); words != "" {
			return words
		}
	}
	return "the external resource is gone"
}

// deleteExternal connects and deletes.
func (r *Reconciler[O]) deleteExternal(ctx context.Context, obj O) error {
	external, err := r.connector.Connect(ctx, obj)
	if err != nil {
		return err
	}
	err = external.Delete(ctx, obj)
	countCall(r.kind, phaseDelete, err)
	return err
}

// ensureFinalizer adds the finalizer before anything is created outside, so
// an external thing never exists without an object that will clean it up.
func (r *Reconciler[O]) ensureFinalizer(ctx context.Context, obj O) error {
	if controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	before := obj.GetResourceVersion()
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(O), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(obj, Finalizer)
	if err := r.client.Patch(ctx, obj, patch); err != nil {
		return err
	}
	r.writes.replaced(ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}, before, time.Now())
	return nil
}

// recordCreateStart notes on the object, before the create, that Tether is
// about to create the external thing (see Options.RecordCreateStart).
func (r *Reconciler[O]) recordCreateStart(ctx context.Context, obj O) error {
	if !r.opts.RecordCreateStart {
		return nil
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(O))
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[commonv1alpha1.AnnotationCreateStarted] = time.Now().UTC().Format(time.RFC3339)
	obj.SetAnnotations(annotations)
	return r.client.Patch(ctx, obj, patch)
}

func (r *Reconciler[O]) removeFinalizer(ctx context.Context, obj O) error {
	before := obj.GetResourceVersion()
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(O), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(obj, Finalizer)
	err := r.client.Patch(ctx, obj, patch)
	if err == nil {
		// A pass woken before the cache sees the object go (a provider
		// waking it after its last write) would delete, and announce
		// the deletion, a second time. The API server answers the last
		// finalizer's removal with the object as it was (the same
		// resourceVersion): the copy before is stale all the same.
		r.writes.replaced(ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}, before, time.Now())
	}
	return client.IgnoreNotFound(err)
}

// writeStatusAfter applies change to the object's status and writes it.
func (r *Reconciler[O]) writeStatusAfter(ctx context.Context, obj O, change func()) error {
	orig := obj.DeepCopyObject().(O)
	change()
	return r.writeStatus(ctx, orig, obj)
}

// writeStatus writes the status only when this pass changed it: a resync that
// finds everything as it was costs the API server nothing.
func (r *Reconciler[O]) writeStatus(ctx context.Context, orig, obj O) error {
	if equality.Semantic.DeepEqual(orig, obj) {
		return nil
	}
	err := r.client.Status().Patch(ctx, obj, client.MergeFrom(orig))
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		r.writes.wrote(ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)},
			orig.GetResourceVersion(), obj.GetResourceVersion(), time.Now())
	}
	return err
}

// forget ends what a pass that went as planned leaves behind: the backoff
// and the terminal gate.
func (r *Reconciler[O]) forget(req ctrl.Request) {
	r.resetBackoff(req)
	r.terminal.clear(req)
}

// resetBackoff starts the object's backoff over: after a success, a wait
// (nothing is wrong) or a terminal error (nothing is retried).
func (r *Reconciler[O]) resetBackoff(req ctrl.Request) {
	r.retryBackoff.Forget(req)
	r.backoffs.set(req, 0)
}

func (r *Reconciler[O]) event(obj O, eventType, reason, action, note string, args ...any) {
	if r.recorder == nil {
		return
	}
	r.recorder.Eventf(obj, nil, eventType, reason, action, note, args...)
}

// stallKey is how the stall breaker recognises the same write.
func stallKey(d providers.Difference) string {
	if k, ok := d.(providers.StallKeyer); ok {
		return k.StallKey()
	}
	return describe(d)
}

func describe(d providers.Difference) string {
	if d == nil {
		return "the spec"
	}
	return d.String()
}
