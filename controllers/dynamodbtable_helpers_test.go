package controllers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// The DynamoDBTable integration tests run the DynamoDBTable controller in a
// manager of its own (on the package's API server) against AWS's DynamoDB
// Local over HTTP, behind a fault proxy that counts every call.

const (
	ddbTimeout = 60 * time.Second
	ddbPoll    = 100 * time.Millisecond
	// ddbTestPollInterval is long, so only tests that ask for resyncs (by
	// annotation) see them.
	ddbTestPollInterval = time.Hour
)

var (
	ddbOnce sync.Once
	ddb     *ddbSuite
	ddbErr  error
)

type ddbSuite struct {
	client client.Client
	proxy  *faultproxy.Proxy
	raw    *awsdynamodb.Client
	// sts is the STS model the AWSAccounts' roles are assumed from.
	sts *ststest.Server
	// local is DynamoDB Local's own URL (the proxy is in front of it).
	local string
}

// The suite's AWS accounts: roles in the STS model whose sessions sign with
// their own access key id, so that DynamoDB Local keeps their tables apart.
const (
	suiteRoleA = "arn:aws:iam::111111111111:role/tether"
	suiteRoleB = "arn:aws:iam::222222222222:role/tether"
	suiteKeyA  = "suiteakey"
	suiteKeyB  = "suitebkey"
	suiteExtB  = "team-b-external-id"
)

// startDynamoDB starts DynamoDB Local, the proxy and the controller once for
// the package. DynamoDB Local dies with the test binary (see ddbtest).
func startDynamoDB(t *testing.T) *ddbSuite {
	t.Helper()
	ddbOnce.Do(func() { ddb, ddbErr = startDynamoDBSuite() })
	if ddbErr != nil {
		t.Fatalf("starting the DynamoDBTable controller: %v", ddbErr)
	}
	return ddb
}

func startDynamoDBSuite() (*ddbSuite, error) {
	server, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return nil, err
	}
	atSuiteEnd = append(atSuiteEnd, server.Stop)
	proxy, err := faultproxy.New(server.URL, 42)
	if err != nil {
		return nil, err
	}
	proxyURL, err := proxy.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sts, err := ststest.Start(ststest.Options{Roles: []ststest.Role{
		{ARN: suiteRoleA, Trusts: []string{"tethertest"}, AccessKeyID: suiteKeyA},
		{ARN: suiteRoleB, Trusts: []string{"tethertest"}, ExternalID: suiteExtB, AccessKeyID: suiteKeyB},
	}})
	if err != nil {
		return nil, err
	}
	atSuiteEnd = append(atSuiteEnd, sts.Close)
	// The controller finds the endpoints exactly as in production: through
	// the AWS SDK's environment variables.
	vars := ddbtest.EnvFor(proxyURL)
	vars["AWS_ENDPOINT_URL_STS"] = sts.URL
	for k, v := range vars {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	mgr, err := newManager(tablesOfManager(false))
	if err != nil {
		return nil, err
	}
	if _, err := SetupDynamoDBTable(mgr, ddbTestPollInterval, dynamodb.Options{SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond}); err != nil {
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
	return &ddbSuite{client: c, proxy: proxy, raw: raw, sts: sts, local: server.URL}, nil
}

// labelOwnManager marks the DynamoDBTables of a test that runs a
// DynamoDBTable controller of its own (other options): the suite's
// controller leaves them alone, and that test's sees only them.
const labelOwnManager = "test.tether.dev/own-manager"

// tablesOfManager has a manager's cache see only the DynamoDBTables marked
// labelOwnManager (own) or only those not marked (the suite's).
func tablesOfManager(own bool) func(*ctrl.Options) {
	return func(o *ctrl.Options) {
		op := selection.DoesNotExist
		if own {
			op = selection.Exists
		}
		req, err := labels.NewRequirement(labelOwnManager, op, nil)
		if err != nil {
			panic(err)
		}
		o.Cache.ByObject = map[client.Object]cache.ByObject{
			&awsv1alpha1.DynamoDBTable{}: {Label: labels.NewSelector().Add(*req)},
		}
	}
}

var ddbSeq int

// ddbName is a fresh object and table name per call: tests share one
// endpoint.
func ddbName(prefix string) string {
	ddbSeq++
	return fmt.Sprintf("%s-%d-%d", prefix, ddbSeq, time.Now().UnixNano()%1000000)
}

func newDDBTable(ns, name string, mutate ...func(*awsv1alpha1.DynamoDBTable)) *awsv1alpha1.DynamoDBTable {
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

func ddbGSI(name, attr string, capacity *awsv1alpha1.ProvisionedThroughput) func(*awsv1alpha1.DynamoDBTable) {
	return func(o *awsv1alpha1.DynamoDBTable) {
		found := false
		for _, d := range o.Spec.AttributeDefinitions {
			found = found || d.AttributeName == attr
		}
		if !found {
			o.Spec.AttributeDefinitions = append(o.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: attr, AttributeType: "S"})
		}
		o.Spec.GlobalSecondaryIndexes = append(o.Spec.GlobalSecondaryIndexes, awsv1alpha1.GlobalSecondaryIndex{
			IndexName: name, KeySchema: awsv1alpha1.IndexKeySchema{{AttributeName: attr, KeyType: "HASH"}}, ProvisionedThroughput: capacity})
	}
}

func ddbCapacity(r, w int64) *awsv1alpha1.ProvisionedThroughput {
	return &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: r, WriteCapacityUnits: w}
}

