package dynamodb

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/go-logr/logr"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// One DynamoDB Local serves the package's tests (it takes seconds to start);
// every test uses its own table names.
var (
	localOnce   sync.Once
	localServer *ddbtest.Server
	localErr    error
)

func TestMain(m *testing.M) {
	// The SDK logs through controller-runtime's logger (SDKLogger); set
	// one, so that controller-runtime does not print a goroutine's stack
	// ("log.SetLogger(...) was never called") into the test output, where
	// it reads like a crash.
	log.SetLogger(logr.Discard())
	code := m.Run()
	localServer.Stop()
	os.Exit(code)
}

func dynamoDBLocal(t *testing.T) *ddbtest.Server {
	t.Helper()
	localOnce.Do(func() { localServer, localErr = ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{}) })
	if localErr != nil {
		t.Fatal(localErr)
	}
	return localServer
}

// fixture is a provider talking to a real endpoint through a counting,
// fault-injecting proxy, and a raw client for acting behind its back.
type fixture struct {
	t      *testing.T
	p      *Provider
	proxy  *faultproxy.Proxy
	raw    *dynamodb.Client
	events *eventLog
}

func newFixture(t *testing.T, url string, opts Options) *fixture {
	t.Helper()
	proxy := ddbtest.FaultProxy(t, url, 1)
	ddbtest.UseEndpoint(t, proxy.URL())
	if id := opts.Clients.AccountID; id != "" {
		// --aws-account-id must be the account STS names for the
		// operator's credentials (access.Clients.OperatorAccount): a
		// model that puts them there.
		operatorIn(t, id)
	}
	events := &eventLog{}
	opts.Recorder = events
	if opts.SecondaryReadInterval == 0 {
		opts.SecondaryReadInterval = -1
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The raw client goes around the proxy: its calls are not counted.
	raw := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
	return &fixture{t: t, p: New(opts), proxy: proxy, raw: raw, events: events}
}

// operatorIn has STS (a model, internal/ststest) name account as the
// operator's own for the rest of the test: the access key id of the
// environment now (ddbtest.UseEndpoint's, or one the test set) is in it.
func operatorIn(t *testing.T, account string) *ststest.Server {
	t.Helper()
	sts, err := ststest.Start(ststest.Options{Accounts: map[string]string{os.Getenv("AWS_ACCESS_KEY_ID"): account}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sts.Close)
	t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL)
	return sts
}

func localFixture(t *testing.T) *fixture {
	return newFixture(t, dynamoDBLocal(t).URL, Options{})
}

var tableSeq int

// newTable is a DynamoDBTable as the API server would return it, defaults
// applied.
func newTable(mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
	tableSeq++
	obj := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("t%d-%d", tableSeq, time.Now().UnixNano()%100000),
			Namespace: "default", UID: apitypes.UID(uuid.NewUUID()), Generation: 1},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
			BillingMode:          awsv1alpha1.BillingModePayPerRequest,
			DeletionPolicy:       awsv1alpha1.DeletionPolicyDelete,
		},
	}
	for _, m := range mutate {
		m(obj)
	}
	return obj
}

func withGSI(name, attr string, tp *awsv1alpha1.ProvisionedThroughput) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.AttributeDefinitions = appendAttr(o.Spec.AttributeDefinitions, attr)
		o.Spec.GlobalSecondaryIndexes = append(o.Spec.GlobalSecondaryIndexes, awsv1alpha1.GlobalSecondaryIndex{
			IndexName: name, KeySchema: awsv1alpha1.IndexKeySchema{{AttributeName: attr, KeyType: "HASH"}},
			Projection: awsv1alpha1.Projection{ProjectionType: "ALL"}, ProvisionedThroughput: tp})
	}
}

func appendAttr(defs []awsv1alpha1.AttributeDefinition, name string) []awsv1alpha1.AttributeDefinition {
	for _, d := range defs {
		if d.AttributeName == name {
			return defs
		}
	}
	return append(defs, awsv1alpha1.AttributeDefinition{AttributeName: name, AttributeType: "S"})
}

func capacity(r, w int64) *awsv1alpha1.ProvisionedThroughput {
	return &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: r, WriteCapacityUnits: w}
}

// pass does what the generic reconciler does in one pass: Observe, then at
// most one write. It returns the observation and the error of the pass.
func (f *fixture) pass(obj *awsv1alpha1.DynamoDBTable) (providers.Observation, error) {
	ctx := context.Background()
	ext, err := f.p.Connect(ctx, obj)
	if err != nil {
		return providers.Observation{}, err
	}
	obs, err := ext.Observe(ctx, obj)
	switch {
	case err != nil:
		return obs, err
	case obs.Outcome == providers.OutcomeCreate:
		return obs, ext.Create(ctx, obj)
	case obs.Outcome == providers.OutcomeUpdate:
		return obs, ext.Update(ctx, obj, obs.Diff)
	}
	return obs, nil
}

