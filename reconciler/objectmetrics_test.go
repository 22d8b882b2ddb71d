package reconciler

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/api"
	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// TestObjectMetrics checks the object metrics over a fixed set of objects
// (informers' stores stand for the manager's cache).
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
		// An index backfilling: hours, expected.
		table("backfilling", nil, cond("Ready", "False", "Updating", 2*time.Hour)),
		bridge("home", "Polling", cond("Ready", "True", "Available", time.Hour)),
		bridge("office", "", cond("Ready", "False", "BridgeUnreachable", time.Minute)),
	}
	scheme, err := api.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	elected := make(chan struct{})
	c := &objectsCollector{informers: informersOf(t, objs...), scheme: scheme, elected: elected, kinds: objectKinds, now: func() time.Time { return now }}
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
# HELP tether_objects Objects by kind (as in the other tether_ metrics), namespace (empty for cluster-wide kinds) and the status and reason of their Ready, Synced and Stalled conditions (Stalled only while True).
# TYPE tether_objects gauge
tether_objects{condition="Ready",kind="dynamodbtable",namespace="default",reason="AccessDenied",status="False"} 1
tether_objects{condition="Ready",kind="dynamodbtable",namespace="default",reason="Available",status="True"} 1
tether_objects{condition="Ready",kind="dynamodbtable",namespace="default",reason="Creating",status="False"} 1
tether_objects{condition="Ready",kind="dynamodbtable",namespace="default",reason="NotOwned",status="False"} 1
tether_objects{condition="Ready",kind="dynamodbtable",namespace="default",reason="Updating",status="False"} 1
tether_objects{condition="Stalled",kind="dynamodbtable",namespace="default",reason="NotOwned",status="True"} 1
tether_objects{condition="Synced",kind="dynamodbtable",namespace="default",reason="AccessDenied",status="False"} 1
tether_objects{condition="Synced",kind="dynamodbtable",namespace="default",reason="NotOwned",status="False"} 1
tether_objects{condition="Synced",kind="dynamodbtable",namespace="default",reason="Paused",status="False"} 1
tether_objects{condition="Synced",kind="dynamodbtable",namespace="default",reason="Success",status="True"} 1
tether_objects{condition="Ready",kind="huebridge",namespace="",reason="Available",status="True"} 1
tether_objects{condition="Ready",kind="huebridge",namespace="",reason="BridgeUnreachable",status="False"} 1
# HELP tether_objects_not_ready_longest_seconds How long the object of the kind and namespace that has been not Ready the longest has been so (since Ready last changed, or since its creation), paused objects left out; 0 when all are Ready. expected="true" counts only the states that are expected to last (a DynamoDBTable Creating or Updating: an index backfill or a restore takes hours; a bulb switched off at the wall), expected="false" every other.
# TYPE tether_objects_not_ready_longest_seconds gauge
tether_objects_not_ready_longest_seconds{expected="false",kind="dynamodbtable",namespace="default"} 3600
tether_objects_not_ready_longest_seconds{expected="true",kind="dynamodbtable",namespace="default"} 7200
tether_objects_not_ready_longest_seconds{expected="false",kind="huebridge",namespace=""} 60
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

