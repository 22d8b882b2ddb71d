package reconciler

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// What the objects' status says, as metrics: computed at each scrape from
// the manager's cache (no API call), by the leader only, so that alerts and
// dashboards see one count however many replicas run.
//
// The per-object metrics carry the object's namespace ("" for the
// cluster-wide kinds), so that an alert reaches the team that owns the
// namespace; never the object's name, so the series grow with the
// namespaces that hold Tether objects and the reasons Tether has (a fixed
// set), not with the objects (TestObjectMetricsSeriesAreBounded).
var (
	objectsDesc = prometheus.NewDesc("tether_objects",
		"Objects by kind (as in the other tether_ metrics), namespace (empty for cluster-wide kinds) and the status and reason of their Ready, Synced and Stalled conditions (Stalled only while True).",
		[]string{"kind", "namespace", "condition", "status", "reason"}, nil)
	notReadyDesc = prometheus.NewDesc("tether_objects_not_ready_longest_seconds",
		"How long the object of the kind and namespace that has been not Ready the longest has been so (since Ready last changed, or since its creation), paused objects left out; 0 when all are Ready. "+
			"expected=\"true\" counts only the states that are expected to last (a DynamoDBTable Creating or Updating: an index backfill or a restore takes hours; a bulb switched off at the wall), expected=\"false\" every other.",
		[]string{"kind", "namespace", "expected"}, nil)
	bridgeReadyDesc = prometheus.NewDesc("tether_hue_bridge_ready",
		"1 when the HueBridge is Ready, 0 when not; reason is Ready's (BridgeUnreachable, LinkButtonNotPressed, ...).",
		[]string{"bridge", "reason"}, nil)
	eventStreamDesc = prometheus.NewDesc("tether_hue_event_stream",
		"1 for the state of a CLIP v2 HueBridge's event stream: Connected, Connecting, or Polling (the bridge dropped it repeatedly).",
		[]string{"bridge", "state"}, nil)
)

// objectKinds are the kinds whose objects the metrics count.
var objectKinds = []func() client.Object{
	func() client.Object { return &awsv1alpha1.DynamoDBTable{} },
	func() client.Object { return &huev1alpha1.HueBridge{} },
	func() client.Object { return &huev1alpha1.HueGroup{} },
	func() client.Object { return &huev1alpha1.HueLight{} },
	func() client.Object { return &huev1alpha1.HueScene{} },
}

// scrapeTimeout bounds the cache reads of one scrape.
const scrapeTimeout = 5 * time.Second

// RegisterObjectMetrics serves the object metrics from mgr's cache.
func RegisterObjectMetrics(mgr ctrl.Manager) error {
	return metrics.Registry.Register(&objectsCollector{
		informers: mgr.GetCache(), scheme: mgr.GetScheme(), elected: mgr.Elected(), kinds: objectKinds, now: time.Now,
	})
}

// kindInformers is what the collector reads of the manager's cache: the
// informer of each kind.
type kindInformers interface {
	GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error)
}

// objectsCollector counts objects at each scrape.
type objectsCollector struct {
	informers kindInformers
	scheme    *runtime.Scheme
	elected   <-chan struct{}
	kinds     []func() client.Object
	now       func() time.Time
}

func (c *objectsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- objectsDesc
	ch <- notReadyDesc
	ch <- bridgeReadyDesc
	ch <- eventStreamDesc
}

func (c *objectsCollector) Collect(ch chan<- prometheus.Metric) {
	select {
	case <-c.elected:
	default:
		return // a follower's cache holds the same objects: the leader reports them
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	for _, newObject := range c.kinds {
		obj := newObject()
		objs, err := c.objectsOf(ctx, obj)
		if err != nil {
			log.FromContext(ctx).Error(err, "reading objects for the metrics")
			continue
		}
		c.collectKind(ch, c.kindOf(obj), objs)
		if _, ok := obj.(*huev1alpha1.HueBridge); ok {
			collectBridges(ch, objs)
		}
	}
}

// cachedStore is the informer the manager's cache gives for a kind
// (client-go's SharedIndexInformer), whose store holds the objects.
type cachedStore interface {
	GetStore() toolscache.Store
}

// objectsOf returns the objects of obj's kind as the cache holds them, read
// in place: a scrape only counts. Listing them through the cache, even
// without a deep copy, copied each into a new list (1.2 KB a DynamoDBTable,
// 0.5 KB a HueLight): about 2 MB at every scrape with 1,000 tables and
// 1,200 lights, the largest burst of memory the manager had in the bench's
// figure 4.
func (c *objectsCollector) objectsOf(ctx context.Context, obj client.Object) ([]Managed, error) {
	informer, err := c.informers.GetInformer(ctx, obj)
	if err != nil {
		return nil, err
	}
	store, ok := informer.(cachedStore)
	if !ok {
		return nil, fmt.Errorf("the cache's informer of %T (a %T) has no store to read", obj, informer)
	}
	items := store.GetStore().List()
	objs := make([]Managed, 0, len(items))
	for _, item := range items {
		if m, ok := item.(Managed); ok {
			objs = append(objs, m)
		}
	}
	return objs, nil
}

// kindOf is the kind label of an object: its kind in lower case, as each
// kind's reconciler names itself.
func (c *objectsCollector) kindOf(obj client.Object) string {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return "unknown"
	}
	return strings.ToLower(gvk.Kind)
}

