package controllers

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// +kubebuilder:rbac:groups=aws.tether.dev,resources=dynamodbtables,verbs=list;watch;patch
// +kubebuilder:rbac:groups=aws.tether.dev,resources=dynamodbtables/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// dynamoDBWorkers: a reconcile mostly waits (on AWS, on the SDK retryer's
// backoff while throttled), so more workers than the default; the shared
// per-region limiter, not the worker count, is what protects the API.
const dynamoDBWorkers = 10

func init() { kindSetups = append(kindSetups, setupDynamoDBTable) }

func setupDynamoDBTable(mgr ctrl.Manager, cfg Config) error {
	_, err := SetupDynamoDBTable(mgr, cfg.DynamoDBTablePollInterval, dynamodb.Options{
		Clients: dynamodb.ClientOptions{
			DefaultRegion:     cfg.AWSRegion,
			RequestsPerSecond: cfg.DynamoDBRequestsPerSecond,
		},
		SecondaryReadInterval: cfg.DynamoDBSecondaryReadInterval,
	})
	return err
}

// SetupDynamoDBTable registers the DynamoDBTable controller: the generic
// reconciler around the DynamoDB adapter. pollInterval is how often each
// table is described when nothing else happens. It returns the adapter so
// that tests and the benchmark can share its clients.
func SetupDynamoDBTable(mgr ctrl.Manager, pollInterval time.Duration, opts dynamodb.Options) (*dynamodb.Provider, error) {
	recorder := mgr.GetEventRecorder("tether-dynamodbtable")
	if opts.Recorder == nil {
		opts.Recorder = recorder
	}
	if opts.Reader == nil {
		// The cache: finding the objects that name the same table costs
		// no API call.
		opts.Reader = mgr.GetClient()
	}
	external := dynamodb.New(opts)
	r := NewManagedReconciler(mgr.GetClient(), recorder, "dynamodbtable",
		func() *awsv1alpha1.DynamoDBTable { return &awsv1alpha1.DynamoDBTable{} }, providers.Connected(providers.External[*awsv1alpha1.DynamoDBTable](external)),
		Options{PollInterval: pollInterval, MaxConcurrentReconciles: dynamoDBWorkers, RecordCreateStart: true})
	return external, r.SetupWithManager(mgr)
}
