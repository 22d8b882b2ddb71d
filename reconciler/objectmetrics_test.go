package reconciler

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/tether-dev/tether/api"
	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// TestObjectMetrics checks the object metrics over a fixed set of objects
// (an in-memory client stands for the manager's cache).
func TestObjectMetrics(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cond := func(t, status, reason string, ago time.Duration) metav1.Condition {
		return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, LastTransitionTime: metav1.NewTime(now.Add(-ago))}
	}
	table := func(name string, annotations map[string]string, conds ...metav1.Condition) client.Object {
		o := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: annotations,
			CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))}}
		o.Status.Conditions = conds
		return o
	}
	bridge := func(name string, stream string, conds ...metav1.Condition) client.Object {
		b := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}}
		b.Status.Conditions = conds
		if stream != "" {
			b.Status.EventStream = &huev1alpha1.EventStreamStatus{State: stream}
		}
		return b
	}
	paused := map[string]string{commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}
	objs := []client.Object{
		table("ready", nil, cond("Ready", "True", "Available", time.Hour), cond("Synced", "True", "Success", time.Hour)),
		table("denied", nil, cond("Ready", "False", "AccessDenied", 20*time.Minute), cond("Synced", "False", "AccessDenied", 20*time.Minute)),
		table("not-owned", nil, cond("Ready", "False", "NotOwned", 5*time.Minute), cond("Synced", "False", "NotOwned", 5*time.Minute),
			cond("Stalled", "True", "NotOwned", 5*time.Minute)),
		table("paused", paused, cond("Ready", "False", "Creating", 3*time.Hour), cond("Synced", "False", "Paused", 3*time.Hour)),
		table("new", nil),
		bridge("home", "Polling", cond("Ready", "True", "Available", time.Hour)),
		bridge("office", "", cond("Ready", "False", "BridgeUnreachable", time.Minute)),
	}
	scheme, err := api.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()

	elected := make(chan struct{})
	c := &objectsCollector{reader: reader, scheme: scheme, elected: elected, lists: objectLists, now: func() time.Time { return now }}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Fatalf("a follower reported %d series (%v)", n, err)
	}

	close(elected)
	want := `
# HELP tether_hue_bridge_ready 1 when the HueBridge is Ready, 0 when not; reason is Ready's (BridgeUnreachable, LinkButtonNotPressed, ...).
# TYPE tether_hue_bridge_ready gauge
tether_hue_bridge_ready{bridge="home",reason="Available"} 1
tether_hue_bridge_ready{bridge="office",reason="BridgeUnreachable"} 0
# HELP tether_hue_event_stream 1 for the state of a CLIP v2 HueBridge's event stream: Connected, Connecting, or Polling (the bridge dropped it repeatedly).
# TYPE tether_hue_event_stream gauge
tether_hue_event_stream{bridge="home",state="Polling"} 1
# HELP tether_objects Objects by kind (as in the other tether_ metrics) and by the status and reason of their Ready, Synced and Stalled conditions (Stalled only while True).
# TYPE tether_objects gauge
tether_objects{condition="Ready",kind="dynamodbtable",reason="AccessDenied",status="False"} 1
tether_objects{condition="Ready",kind="dynamodbtable",reason="Available",status="True"} 1
tether_objects{condition="Ready",kind="dynamodbtable",reason="Creating",status="False"} 1
tether_objects{condition="Ready",kind="dynamodbtable",reason="NotOwned",status="False"} 1
tether_objects{condition="Stalled",kind="dynamodbtable",reason="NotOwned",status="True"} 1
tether_objects{condition="Synced",kind="dynamodbtable",reason="AccessDenied",status="False"} 1
tether_objects{condition="Synced",kind="dynamodbtable",reason="NotOwned",status="False"} 1
tether_objects{condition="Synced",kind="dynamodbtable",reason="Paused",status="False"} 1
tether_objects{condition="Synced",kind="dynamodbtable",reason="Success",status="True"} 1
tether_objects{condition="Ready",kind="huebridge",reason="Available",status="True"} 1
tether_objects{condition="Ready",kind="huebridge",reason="BridgeUnreachable",status="False"} 1
# HELP tether_objects_not_ready_longest_seconds How long the object of the kind that has been not Ready the longest has been so (since Ready last changed, or since its creation), paused objects left out; 0 when all are Ready.
# TYPE tether_objects_not_ready_longest_seconds gauge
tether_objects_not_ready_longest_seconds{kind="dynamodbtable"} 3600
tether_objects_not_ready_longest_seconds{kind="huebridge"} 60
tether_objects_not_ready_longest_seconds{kind="huegroup"} 0
tether_objects_not_ready_longest_seconds{kind="huelight"} 0
tether_objects_not_ready_longest_seconds{kind="huescene"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}