// conditionKey is one series of tether_objects.
type conditionKey struct{ namespace, condition, status, reason string }

// longestKey is one series of tether_objects_not_ready_longest_seconds.
type longestKey struct {
	namespace string
	expected  bool
}

// expectedLongStates are the Ready reasons, by kind, of states that last
// by their nature and end without anyone acting, or only by a hand at a
// wall switch: alerting on them would page for nothing.
var expectedLongStates = map[string]map[string]bool{
	// A table with indexes or replicas, a restore, a new index's backfill:
	// hours on a large table (docs/troubleshooting.md, Updating).
	"dynamodbtable": {"Creating": true, "Updating": true},
	// A bulb switched off at the wall is unreachable until switched on.
	"huelight": {"LightUnreachable": true, "DeviceOff": true},
	"huegroup": {"LightUnreachable": true, "DeviceOff": true},
}

func (c *objectsCollector) collectKind(ch chan<- prometheus.Metric, kind string, objs []Managed) {
	counts := map[conditionKey]int{}
	longest := map[longestKey]time.Duration{}
	for _, obj := range objs {
		ns := obj.GetNamespace()
		conds := obj.Managed().Conditions
		for _, t := range []string{commonv1alpha1.Ready, commonv1alpha1.Synced, commonv1alpha1.Stalled} {
			if cond := meta.FindStatusCondition(conds, t); cond != nil {
				counts[conditionKey{ns, t, string(cond.Status), cond.Reason}]++
			}
		}
		// Every namespace with objects of the kind has its unexpected
		// series, 0 while all are Ready, so that an alert's expression
		// has a value to compare.
		unexpected := longestKey{ns, false}
		longest[unexpected] = max(longest[unexpected], 0)
		if since, notReady := notReadySince(obj); notReady && !isPaused(obj) {
			k := longestKey{ns, false}
			if ready := meta.FindStatusCondition(conds, commonv1alpha1.Ready); ready != nil && expectedLongStates[kind][ready.Reason] {
				k.expected = true
			}
			longest[k] = max(longest[k], c.now().Sub(since))
		}
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(n), kind, k.namespace, k.condition, k.status, k.reason)
	}
	for k, d := range longest {
		ch <- prometheus.MustNewConstMetric(notReadyDesc, prometheus.GaugeValue, d.Seconds(), kind, k.namespace, strconv.FormatBool(k.expected))
	}
}

// notReadySince is when obj stopped being Ready (or was created, if it
// never was).
func notReadySince(obj Managed) (time.Time, bool) {
	ready := meta.FindStatusCondition(obj.Managed().Conditions, commonv1alpha1.Ready)
	if ready == nil {
		return obj.GetCreationTimestamp().Time, true
	}
	if ready.Status == metav1.ConditionTrue {
		return time.Time{}, false
	}
	return ready.LastTransitionTime.Time, true
}

func collectBridges(ch chan<- prometheus.Metric, objs []Managed) {
	for _, obj := range objs {
		b, ok := obj.(*huev1alpha1.HueBridge)
		if !ok {
			continue
		}
		value, reason := 0.0, ""
		if ready := meta.FindStatusCondition(b.Status.Conditions, commonv1alpha1.Ready); ready != nil {
			reason = ready.Reason
			if ready.Status == metav1.ConditionTrue {
				value = 1
			}
		}
		ch <- prometheus.MustNewConstMetric(bridgeReadyDesc, prometheus.GaugeValue, value, b.Name, reason)
		if b.Status.EventStream != nil && b.Status.EventStream.State != "" {
			ch <- prometheus.MustNewConstMetric(eventStreamDesc, prometheus.GaugeValue, 1, b.Name, b.Status.EventStream.State)
		}
	}
}
