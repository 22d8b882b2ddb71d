package awstest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/testenv"
)

// The package's tests share one real API server of their own
// (internal/ctrltest), so that go test runs them beside controllers/huetest's;
// the DynamoDB suite starts with the first test that asks for it.
var env *testenv.Env

func TestMain(m *testing.M) { os.Exit(ctrltest.Main(m, &env)) }

// The DynamoDBTable integration tests run the suite's DynamoDBTable
// controller (ctrltest.StartDynamoDB) against DynamoDB Local; ddbSuite
// adds what only this package's tests ask of it.
type ddbSuite struct{ *ctrltest.DynamoDB }

// startDynamoDB starts the suite's DynamoDB once for the package.
func startDynamoDB(t *testing.T) *ddbSuite {
	t.Helper()
	return &ddbSuite{ctrltest.StartDynamoDB(t)}
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

// update changes the spec with retries on conflicts (the controller writes
// the status concurrently).
func (s *ddbSuite) update(t *testing.T, obj *awsv1alpha1.DynamoDBTable, change func(*awsv1alpha1.DynamoDBTable)) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		cur := s.Get(g, obj)
		change(cur)
		g.Expect(s.Client.Update(context.Background(), cur)).To(Succeed())
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Succeed())
}

// eventuallySynced waits for Synced to show status/reason and returns the
// object.
func (s *ddbSuite) eventuallySynced(t *testing.T, obj *awsv1alpha1.DynamoDBTable, want string) *awsv1alpha1.DynamoDBTable {
	t.Helper()
	var out *awsv1alpha1.DynamoDBTable
	NewWithT(t).Eventually(func(g Gomega) string {
		out = s.Get(g, obj)
		ctrltest.ExpectHealth(g, out)
		return ctrltest.Condition(out, "Synced")
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(Equal(want))
	return out
}

func (s *ddbSuite) describe(g Gomega, table string) *awsdynamodb.DescribeTableOutput {
	out, err := s.Raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(table)})
	g.Expect(err).NotTo(HaveOccurred())
	return out
}

func (s *ddbSuite) tableExists(t *testing.T, table string) bool {
	t.Helper()
	_, err := s.Raw.DescribeTable(context.Background(), &awsdynamodb.DescribeTableInput{TableName: aws.String(table)})
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
		err := s.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), &awsv1alpha1.DynamoDBTable{})
		return apierrors.IsNotFound(err)
	}, ctrltest.DDBTimeout, ctrltest.DDBPoll).Should(BeTrue(), "object %s still exists", obj.Name)
}

func (s *ddbSuite) eventReasons(g Gomega, obj *awsv1alpha1.DynamoDBTable) []string {
	list := &eventsv1.EventList{}
	g.Expect(s.Client.List(context.Background(), list, client.InNamespace(obj.Namespace))).To(Succeed())
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
