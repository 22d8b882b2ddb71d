package reconciler

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// Condition reasons and event reasons the generic reconciler uses. Providers
// add their own (BridgeUnreachable, Throttled, LightNotFound, ...).
const (
	ReasonSuccess        = "Success"
	ReasonAvailable      = "Available"
	ReasonPaused         = "Paused"
	ReasonCreated        = "Created"
	ReasonUpdated        = "Updated"
	ReasonDriftCorrected = "DriftCorrected"
	ReasonDeleted        = "Deleted"
	ReasonReleased       = "Released"
	// ReasonRecovered: the external side matches the spec after a
	// terminal failure (recheck).
	ReasonRecovered = "Recovered"
)

// reasonFor is the condition reason for err: the provider's own word when it
// gave one, otherwise "<Phase>Failed".
func reasonFor(p stage, err error) string {
	if t, ok := providers.AsTerminal(err); ok && t.Reason != "" {
		return t.Reason
	}
	if ra, ok := providers.AsRetryAfter(err); ok && ra.Reason != "" {
		return ra.Reason
	}
	return string(p) + "Failed"
}

func markPaused(obj Managed) {
	setSynced(obj, false, ReasonPaused, "reconciliation is paused by the annotation "+
		commonv1alpha1.AnnotationReconcile+"="+commonv1alpha1.ReconcilePaused+": no calls to the external side")
}

// markWritten records a successful Create or Update: the pass went well, and
// the external side is not confirmed ready until the next Observe.
func markWritten(obj Managed, readyReason, message string) {
	setSynced(obj, true, ReasonSuccess, "")
	setReady(obj, false, readyReason, message)
	clearStalled(obj)
}

// markObserved records an external side that matches the spec. An
// available one may carry a note, with its own reason. It reports whether
// Ready changed.
func markObserved(obj Managed, obs providers.Observation) bool {
	setSynced(obj, true, ReasonSuccess, "")
	clearStalled(obj)
	if obs.Available {
		reason := obs.Reason
		if reason == "" {
			reason = ReasonAvailable
		}
		return setReady(obj, true, reason, obs.Message)
	}
	return setReady(obj, false, obs.Reason, obs.Message)
}

// markWaiting records a pass that chose not to write: it went well, and the
// external side is not known to match the spec.
func markWaiting(obj Managed, w providers.Wait) {
	setSynced(obj, true, ReasonSuccess, "")
	setReady(obj, false, w.Reason, w.Message)
	clearStalled(obj)
}

// markFailed records a failed (or waiting) pass that Tether will try again
// by itself, in both conditions: the external side is not known to match
// the spec. It reports whether Synced changed, so that an event is emitted
// once per transition, not per retry.
func markFailed(obj Managed, reason, message string) bool {
	changed := setSynced(obj, false, reason, message)
	setReady(obj, false, reason, message)
	clearStalled(obj)
	return changed
}

// markStalled is markFailed for a pass after which Tether stops trying
// until the spec, an annotation or the external side changes (a terminal
// error, the stall breaker): Stalled says so, for the tools that read it
// as Failed (kstatus) or Degraded (Argo CD).
func markStalled(obj Managed, reason, message string) bool {
	changed := setSynced(obj, false, reason, message)
	setReady(obj, false, reason, message)
	setCondition(obj, commonv1alpha1.Stalled, true, reason, message)
	return changed
}

// clearStalled removes Stalled: following kstatus's convention for an
// abnormal condition, it is absent rather than False while Tether tries.
func clearStalled(obj Managed) {
	meta.RemoveStatusCondition(&obj.Managed().Conditions, commonv1alpha1.Stalled)
}

// wasReadyAtThisGeneration tells drift (the external side changed under a spec
// we had already applied) from an update the user asked for.
func wasReadyAtThisGeneration(obj Managed) bool {
	ready := meta.FindStatusCondition(obj.Managed().Conditions, commonv1alpha1.Ready)
	return ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == obj.GetGeneration()
}

func setSynced(obj Managed, ok bool, reason, message string) bool {
	return setCondition(obj, commonv1alpha1.Synced, ok, reason, message)
}

func setReady(obj Managed, ok bool, reason, message string) bool {
	return setCondition(obj, commonv1alpha1.Ready, ok, reason, message)
}

func setCondition(obj Managed, conditionType string, ok bool, reason, message string) bool {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	if reason == "" {
		reason = "Unknown"
	}
	return meta.SetStatusCondition(&obj.Managed().Conditions, metav1.Condition{
		Type:               conditionType,
		Status:             status,
		Reason:             reason,
		Message:            providers.Truncate(message),
		ObservedGeneration: obj.GetGeneration(),
	})
}