// TestObjectMetricsSeriesAreBounded: the per-object metrics grow with the
// namespaces that hold objects and the reasons objects are in, never with
// the objects: 10,000 objects in 100 namespaces give no more series than
// 1,000 in the same namespaces and states, and fewer than a fixed bound per
// namespace.
func TestObjectMetricsSeriesAreBounded(t *testing.T) {
	scheme, err := api.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	states := [][]metav1.Condition{
		{{Type: "Ready", Status: "True", Reason: "Available"}, {Type: "Synced", Status: "True", Reason: "Success"}},
		{{Type: "Ready", Status: "False", Reason: "Updating"}, {Type: "Synced", Status: "True", Reason: "Success"}},
		{{Type: "Ready", Status: "False", Reason: "Throttled"}, {Type: "Synced", Status: "False", Reason: "Throttled"}},
		{{Type: "Ready", Status: "False", Reason: "InvalidSpec"}, {Type: "Synced", Status: "False", Reason: "InvalidSpec"},
			{Type: "Stalled", Status: "True", Reason: "InvalidSpec"}},
	}
	const namespaces = 100
	series := func(objects int) int {
		objs := make([]client.Object, 0, objects)
		for i := range objects {
			ns := fmt.Sprintf("team-%03d", i%namespaces)
			conds := states[(i/namespaces)%len(states)]
			for j := range conds {
				conds[j].LastTransitionTime = metav1.NewTime(now.Add(-time.Hour))
			}
			var o client.Object
			if i%2 == 0 {
				table := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("t-%d", i)}}
				table.Status.Conditions = conds
				o = table
			} else {
				light := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("l-%d", i)}}
				light.Status.Conditions = conds
				o = light
			}
			objs = append(objs, o)
		}
		elected := make(chan struct{})
		close(elected)
		reg := prometheus.NewPedanticRegistry()
		if err := reg.Register(&objectsCollector{informers: informersOf(t, objs...), scheme: scheme, elected: elected, kinds: objectKinds,
			now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
		n, err := testutil.GatherAndCount(reg)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	small, large := series(1000), series(10000)
	if large != small {
		t.Errorf("10,000 objects give %d series, 1,000 in the same namespaces and states %d: the series follow the objects", large, small)
	}
	// Per namespace and kind: at most 3 conditions x 2 statuses x the
	// reasons seen, and 2 longest-not-Ready series.
	if bound := namespaces * 2 * (len(states)*3 + 2); large > bound {
		t.Errorf("10,000 objects in %d namespaces give %d series, more than %d", namespaces, large, bound)
	}
	t.Logf("10,000 objects in %d namespaces: %d series", namespaces, large)
}

// cachedInformers stands for the manager's cache: a client-go informer of
// each kind, the kind of informer the cache keeps, never started; its store
// holds the objects, as a started one holds what it watched.
type cachedInformers map[reflect.Type]cache.Informer

func informersOf(t *testing.T, objs ...client.Object) cachedInformers {
	t.Helper()
	out := cachedInformers{}
	for _, newObject := range objectKinds {
		obj := newObject()
		out[reflect.TypeOf(obj)] = toolscache.NewSharedIndexInformer(nil, obj, 0, toolscache.Indexers{})
	}
	for _, obj := range objs {
		if err := out[reflect.TypeOf(obj)].(cachedStore).GetStore().Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func (c cachedInformers) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return c[reflect.TypeOf(obj)], nil
}

// noStore is an informer that keeps no store of its own.
type noStore struct{ cache.Informer }

// TestObjectMetricsReadTheCacheInPlace: a scrape reads the objects the
// informers hold, the same ones and not copies (a copy of every object at
// every scrape was the manager's largest burst of memory in the bench); an
// informer without a store to read is an error, and no series.
func TestObjectMetricsReadTheCacheInPlace(t *testing.T) {
	scheme, err := api.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	held := []*awsv1alpha1.DynamoDBTable{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "orders"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "carts"}},
	}
	informers := informersOf(t, held[0], held[1])
	c := &objectsCollector{informers: informers, scheme: scheme, kinds: objectKinds, now: time.Now}
	objs, err := c.objectsOf(context.Background(), &awsv1alpha1.DynamoDBTable{})
	if err != nil || len(objs) != len(held) {
		t.Fatalf("read %d objects (%v), want the %d held", len(objs), err, len(held))
	}
	for _, obj := range objs {
		if !slices.ContainsFunc(held, func(h *awsv1alpha1.DynamoDBTable) bool { return obj == Managed(h) }) {
			t.Errorf("read %s/%s at %p, not an object the informer holds: a copy", obj.GetNamespace(), obj.GetName(), obj)
		}
	}

	informers[reflect.TypeOf(&awsv1alpha1.DynamoDBTable{})] = noStore{}
	if objs, err := c.objectsOf(context.Background(), &awsv1alpha1.DynamoDBTable{}); err == nil {
		t.Fatalf("an informer without a store read as %d objects, want an error", len(objs))
	}
}
