// Package v1alpha1 holds the status and annotations every Tether kind shares.
// It is not an API group of its own: the kinds embed these types.
// +kubebuilder:object:generate=true
package v1alpha1

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types every managed kind reports.
const (
	// Ready says how the external thing is: present, matching the spec and usable.
	Ready = "Ready"
	// Synced says how the last reconcile went.
	Synced = "Synced"
	// Stalled is present, and True, only while Tether has stopped trying
	// until someone acts: the spec cannot work as written (a terminal
	// error) or a write did not stick (the stall breaker). Its reason is
	// Ready's. It is the condition kstatus (Flux, kubectl-based tools)
	// and Argo CD read as Failed / Degraded.
	Stalled = "Stalled"
)

// Annotations users set on any managed object.
const (
	// AnnotationPollInterval overrides the kind's resync interval for one
	// object, as a Go duration ("30s", "5m").
	AnnotationPollInterval = "tether.dev/poll-interval"
	// AnnotationReconcile set to ReconcilePaused stops every external call for
	// the object; deleting a paused object lets go of the external thing.
	AnnotationReconcile = "tether.dev/reconcile"
	// ReconcilePaused is the value of AnnotationReconcile that pauses.
	ReconcilePaused = "paused"
	// AnnotationCreateStarted is written by Tether (for kinds that ask for
	// it) right before it asks the backend to create the external thing, as
	// an RFC 3339 time. After a crash between the create and the status
	// write, it lets the provider recognise the thing it made.
	AnnotationCreateStarted = "tether.dev/create-started"
)

// ManagedStatus is the part of the status the generic reconciler owns.
type ManagedStatus struct {
	// ObservedGeneration is the metadata.generation the last reconcile acted
	// on; -1 before the first (each kind's status defaults to it), so that
	// GitOps tools do not take a new object for an up-to-date one.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready (the external side), Synced (the last reconcile)
	// and, while Tether has stopped trying, Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// MinPollInterval keeps a typo in the poll-interval annotation ("1ms") from
// turning into a hot loop against the backend.
const MinPollInterval = time.Second

// PollInterval is an object's resync interval: its poll-interval annotation
// when that is a valid duration (at least MinPollInterval), otherwise def.
// A bad annotation is reported as a warning.
func PollInterval(annotations map[string]string, def time.Duration) (time.Duration, string) {
	value, ok := annotations[AnnotationPollInterval]
	if !ok {
		return def, ""
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return def, fmt.Sprintf("ignoring annotation %s=%q (want a positive duration such as 30s); polling every %s",
			AnnotationPollInterval, value, def)
	}
	return max(d, MinPollInterval), ""
}