// create creates the object and deletes it when the test ends, so that no
// test's objects keep polling during the next test.
func (s *ddbSuite) create(t *testing.T, obj *awsv1alpha1.DynamoDBTable) {
	t.Helper()
	if err := s.client.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %s: %v", obj.Name, err)
	}
	t.Cleanup(func() {
		_ = client.IgnoreNotFound(s.client.Delete(context.Background(), obj.DeepCopy()))
	})
}

func (s *ddbSuite) ensureNamespace(t *testing.T, name string) {
	t.Helper()
	err := s.client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func (s *ddbSuite) get(g Gomega, obj *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
	out := &awsv1alpha1.DynamoDBTable{}
	g.Expect(s.client.Get(context.Background(), client.ObjectKeyFromObject(obj), out)).To(Succeed())
	return out
}

// update changes the spec with retries on conflicts (the controller writes
// the status concurrently).
func (s *ddbSuite) update(t *testing.T, obj *awsv1alpha1.DynamoDBTable, change func(*awsv1alpha1.DynamoDBTable)) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		cur := s.get(g, obj)
		change(cur)
		g.Expect(s.client.Update(context.Background(), cur)).To(Succeed())
	}, ddbTimeout, ddbPoll).Should(Succeed())
}

// condition returns "Status/Reason" of a condition.
func ddbCondition(obj *awsv1alpha1.DynamoDBTable, conditionType string) string {
	c := meta.FindStatusCondition(obj.Status.Conditions, conditionType)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

// eventuallyReady waits for Ready=True at the object's current generation.
func (s *ddbSuite) eventuallyReady(t *testing.T, obj *awsv1alpha1.DynamoDBTable) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	var out *awsv1alpha1.DynamoDBTable
	NewWithT(t).Eventually(func(g Gomega) {
		out = s.get(g, obj)
		expectHealth(g, out)
		ready := meta.FindStatusCondition(out.Status.Conditions, "Ready")
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "Ready: %s %s; Synced: %s", ready.Reason, ready.Message, ddbCondition(out, "Synced"))
		g.Expect(ready.ObservedGeneration).To(Equal(out.Generation))
	}, ddbTimeout, ddbPoll).Should(Succeed())
	return out
}

// eventuallySynced waits for Synced to show status/reason and returns the
// object.
func (s *ddbSuite) eventuallySynced(t *testing.T, obj *awsv1alpha1.DynamoDBTable, want string) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	var out *awsv1alpha1.DynamoDBTable
	NewWithT(t).Eventually(func(g Gomega) string {
		out = s.get(g, obj)
		expectHealth(g, out)
		return ddbCondition(out, "Synced")
	}, ddbTimeout, ddbPoll).Should(Equal(want))
	return out
}

func (s *ddbSuite) describe(g Gomega, table string) *awsdynamodb.DescribeTableOutput {
	out, err := s.raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
	return out
}

func (s *ddbSuite) tableExists(t *testing.T, table string) bool {
	t.Helper()
	_, err := s.raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil && !isResourceNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func isResourceNotFound(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ResourceNotFoundException"
}

func (s *ddbSuite) eventuallyGone(t *testing.T, obj *awsv1alpha1.DynamoDBTable) {
	t.Helper()
	NewWithT(t).Eventually(func() bool {
		err := s.client.Get(context.Background(), client.ObjectKeyFromObject(obj), &awsv1alpha1.DynamoDBTable{})
		return apierrors.IsNotFound(err)
	}, ddbTimeout, ddbPoll).Should(BeTrue(), "object %s still exists", obj.Name)
}

func (s *ddbSuite) eventReasons(g Gomega, obj *awsv1alpha1.DynamoDBTable) []string {
	list := &eventsv1.EventList{}
	g.Expect(s.client.List(context.Background(), list, client.InNamespace(obj.Namespace))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Name == obj.Name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

func indexNamesOf(out *awsdynamodb.DescribeTableOutput) []string {
	var names []string
	for _, g := range out.Table.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(g.IndexName))
	}
	return names
}
