package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
	"github.com/tether-dev/tether/reconciler"
)

// The AWSAccount controller runs each account's change feed and shows in
// its status whether the account's tables learn of changes from the feed
// or by polling, and why; and in Ready whether the account can be used at
// all: its role assumed (with the credentials its tables' calls use) and,
// when it has one, its feed received. Reads go through the cache; the
// status is a merge patch.
// +kubebuilder:rbac:groups=aws.tether.dev,resources=awsaccounts,verbs=list;watch
// +kubebuilder:rbac:groups=aws.tether.dev,resources=awsaccounts/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Events on an AWSAccount when its feed changes mode.
const (
	ReasonChangeEventsReceiving = "ChangeEventsReceiving"
	ReasonChangeEventsFailed    = "ChangeEventsFailed"
)

// changeFeeds is what the AWSAccount controller needs of the feeds'
// registry (changefeed.Registry).
type changeFeeds interface {
	Ensure(a *awsv1alpha1.AWSAccount)
	Stop(identity string)
	Status(identity string) (awsv1alpha1.ChangeEventsStatus, bool)
}

// awsConfigFunc is an AWSAccount's AWS configuration, its credentials those
// of the account's session (dynamodb.Provider.AWSConfig).
type awsConfigFunc func(ctx context.Context, a *awsv1alpha1.AWSAccount, region, service string) (aws.Config, error)

// How often an account's role is checked again: while it works, the
// credentials cache answers without a call until the session nears its
// end, so this costs nothing; after a refusal, a person fixes a trust
// policy, and a minute is soon enough to see it.
const (
	roleRecheckInterval  = 5 * time.Minute
	roleRefusedInterval  = time.Minute
	roleCheckCallTimeout = 30 * time.Second
)

// awsAccountReconciler keeps an AWSAccount's feed running as its spec says
// and its status as the feed and its role are.
type awsAccountReconciler struct {
	client   client.Client
	feeds    changeFeeds
	recorder events.EventRecorder
	// awsConfig gives the account's session; nil leaves Ready out (tests
	// of the feed's status alone).
	awsConfig awsConfigFunc
	// pollInterval is the DynamoDBTables' default poll interval, for the
	// status's words.
	pollInterval time.Duration
}

