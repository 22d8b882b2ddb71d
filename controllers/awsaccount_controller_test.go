package controllers

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// feedsSaying is a feeds registry whose every feed is in one state.
type feedsSaying awsv1alpha1.ChangeEventsStatus

func (feedsSaying) Ensure(*awsv1alpha1.AWSAccount) {}
func (feedsSaying) Stop(string)                    {}
func (f feedsSaying) Status(string) (awsv1alpha1.ChangeEventsStatus, bool) {
	return awsv1alpha1.ChangeEventsStatus(f), true
}

// staleReads answers Get with an older copy of the object, as the
// manager's cache does until it sees the controller's last write.
type staleReads struct {
	client.Client
	stale *awsv1alpha1.AWSAccount
}

func (s staleReads) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	s.stale.DeepCopyInto(obj.(*awsv1alpha1.AWSAccount))
	return nil
}

// The status is computed from the feed; written as a patch against a cache
// that has not seen the last write, it must not mix the two states (the
// feed's new message beside the mode of the write the cache missed). Seen
// once in TestAPoisonMessageDoesNotBlockTheQueue: an account stuck at
// "Polling, Starting" with a healthy feed's message.
func TestAWSAccountStatusIsNeverMixedFromAStaleCache(t *testing.T) {
	s := runtime.NewScheme()
	if err := awsv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	written := &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: "team", Generation: 2},
		Status: awsv1alpha1.AWSAccountStatus{ChangeEvents: &awsv1alpha1.ChangeEventsStatus{Mode: awsv1alpha1.ChangeEventsModePolling, Reason: "Starting", Message: "starting"}}}
	server := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&awsv1alpha1.AWSAccount{}).WithObjects(written).Build()
	var current awsv1alpha1.AWSAccount
	if err := server.Get(context.Background(), client.ObjectKey{Name: "team"}, &current); err != nil {
		t.Fatal(err)
	}
	// The cache still has the status before the restart: the old queue's.
	stale := current.DeepCopy()
	stale.ResourceVersion = "1"
	stale.Status.ChangeEvents = &awsv1alpha1.ChangeEventsStatus{Mode: awsv1alpha1.ChangeEventsModeEvents, Reason: "Receiving", Message: "reading the old queue"}
	r := &awsAccountReconciler{client: staleReads{Client: server, stale: stale}, recorder: events.NewFakeRecorder(10),
		feeds: feedsSaying{Mode: awsv1alpha1.ChangeEventsModeEvents, Reason: "Receiving", Message: "reading the new queue"}}

	_, _ = r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "team"}})
	if err := server.Get(context.Background(), client.ObjectKey{Name: "team"}, &current); err != nil {
		t.Fatal(err)
	}
	got := current.Status.ChangeEvents
	if got.Message == "reading the new queue" && got.Mode != awsv1alpha1.ChangeEventsModeEvents {
		t.Fatalf("mixed status: %+v", got)
	}
}
