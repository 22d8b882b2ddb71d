package reconciler

import (
	"context"
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
	d := r.pass(ctx, req, obj)
	result, err := r.apply(ctx, req, obj, d)
	if d.Status == statusKept {
		return result, err
	}
	if werr := r.writeStatus(ctx, orig, obj); werr != nil {
		return ctrl.Result{}, werr
	}
	return result, err
}

// pass connects, observes the external side and does at most one write to
// it, and decides what comes of it.
func (r *Reconciler[O]) pass(ctx context.Context, req ctrl.Request, obj O) decision {
	p := r.facts(req, obj)
	external, err := r.connector.Connect(ctx, obj)
	if err != nil {
		p.Stage, p.Err = stageConnect, err
		return decide(p)
	}
	p.Stage = stageObserve
	p.Obs, p.Err = external.Observe(ctx, obj)
	countCall(r.kind, stageObserve, p.Err)
	if p.Err != nil {
		return decide(p)
	}
	switch p.Obs.Outcome {
	case providers.OutcomeCreate:
		if err := r.recordCreateStart(ctx, obj); err != nil {
			p.Err = err
			return decide(p)
		}
		p.Stage, p.Err = stageCreate, external.Create(ctx, obj)
		countCall(r.kind, stageCreate, p.Err)
	case providers.OutcomeUpdate:
		p.Diff, p.StallKey = describe(p.Obs.Diff), stallKey(p.Obs.Diff)
		if times, stop := r.stalls.stalled(req, obj.GetGeneration(), p.StallKey); stop {
			p.SentTimes = times
			return decide(p)
		}
		p.Stage, p.Err = stageUpdate, external.Update(ctx, obj, p.Obs.Diff)
		countCall(r.kind, stageUpdate, p.Err)
	}
	return decide(p)
}

// facts are what the reconciler knows of obj before a pass.
func (r *Reconciler[O]) facts(req ctrl.Request, obj O) pass {
	poll, _ := r.pollInterval(obj)
	return pass{Generation: obj.GetGeneration(), WasReady: wasReadyAtThisGeneration(obj), Poll: poll, AfterWrite: r.opts.AfterWrite}
}

// recheck reads the external side of an object whose last attempt failed
// terminally and whose spec and annotations have not changed since,
// writing nothing outside. A read that shows it matching the spec ends the
// failure: what the error said was wrong is not (a change AWS refused as
// already made, after a late read). Any other read leaves the status as
// the failure wrote it, and looks again at the poll interval: a terminal
// condition never sticks on an object that matches its spec.
func (r *Reconciler[O]) recheck(ctx context.Context, req ctrl.Request, obj O) (ctrl.Result, error) {
	p := r.facts(req, obj)
	p.Stage, p.Stopped = stageObserve, true
	orig := obj.DeepCopyObject().(O)
	external, err := r.connector.Connect(ctx, obj)
	if err == nil {
		p.Obs, err = external.Observe(ctx, obj)
		countCall(r.kind, stageObserve, err)
	}
	p.Err = err
	d := decide(p)
	result, _ := r.apply(ctx, req, obj, d)
	if d.Status == statusKept {
		return result, nil
	}
	return result, r.writeStatus(ctx, orig, obj)
}

// apply does what a decision says: conditions, the event, the stall
// breaker, the terminal gate, the backoff, and the result for
// controller-runtime.
func (r *Reconciler[O]) apply(ctx context.Context, req ctrl.Request, obj O, d decision) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("behaviour", d.Behaviour)
	changed := r.mark(req, obj, d)
	if d.Status != statusKept {
		obj.Managed().ObservedGeneration = obj.GetGeneration()
	}
	if e := d.Event; e != nil && (!e.OnChange || changed) {
		r.event(obj, e.Type, e.Reason, e.Action, "%s", e.Note)
	}
	switch d.Stall {
	case stallRecord:
		r.stalls.record(req, obj.GetGeneration(), d.StallKey)
	case stallSettle:
		r.stalls.settled(req)
	}
	switch d.Gate {
	case gateOpen:
		r.terminal.clear(req)
	case gateClose:
		r.terminal.record(req, obj)
	}
	if d.Drift {
		driftCorrections.WithLabelValues(r.kind).Inc()
	}
	after := d.After
	switch d.Backoff {
	case backoffReset:
		r.resetBackoff(req)
	case backoffHint:
		after = max(d.After, r.retryBackoff.When(req))
		retries.WithLabelValues(r.kind, d.Reason).Inc()
		r.backoffs.set(req, after)
	case backoffQueue:
		r.backoffs.set(req, nextBackoff(r.opts, r.errorBackoff.NumRequeues(req)))
	}
	r.log(logger, obj, d, after)
	if d.Err != nil {
		return ctrl.Result{}, fmt.Errorf("%s: %w", r.kind, d.Err)
	}
	if d.Jitter {
		after = jitter(after)
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// mark writes a decision's conditions, and reports whether Synced (or, for
// a match, Ready) changed. A match announces its note once per generation.
func (r *Reconciler[O]) mark(req ctrl.Request, obj O, d decision) bool {
	switch d.Status {
	case statusObserved:
		obs := d.Obs
		changed := markObserved(obj, obs)
		if _, warning := r.pollInterval(obj); warning != "" {
			setSynced(obj, true, ReasonSuccess, warning)
		}
		if obs.Available && obs.Reason != "" && r.notes.announce(req, obj.GetGeneration(), obs.Reason, obs.Message, changed) {
			r.event(obj, corev1.EventTypeWarning, obs.Reason, "Observe", "%s", obs.Message)
		}
		return changed
	case statusWaiting:
		markWaiting(obj, providers.Wait{Reason: d.Reason, Message: d.Message})
	case statusWritten:
		markWritten(obj, d.Reason, d.Message)
	case statusFailed:
		return markFailed(obj, d.Reason, d.Message)
	case statusStalled:
		return markStalled(obj, d.Reason, d.Message)
	}
	return false
}

// log says what a pass ended in, at the level its behaviour deserves.
func (r *Reconciler[O]) log(logger logr.Logger, obj O, d decision, after time.Duration) {
	switch d.Behaviour {
	case Stopped:
		logger.Info("not retrying until the spec changes", "reason", d.Reason, "error", d.Message)
	case Retrying:
		logger.Info("will retry", "reason", d.Reason, "after", after, "error", d.Message)
	case StallBroken:
		logger.Info("write stalled: not sent again", "reason", d.Reason, "message", d.Message)
	case Recovered:
		logger.Info("recovered: the external side matches the spec after a terminal failure")
	case Deferred:
		deferrals.WithLabelValues(r.kind, d.Reason).Inc()
		logger.V(2).Info("deferred", "after", after)
	case Matched, Created, Updated, HandedQuietly, Held:
		logger.V(2).Info("pass", "after", after)
	default:
		logger.V(1).Info("pass", "reason", d.Reason, "after", after)
	}
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
	if err := r.deleteExternal(ctx, obj); err != nil {
		p := r.facts(req, obj)
		p.Stage, p.Err = stageDelete, err
		result, failed := r.apply(ctx, req, obj, decide(p))
		if err := r.writeStatus(ctx, orig, obj); err != nil {
			return ctrl.Result{}, err
		}
		return result, failed
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
	countCall(r.kind, stageDelete, err)
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
