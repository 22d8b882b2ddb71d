package awstest

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/providers/dynamodb"
)

// TestDynamoDBTableDefaultTagsLeftOutAreReported: on an endpoint without
// tagging (DynamoDB Local), the tags a table would get are left out whether
// they come from its spec or only from the manager's default tags
// (--dynamodb-default-tag), and the status says so either way.
func TestDynamoDBTableDefaultTagsLeftOutAreReported(t *testing.T) {
	s := startDynamoDB(t)
	g := NewWithT(t)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	mgr, err := ctrltest.NewManager(ctrltest.TablesOfManager(true))
	g.Expect(err).NotTo(HaveOccurred())
	_, err = controllers.SetupDynamoDBTable(mgr, ctrltest.DDBPollInterval, dynamodb.Options{
		DefaultTags:           map[string]string{"team": "{{.Namespace}}"},
		SecondaryReadInterval: -1, TransitionPoll: 500 * time.Millisecond})
	g.Expect(err).NotTo(HaveOccurred())
	go func() { _ = mgr.Start(ctx) }()

	own := func(o *awsv1alpha1.DynamoDBTable) {
		o.Labels = map[string]string{ctrltest.LabelOwnManager: "default-tags"}
	}
	defaultsOnly := ctrltest.NewTable("default", ctrltest.TableName("default-tags-only"), own)
	withSpecTags := ctrltest.NewTable("default", ctrltest.TableName("spec-tags"), own, func(o *awsv1alpha1.DynamoDBTable) {
		o.Spec.Tags = map[string]string{"cost-center": "42"}
	})
	for _, obj := range []*awsv1alpha1.DynamoDBTable{defaultsOnly, withSpecTags} {
		s.Create(t, obj)
		ready := s.EventuallyReady(t, obj)
		g.Expect(ready.Status.UnsupportedFeatures).To(Equal([]string{"tags"}), obj.Name)
		g.Expect(conditionMessage(ready, "Ready")).To(ContainSubstring("tags"), obj.Name)
		g.Eventually(func(g Gomega) []string { return s.eventReasons(g, obj) }, ctrltest.DDBTimeout, ctrltest.DDBPoll).
			Should(ContainElement("FeatureUnsupported"), obj.Name)
	}
	g.Expect(conditionMessage(s.Get(g, defaultsOnly), "Ready")).To(ContainSubstring("default tags"))
}
