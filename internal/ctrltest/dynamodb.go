package ctrltest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// The DynamoDBTable integration tests run the DynamoDBTable controller in a
// manager of its own (on the test binary's API server) against AWS's
// DynamoDB Local over HTTP, behind a fault proxy that counts every call.

const (
	// DDBTimeout and DDBPoll are how long and how often the DynamoDB
	// tests wait for what Tether does.
	DDBTimeout = 60 * time.Second
	DDBPoll    = 100 * time.Millisecond
	// DDBPollInterval is long, so only tests that ask for resyncs (by
	// annotation) see them.
	DDBPollInterval = time.Hour
)

var (
	ddbOnce sync.Once
	ddb     *DynamoDB
	ddbErr  error
)

// DynamoDB is the suite's DynamoDB: a client of the API server, and the
// endpoints the suite's DynamoDBTable controller calls.
type DynamoDB struct {
	Client client.Client
	// Proxy is in front of DynamoDB Local and counts Tether's calls.
	Proxy *faultproxy.Proxy
	// Raw acts behind Tether's back, around the proxy.
	Raw *awsdynamodb.Client
	// STS is the STS model the AWSAccounts' roles are assumed from.
	STS *ststest.Server
	// Local is DynamoDB Local's own URL (the proxy is in front of it).
	Local string
}

// The suite's AWS accounts: roles in the STS model whose sessions sign with
// their own access key id, so that DynamoDB Local keeps their tables apart.
const (
	RoleA       = "arn:aws:iam::111111111111:role/tether"
	RoleB       = "arn:aws:iam::222222222222:role/tether"
	KeyA        = "suiteakey"
	KeyB        = "suitebkey"
	ExternalIDB = "team-b-external-id"
)

// StartDynamoDB starts DynamoDB Local, the proxy and the controller once for
// the test binary. DynamoDB Local dies with the test binary (see ddbtest).
func StartDynamoDB(t *testing.T) *DynamoDB {
	t.Helper()
	ddbOnce.Do(func() { ddb, ddbErr = startDynamoDB() })
	if ddbErr != nil {
		t.Fatalf("starting the DynamoDBTable controller: %v", ddbErr)
	}
	return ddb
}

func startDynamoDB() (*DynamoDB, error) {
	server, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return nil, err
	}
	AtEnd(server.Stop)
	proxy, err := faultproxy.New(server.URL, 42)
	if err != nil {
		return nil, err
	}
	proxyURL, err := proxy.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sts, err := ststest.Start(ststest.Options{Roles: []ststest.Role{
		{ARN: RoleA, Trusts: []string{ddbtest.AccessKeyID}, AccessKeyID: KeyA},
		{ARN: RoleB, Trusts: []string{ddbtest.AccessKeyID}, ExternalID: ExternalIDB, AccessKeyID: KeyB},
	}})
	if err != nil {
		return nil, err
	}
	AtEnd(sts.Close)
	// The controller finds the endpoints exactly as in production: through
	// the AWS SDK's environment variables.
	vars := ddbtest.EnvFor(proxyURL)
	vars["AWS_ENDPOINT_URL_STS"] = sts.URL
	for k, v := range vars {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	mgr, err := NewManager(TablesOfManager(false))
	if err != nil {
		return nil, err
	}
	if _, err := controllers.SetupDynamoDBTable(mgr, DDBPollInterval, dynamodb.Options{SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond}); err != nil {
		return nil, err
	}
	go func() {
		if err := mgr.Start(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "dynamodb manager:", err)
		}
	}()
	c := env.Client
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		return nil, err
	}
	// The raw client acts behind Tether's back and goes around the proxy,
	// so the proxy counts only Tether's calls.
	raw := awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(server.URL) })
	return &DynamoDB{Client: c, Proxy: proxy, Raw: raw, STS: sts, Local: server.URL}, nil
}

// LabelOwnManager marks the DynamoDBTables of a test that runs a
// DynamoDBTable controller of its own (other options): the suite's
// controller leaves them alone, and that test's sees only them.
const LabelOwnManager = "test.tether.dev/own-manager"

// TablesOfManager has a manager's cache see only the DynamoDBTables marked
// LabelOwnManager (own) or only those not marked (the suite's).
func TablesOfManager(own bool) func(*ctrl.Options) {
	return func(o *ctrl.Options) {
		op := selection.DoesNotExist
		if own {
			op = selection.Exists
		}
		req, err := labels.NewRequirement(LabelOwnManager, op, nil)
		if err != nil {
			panic(err)
		}
		o.Cache.ByObject = map[client.Object]cache.ByObject{
			&awsv1alpha1.DynamoDBTable{}: {Label: labels.NewSelector().Add(*req)},
		}
	}
}

var tableSeq int

// TableName is a fresh object and table name per call: tests share one
// endpoint.
func TableName(prefix string) string {
	tableSeq++
	return fmt.Sprintf("%s-%d-%d", prefix, tableSeq, time.Now().UnixNano()%1000000)
}

// NewTable is a DynamoDBTable with a string hash key pk, changed by
// mutate.
func NewTable(ns, name string, mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
	obj := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		},
	}
	for _, m := range mutate {
		m(obj)
	}
	return obj
}

// Create creates the object and deletes it when the test ends, so that no
// test's objects keep polling during the next test.
func (s *DynamoDB) Create(t *testing.T, obj *awsv1alpha1.DynamoDBTable) {
	t.Helper()
	if err := s.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %s: %v", obj.Name, err)
	}
	t.Cleanup(func() {
		_ = client.IgnoreNotFound(s.Client.Delete(context.Background(), obj.DeepCopy()))
	})
}

// EnsureNamespace creates the namespace unless it exists.
func (s *DynamoDB) EnsureNamespace(t *testing.T, name string) {
	t.Helper()
	err := s.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// Get reads the object.
func (s *DynamoDB) Get(g Gomega, obj *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
	out := &awsv1alpha1.DynamoDBTable{}
	g.Expect(s.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), out)).To(Succeed())
	return out
}

// Condition returns "Status/Reason" of a condition.
func Condition(obj *awsv1alpha1.DynamoDBTable, conditionType string) string {
	c := meta.FindStatusCondition(obj.Status.Conditions, conditionType)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

// EventuallyReady waits for Ready=True at the object's current generation.
func (s *DynamoDB) EventuallyReady(t *testing.T, obj *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	var out *awsv1alpha1.DynamoDBTable
	NewWithT(t).Eventually(func(g Gomega) {
		out = s.Get(g, obj)
		ExpectHealth(g, out)
		ready := meta.FindStatusCondition(out.Status.Conditions, "Ready")
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "Ready: %s %s; Synced: %s", ready.Reason, ready.Message, Condition(out, "Synced"))
		g.Expect(ready.ObservedGeneration).To(Equal(out.Generation))
	}, DDBTimeout, DDBPoll).Should(Succeed())
	return out
}

// CreateAccount creates an AWSAccount assuming role, changed by mutate,
// and deletes it when the test ends.
func (s *DynamoDB) CreateAccount(t *testing.T, name, role string, mutate func(*awsv1alpha1.AWSAccount)) *awsv1alpha1.AWSAccount {
	t.Helper()
	a := &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: awsv1alpha1.AWSAccountSpec{AssumeRole: awsv1alpha1.AssumeRole{RoleARN: role}}}
	mutate(a)
	if err := s.Client.Create(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.IgnoreNotFound(s.Client.Delete(context.Background(), a.DeepCopy())) })
	return a
}