// observe connects and observes, as the start of a pass does.
func (f *fixture) observe(obj *awsv1alpha1.DynamoDBTable) (providers.Observation, error) {
	ext, err := f.p.Connect(context.Background(), obj)
	if err != nil {
		return providers.Observation{}, err
	}
	return ext.Observe(context.Background(), obj)
}

// delete connects and deletes, as a pass for an object being deleted does
// (it marks obj deleted when it is not yet).
func (f *fixture) delete(obj *awsv1alpha1.DynamoDBTable) error {
	if obj.DeletionTimestamp == nil {
		now := metav1.Now()
		obj.DeletionTimestamp = &now
	}
	ext, err := f.p.Connect(context.Background(), obj)
	if err != nil {
		return err
	}
	return ext.Delete(context.Background(), obj)
}

// converge runs passes until the table is Ready (exists, matches, usable),
// failing on any error that is not a wait, and returns the number of passes.
func (f *fixture) converge(obj *awsv1alpha1.DynamoDBTable) int {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for n := 1; ; n++ {
		obs, err := f.pass(obj)
		if err == nil && obs.Outcome == providers.OutcomeUpToDate && obs.Available {
			return n
		}
		if err != nil {
			if !notNow(err) {
				f.t.Fatalf("pass %d: %v", n, err)
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("not converged after %d passes; pending plan %q, last error %v", n, obj.Status.PendingPlan, err)
		}
		// The reconciler would requeue; DynamoDB Local is instant, so only
		// a short pause between passes.
		time.Sleep(20 * time.Millisecond)
	}
}

// deleteFully runs Delete until it reports the table gone.
func (f *fixture) deleteFully(obj *awsv1alpha1.DynamoDBTable) {
	f.t.Helper()
	for n := 0; n < 50; n++ {
		err := f.delete(obj)
		if err == nil {
			return
		}
		if !notNow(err) {
			f.t.Fatalf("delete: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatal("delete did not finish")
}

func (f *fixture) describe(name string) *types.TableDescription {
	f.t.Helper()
	out, err := f.raw.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		f.t.Fatalf("describe %s: %v", name, err)
	}
	return out.Table
}

func (f *fixture) exists(name string) bool {
	_, err := f.raw.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil && !access.IsNotFound(err) {
		f.t.Fatalf("describe %s: %v", name, err)
	}
	return err == nil
}

// eventLog is an events.EventRecorder that keeps the reasons and notes.
type eventLog struct {
	mu      sync.Mutex
	reasons []string
	notes   []string
}

func (e *eventLog) Eventf(_ runtime.Object, _ runtime.Object, _, reason, _, note string, args ...interface{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reasons = append(e.reasons, reason)
	e.notes = append(e.notes, fmt.Sprintf(note, args...))
}

// notesOf returns the notes of the events with that reason.
func (e *eventLog) notesOf(reason string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for i, r := range e.reasons {
		if r == reason {
			out = append(out, e.notes[i])
		}
	}
	return out
}

func (e *eventLog) count(reason string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, r := range e.reasons {
		if r == reason {
			n++
		}
	}
	return n
}

func indexNames(d *types.TableDescription) []string {
	var out []string
	for _, g := range d.GlobalSecondaryIndexes {
		out = append(out, aws.ToString(g.IndexName))
	}
	return out
}

// metricValue is the value of one series of a metric the access layer
// publishes in the manager's registry, its labels given as name, value
// pairs; 0 when the series does not exist.
func metricValue(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m.GetLabel(), labels) {
				if g := m.GetGauge(); g != nil {
					return g.GetValue()
				}
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func hasLabels(have []*dto.LabelPair, want []string) bool {
	for i := 0; i+1 < len(want); i += 2 {
		if !slices.ContainsFunc(have, func(l *dto.LabelPair) bool { return l.GetName() == want[i] && l.GetValue() == want[i+1] }) {
			return false
		}
	}
	return true
}

// notNow says whether err is one of the contract's "not now" answers
// (pending, handed over, deferred), not a failure.
func notNow(err error) bool {
	_, pending := providers.AsPending(err)
	_, handed := providers.AsHanded(err)
	_, deferred := providers.AsDeferred(err)
	return pending || handed || deferred
}
