package controllers

import (
	"context"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
	"github.com/tether-dev/tether/reconciler"
)

// +kubebuilder:rbac:groups=aws.tether.dev,resources=dynamodbtables,verbs=list;watch;patch
// +kubebuilder:rbac:groups=aws.tether.dev,resources=dynamodbtables/status,verbs=patch
// +kubebuilder:rbac:groups=aws.tether.dev,resources=awsaccounts,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//
// Namespaces are read (through the cache) for their default account and
// their labels, which AWSAccounts admit them by.
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=list;watch
//
// Outputs ConfigMaps are created, then patched with their UID as a
// precondition: Tether never reads ConfigMaps and never writes one it did
// not create.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;patch

// dynamoDBWorkers: a reconcile mostly waits (on AWS, on the SDK retryer's
// backoff while throttled), so more workers than the default; the shared
// per-account and region limiter, not the worker count, is what protects
// the API.
const dynamoDBWorkers = 10

func init() { kindSetups = append(kindSetups, setupDynamoDBTable) }

func setupDynamoDBTable(mgr ctrl.Manager, cfg Config) error {
	var feeds changefeed.Options
	if cfg.DynamoDBChangeEventsQueue != "" {
		feeds.Operator = &changefeed.OperatorFeed{Queue: cfg.DynamoDBChangeEventsQueue, Region: cfg.AWSRegion,
			SafetyInterval: cfg.DynamoDBChangeEventsSafetyInterval}
	}
	_, err := SetupDynamoDB(mgr, cfg.DynamoDBTablePollInterval, feeds, dynamodb.Options{
		Clients: access.ClientOptions{
			DefaultRegion:     cfg.AWSRegion,
			AccountID:         cfg.AWSAccountID,
			RequestsPerSecond: cfg.DynamoDBRequestsPerSecond,
		},
		SecondaryReadInterval: cfg.DynamoDBSecondaryReadInterval,
		RequireAccount:        cfg.AWSRequireAccount,
		OperatorNamespace:     cfg.OperatorNamespace,
		DefaultTags:           cfg.DynamoDBDefaultTags,
	})
	return err
}

// SetupDynamoDBTable is SetupDynamoDB without a change feed of the
// operator's own.
func SetupDynamoDBTable(mgr ctrl.Manager, pollInterval time.Duration, opts dynamodb.Options) (*dynamodb.Provider, error) {
	return SetupDynamoDB(mgr, pollInterval, changefeed.Options{}, opts)
}

// SetupDynamoDB registers the DynamoDBTable controller (the generic
// reconciler around the DynamoDB adapter), the change feeds (the
// operator's own, when feeds.Operator is set, and each AWSAccount's) and
// the AWSAccount controller that runs them and shows their state.
// pollInterval is how often each table is described when no healthy feed
// covers it. The feeds' cache, credentials and logger are filled in here.
// It returns the adapter so that tests and the benchmark can share its
// clients.
func SetupDynamoDB(mgr ctrl.Manager, pollInterval time.Duration, feeds changefeed.Options, opts dynamodb.Options) (*dynamodb.Provider, error) {
	recorder := mgr.GetEventRecorder("tether-dynamodbtable")
	if opts.Recorder == nil {
		opts.Recorder = recorder
	}
	if opts.Reader == nil {
		// The cache: finding the objects that name the same table, the
		// AWSAccounts and the Namespaces costs no API call.
		opts.Reader = mgr.GetClient()
	}
	if opts.Writer == nil {
		opts.Writer = mgr.GetClient()
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = pollInterval
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &awsv1alpha1.DynamoDBTable{},
		dynamodb.IndexTableName, dynamodb.TableNameOf); err != nil {
		return nil, err
	}
	feeds.Reader, feeds.Log = mgr.GetClient(), mgr.GetLogger().WithName("changefeed")
	external, registry := dynamodb.NewWithChangeFeeds(opts, feeds)
	if err := mgr.Add(registry); err != nil {
		return nil, err
	}
	if err := setupAWSAccount(mgr, registry, external.AWSConfig, pollInterval); err != nil {
		return nil, err
	}
	tables := mgr.GetClient()
	r := reconciler.New(mgr.GetClient(), recorder, "dynamodbtable",
		func() *awsv1alpha1.DynamoDBTable { return &awsv1alpha1.DynamoDBTable{} }, external,
		reconciler.Options{PollInterval: pollInterval, MaxConcurrentReconciles: dynamoDBWorkers, RecordCreateStart: true,
			Customize: func(b *builder.Builder) *builder.Builder {
				return b.
					WatchesRawSource(registry.Tables()).
					Watches(&awsv1alpha1.AWSAccount{}, handler.EnqueueRequestsFromMapFunc(tablesOfAccount(tables)),
						builder.WithPredicates(predicate.GenerationChangedPredicate{})).
					Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(tablesInNamespace(tables)),
						builder.WithPredicates(namespaceAccountChanged())).
					Watches(&awsv1alpha1.DynamoDBTable{}, handler.EnqueueRequestsFromMapFunc(membersOfGlobalTable(tables)),
						builder.WithPredicates(globalTableMemberChanged()))
			}})
	return external, r.SetupWithManager(mgr)
}

// tablesOfAccount wakes the tables that use an AWSAccount when it is
// created, changed or deleted: a fixed role, a namespace admitted or no
// longer admitted takes effect at once, not at the next resync.
func tablesOfAccount(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var defaults map[string]bool // namespaces whose default is this account
		return requestsFor(ctx, c, obj, &awsv1alpha1.DynamoDBTableList{}, func(t *awsv1alpha1.DynamoDBTable) bool {
			if t.Spec.AccountRef != nil {
				return t.Spec.AccountRef.Name == obj.GetName()
			}
			if defaults == nil {
				defaults = namespacesDefaultingTo(ctx, c, obj.GetName())
			}
			return defaults[t.Namespace]
		})
	}
}

func namespacesDefaultingTo(ctx context.Context, c client.Reader, account string) map[string]bool {
	out := map[string]bool{}
	var nss corev1.NamespaceList
	if err := c.List(ctx, &nss, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "listing Namespaces for an AWSAccount change")
		return out
	}
	for _, ns := range nss.Items {
		if ns.Annotations[awsv1alpha1.AnnotationNamespaceAccount] == account {
			out[ns.Name] = true
		}
	}
	return out
}

// tablesInNamespace wakes a namespace's tables when its default account or
// its labels change.
func tablesInNamespace(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		return requestsFor(ctx, c, obj, &awsv1alpha1.DynamoDBTableList{}, func(*awsv1alpha1.DynamoDBTable) bool { return true },
			client.InNamespace(obj.GetName()))
	}
}

// namespaceAccountChanged passes Namespace updates that change what an
// AWSAccount decides by: the labels and the default account annotation.
func namespaceAccountChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		DeleteFunc: func(event.DeleteEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) ||
				e.ObjectOld.GetAnnotations()[awsv1alpha1.AnnotationNamespaceAccount] != e.ObjectNew.GetAnnotations()[awsv1alpha1.AnnotationNamespaceAccount]
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