func setupAWSAccount(mgr ctrl.Manager, feeds *changefeed.Registry, awsConfig awsConfigFunc, pollInterval time.Duration) error {
	r := &awsAccountReconciler{client: mgr.GetClient(), feeds: feeds, recorder: mgr.GetEventRecorder("tether-awsaccount"),
		awsConfig: awsConfig, pollInterval: pollInterval}
	return ctrl.NewControllerManagedBy(mgr).
		Named("awsaccount").
		// Its own status writes do not wake it; the feed does, when its
		// mode changes.
		For(&awsv1alpha1.AWSAccount{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(feeds.Accounts()).
		Complete(r)
}

// Reconcile starts, restarts or stops the account's feed and writes its
// status when it changed.
func (r *awsAccountReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	a := &awsv1alpha1.AWSAccount{}
	if err := r.client.Get(ctx, req.NamespacedName, a); err != nil {
		if apierrors.IsNotFound(err) {
			r.feeds.Stop(req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.feeds.Ensure(a)
	orig := a.DeepCopy()
	s := r.changeEvents(a)
	a.Status.ChangeEvents = &s
	a.Status.ObservedGeneration = a.Generation
	ready := metav1.ConditionFalse
	if s.Mode == awsv1alpha1.ChangeEventsModeEvents {
		ready = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&a.Status.Conditions, metav1.Condition{Type: awsv1alpha1.ConditionChangeEvents, Status: ready,
		Reason: s.Reason, Message: s.Message, ObservedGeneration: a.Generation})
	result := ctrl.Result{}
	if r.awsConfig != nil {
		cond, again := r.readiness(ctx, a, s)
		meta.SetStatusCondition(&a.Status.Conditions, cond)
		result.RequeueAfter = again
	}
	if equality.Semantic.DeepEqual(orig.Status, a.Status) {
		return result, nil
	}
	// The status is computed from the feed, not from the cached object: a
	// patch against a cache that has not seen this controller's last write
	// would leave out fields that changed since and mix two states. The
	// optimistic lock refuses that patch; the retry reads a fresh cache.
	if err := r.client.Status().Patch(ctx, a, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.announce(orig, a)
	return result, nil
}

// readiness is the account's Ready condition: True once its role is
// assumed (with the session its tables use, so a success here is theirs
// too) and its feed, when it has one, is received; False with STS's answer
// as the reason (AccessDenied, Throttled, EndpointError) or the feed's
// (QueueNotFound, NoAnswer, Starting, ...). It also says when to look again.
func (r *awsAccountReconciler) readiness(ctx context.Context, a *awsv1alpha1.AWSAccount, feed awsv1alpha1.ChangeEventsStatus) (metav1.Condition, time.Duration) {
	cond := metav1.Condition{Type: commonv1alpha1.Ready, ObservedGeneration: a.Generation}
	ctx, cancel := context.WithTimeout(ctx, roleCheckCallTimeout)
	defer cancel()
	cfg, err := r.awsConfig(ctx, a, a.Spec.Region, "sts")
	if err == nil {
		_, err = cfg.Credentials.Retrieve(ctx)
	}
	if err != nil {
		cond.Status, cond.Reason = metav1.ConditionFalse, stsReason(err)
		cond.Message = fmt.Sprintf("cannot assume %s: %v", a.Spec.AssumeRole.RoleARN, err)
		return cond, roleRefusedInterval
	}
	if a.Spec.ChangeEvents != nil && feed.Mode != awsv1alpha1.ChangeEventsModeEvents {
		cond.Status, cond.Reason = metav1.ConditionFalse, feed.Reason
		cond.Message = fmt.Sprintf("role %s assumed; the change feed is not received (its tables are polled): %s", a.Spec.AssumeRole.RoleARN, feed.Message)
		return cond, roleRecheckInterval
	}
	cond.Status, cond.Reason = metav1.ConditionTrue, reconciler.ReasonAvailable
	cond.Message = fmt.Sprintf("role %s assumed; %s", a.Spec.AssumeRole.RoleARN, feed.Message)
	return cond, roleRecheckInterval
}

// stsReason names an AssumeRole failure as the DynamoDBTables of the
// account name it: a refusal a person must fix, throttling, or anything
// else between Tether and STS.
func stsReason(err error) string {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return changefeed.ReasonEndpointError
	}
	switch apiErr.ErrorCode() {
	case "AccessDenied", "ValidationError", "RegionDisabledException", "MalformedPolicyDocument", "PackedPolicyTooLarge",
		"InvalidClientTokenId", "ExpiredToken":
		return changefeed.ReasonAccessDenied
	case "Throttling", "ThrottlingException":
		return providers.ReasonThrottled
	}
	return changefeed.ReasonEndpointError
}

// changeEvents is the feed's state, or what an account without one does.
func (r *awsAccountReconciler) changeEvents(a *awsv1alpha1.AWSAccount) awsv1alpha1.ChangeEventsStatus {
	if s, ok := r.feeds.Status(a.Name); ok {
		return s
	}
	return awsv1alpha1.ChangeEventsStatus{Mode: awsv1alpha1.ChangeEventsModePolling, Reason: changefeed.ReasonNotConfigured,
		Message: fmt.Sprintf("no spec.changeEvents: each table of this account is read every poll interval (%s), "+
			"and a change made outside Tether is found at the next read", r.pollInterval)}
}

// announce records an event when the feed changed mode (or failed anew).
func (r *awsAccountReconciler) announce(before, after *awsv1alpha1.AWSAccount) {
	was, now := before.Status.ChangeEvents, after.Status.ChangeEvents
	if was != nil && was.Mode == now.Mode && was.Reason == now.Reason {
		return
	}
	switch {
	case now.Mode == awsv1alpha1.ChangeEventsModeEvents:
		r.recorder.Eventf(after, nil, corev1.EventTypeNormal, ReasonChangeEventsReceiving, "ChangeEvents", "%s", now.Message)
	case now.Reason != changefeed.ReasonNotConfigured && now.Reason != changefeed.ReasonStarting:
		r.recorder.Eventf(after, nil, corev1.EventTypeWarning, ReasonChangeEventsFailed, "ChangeEvents",
			"polling: %s: %s", now.Reason, now.Message)
	}
}
