package reconciler

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
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

// objectLists are the kinds whose objects the metrics count.
var objectLists = []func() client.ObjectList{
	func() client.ObjectList { return &awsv1alpha1.DynamoDBTableList{} },
	func() client.ObjectList { return &huev1alpha1.HueBridgeList{} },
	func() client.ObjectList { return &huev1alpha1.HueGroupList{} },
	func() client.ObjectList { return &huev1alpha1.HueLightList{} },
	func() client.ObjectList { return &huev1alpha1.HueSceneList{} },
}

// scrapeTimeout bounds the cache reads of one scrape.
const scrapeTimeout = 5 * time.Second

// RegisterObjectMetrics serves the object metrics from mgr's cache.
func RegisterObjectMetrics(mgr ctrl.Manager) error {
	return metrics.Registry.Register(&objectsCollector{
		reader: mgr.GetCache(), scheme: mgr.GetScheme(), elected: mgr.Elected(), lists: objectLists, now: time.Now,
	})
}

// objectsCollector counts objects at each scrape.
type objectsCollector struct {
	reader  client.Reader
	scheme  *runtime.Scheme
	elected <-chan struct{}
	lists   []func() client.ObjectList
	now     func() time.Time
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
	for _, newList := range c.lists {
		list := newList()
		// Read in place: a scrape only counts, and copying every object
		// of every kind at each scrape was its whole cost.
		if err := c.reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			log.FromContext(ctx).Error(err, "listing objects for the metrics")
			continue
		}
		kind := c.kindOf(list)
		var objs []Managed
		_ = meta.EachListItem(list, func(o runtime.Object) error {
			objs = append(objs, o.(Managed))
			return nil
		})
		c.collectKind(ch, kind, objs)
		if bridges, ok := list.(*huev1alpha1.HueBridgeList); ok {
			collectBridges(ch, bridges.Items)
		}
	}
}

// kindOf is the kind label of a list's items: the kind in lower case, as
// each kind's reconciler names itself.
func (c *objectsCollector) kindOf(list client.ObjectList) string {
	gvk, err := apiutil.GVKForObject(list, c.scheme)
	if err != nil {
		return "unknown"
	}
	return strings.ToLower(strings.TrimSuffix(gvk.Kind, "List"))
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

func collectBridges(ch chan<- prometheus.Metric, bridges []huev1alpha1.HueBridge) {
	for _, b := range bridges {
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
