package demo

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/reconciler"
)

// clusterView is what the page shows of the cluster: Tether's objects and
// their events, read through informers (one watch per kind, as the operator
// itself reads them), never through the browser. It is read-only: it lists
// and watches, and never writes.
type clusterView struct {
	cache    cache.Cache
	timeline *timeline
	tables   *tableWatch
	plans    *plans
	changed  *notifier

	mu sync.Mutex
	// subjects names each object seen, by objectRef, for its events that
	// arrive after it is gone (a deletion's).
	subjects map[string]string
}

// syncTimeout bounds the page's first list of the cluster.
const syncTimeout = time.Minute

// watchedKinds are the Tether kinds the page shows.
func watchedKinds() []client.Object {
	return []client.Object{&huev1alpha1.HueBridge{}, &huev1alpha1.HueLight{}, &huev1alpha1.HueGroup{},
		&huev1alpha1.HueScene{}, &awsv1alpha1.DynamoDBTable{}}
}

// startClusterView starts the informers and waits until they have listed
// everything once. They stop when ctx ends.
func startClusterView(ctx context.Context, cfg *rest.Config, s *runtime.Scheme, tl *timeline, changed *notifier) (*clusterView, error) {
	c, err := cache.New(cfg, cache.Options{Scheme: s})
	if err != nil {
		return nil, err
	}
	v := &clusterView{cache: c, timeline: tl, changed: changed, plans: newPlans(), subjects: map[string]string{}}
	v.tables = newTableWatch(v, changed)
	for _, obj := range watchedKinds() {
		inf, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    v.objectAdded,
			UpdateFunc: v.objectUpdated,
			DeleteFunc: v.objectDeleted,
		}); err != nil {
			return nil, err
		}
	}
	inf, err := c.GetInformer(ctx, &eventsv1.Event{})
	if err != nil {
		return nil, err
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { v.eventSeen(nil, o) },
		UpdateFunc: v.eventSeen,
	}); err != nil {
		return nil, err
	}
	go func() { _ = c.Start(ctx) }()
	// A list the page's identity may not make is retried for ever: bound
	// the wait, so the demo says so instead of hanging.
	syncCtx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	if !c.WaitForCacheSync(syncCtx) {
		return nil, fmt.Errorf("the page's informers did not sync in %s (may %s list and watch Tether's kinds and events?)", syncTimeout, PageUser)
	}
	go v.tables.run(ctx)
	return v, nil
}

// managed is a Tether object: its status has Ready and Synced.
type managed interface {
	client.Object
	Managed() *commonv1alpha1.ManagedStatus
}

func (v *clusterView) objectAdded(obj any) {
	defer v.changed.notify()
	v.remember(obj)
}

func (v *clusterView) objectDeleted(obj any) {
	defer v.changed.notify()
	if t, ok := obj.(*awsv1alpha1.DynamoDBTable); ok {
		v.plans.gone(client.ObjectKeyFromObject(t))
	}
}

// remember keeps an object's subject, and a table's plan.
func (v *clusterView) remember(obj any) {
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	v.mu.Lock()
	v.subjects[objectRef(kindOf(o), o.GetNamespace(), o.GetName())] = subjectOf(o)
	v.mu.Unlock()
	if t, ok := obj.(*awsv1alpha1.DynamoDBTable); ok {
		v.plans.seen(t)
	}
}

// objectUpdated puts on the timeline each write the controller made to
// the outside world, as the object's status records it ("sent: ..."), and
// a scene a HueGroup now shows; a table's pending plan is ticked off in its
// checklist.
//
// A table's writes are read from its status, not from their Updated and
// DriftCorrected events: the events API folds repeats of a reason into one
// series that keeps the first note and is flushed every 30 minutes, so the
// second change of a table would read as the first, and the third would
// not show at all. A HueLight or HueGroup writes its status once per
// change, when the bridge shows it, with nothing of the write in it: its
// writes come from the events (eventSeen), a repeat worded as one.
func (v *clusterView) objectUpdated(oldObj, newObj any) {
	defer v.changed.notify()
	v.remember(newObj)
	was, ok1 := oldObj.(managed)
	now, ok2 := newObj.(managed)
	if !ok1 || !ok2 {
		return
	}
	if _, table := newObj.(*awsv1alpha1.DynamoDBTable); table {
		if e, ok := writeEntry(was, now, subjectOf(now)); ok {
			v.timeline.add(e)
		}
	}
	oldG, ok1 := oldObj.(*huev1alpha1.HueGroup)
	newG, ok2 := newObj.(*huev1alpha1.HueGroup)
	if ok1 && ok2 {
		if e, ok := sceneEntry(oldG, newG); ok {
			v.timeline.add(e)
		}
	}
}

// eventSeen adds an event of a Tether object to the timeline: a new one,
// or one more of a series. A table's Updated and DriftCorrected are left to
// objectUpdated (see there).
func (v *clusterView) eventSeen(oldObj, newObj any) {
	ev, ok := newObj.(*eventsv1.Event)
	if !ok || !isTetherKind(ev.Regarding.APIVersion) || (writeReasons[ev.Reason] && ev.Regarding.Kind == kindTable) {
		return
	}
	count := seriesCount(ev)
	if old, ok := oldObj.(*eventsv1.Event); ok && seriesCount(old) >= count {
		return // a rewrite of the same occurrence
	}
	if writeReasons[ev.Reason] && count == 1 {
		v.timeline.add(writeEventEntry(ev, v.subjectOfEvent(ev)))
		return
	}
	v.timeline.add(eventEntry(ev, count, v.subjectOfEvent(ev)))
}

// kindTable is the kind whose writes the timeline takes from the status.
const kindTable = "DynamoDBTable"

// writeReasons are the events of writes, which the timeline takes from
// the status.
var writeReasons = map[string]bool{reconciler.ReasonUpdated: true, reconciler.ReasonDriftCorrected: true}

func seriesCount(ev *eventsv1.Event) int32 {
	if ev.Series == nil {
		return 1
	}
	return ev.Series.Count
}

func isTetherKind(apiVersion string) bool {
	return apiVersion == huev1alpha1.GroupVersion.String() || apiVersion == awsv1alpha1.GroupVersion.String()
}

// subjectOfEvent is what an event is about in the audience's words: as the
// object says it, or said it before it went.
func (v *clusterView) subjectOfEvent(ev *eventsv1.Event) string {
	r := ev.Regarding
	for _, obj := range watchedKinds() {
		if kindOf(obj) != r.Kind {
			continue
		}
		if v.cache.Get(context.Background(), client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, obj) == nil {
			return subjectOf(obj)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.subjects[objectRef(r.Kind, r.Namespace, r.Name)]; ok {
		return s
	}
	return r.Name
}

// subjectOf names what an object drives: the bulb, the room, the scene,
// the table, as the bridge or DynamoDB names it.
func subjectOf(obj client.Object) string {
	switch o := obj.(type) {
	case *huev1alpha1.HueLight:
		if o.Spec.Name != "" {
			return o.Spec.Name
		}
	case *huev1alpha1.HueGroup:
		return o.Spec.Name
	case *huev1alpha1.HueScene:
		if o.Spec.Name != "" {
			return "scene " + o.Spec.Name
		}
		return "scene " + o.Name
	case *huev1alpha1.HueBridge:
		return "bridge " + o.Name
	case *awsv1alpha1.DynamoDBTable:
		return "table " + o.ResolvedTableName()
	}
	return obj.GetName()
}

// clusterState is the page's "cluster" event.
type clusterState struct {
	Bridges []bridgeView `json:"bridges"`
	Drivers []driverView `json:"drivers"`
	Scenes  []sceneView  `json:"scenes"`
	Tables  []tableView  `json:"tables"`
}

// sceneView is a HueScene.
type sceneView struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Group     string   `json:"group"`
	Ready     condView `json:"ready"`
}

// condView is one condition as the page shows it.
type condView struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// bridgeView is a HueBridge.
type bridgeView struct {
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion"`
	// API is the API Tether speaks with it (V1, V2), and Stream its event
	// stream's state (Connected, Connecting, Polling; "" on V1).
	API    string   `json:"api"`
	Stream string   `json:"stream,omitempty"`
	Lights int32    `json:"lights"`
	Ready  condView `json:"ready"`
}

// driverView is an object that drives bulbs: a HueLight (or a HueGroup),
// with the bulbs it drives by id (once resolved) and by name.
type driverView struct {
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	LightIDs  []string `json:"lightIDs"`
	Bulbs     []string `json:"bulbs"`
	ModelID   string   `json:"modelID,omitempty"`
	Model     string   `json:"model,omitempty"`
	// Group is a HueGroup's room or zone on the bridge, and Scene the
	// HueScene it shows.
	Group  string   `json:"group,omitempty"`
	Scene  string   `json:"scene,omitempty"`
	Ready  condView `json:"ready"`
	Synced condView `json:"synced"`
}

// snapshot reads the informers' caches.
func (v *clusterView) snapshot(ctx context.Context) (clusterState, error) {
	st := clusterState{Bridges: []bridgeView{}, Drivers: []driverView{}, Scenes: []sceneView{}, Tables: []tableView{}}
	var bridges huev1alpha1.HueBridgeList
	var lights huev1alpha1.HueLightList
	var groups huev1alpha1.HueGroupList
	var scenes huev1alpha1.HueSceneList
	var tables awsv1alpha1.DynamoDBTableList
	for _, l := range []client.ObjectList{&bridges, &lights, &groups, &scenes, &tables} {
		if err := v.cache.List(ctx, l); err != nil {
			return st, err
		}
	}
	for _, b := range bridges.Items {
		bv := bridgeView{Name: b.Name, APIVersion: b.Status.APIVersion, API: string(b.Status.API),
			Lights: b.Status.LightCount, Ready: condition(b.Managed(), commonv1alpha1.Ready)}
		if es := b.Status.EventStream; es != nil {
			bv.Stream = es.State
		}
		st.Bridges = append(st.Bridges, bv)
	}
	for i := range lights.Items {
		st.Drivers = append(st.Drivers, lightDriver(&lights.Items[i]))
	}
	for i := range groups.Items {
		st.Drivers = append(st.Drivers, groupDriver(&groups.Items[i]))
	}
	for _, sc := range scenes.Items {
		st.Scenes = append(st.Scenes, sceneView{Namespace: sc.Namespace, Name: sc.Name, Group: sc.Spec.GroupRef.Name,
			Ready: condition(sc.Managed(), commonv1alpha1.Ready)})
	}
	sort.Slice(st.Drivers, func(i, j int) bool {
		a, b := st.Drivers[i], st.Drivers[j]
		return a.Kind+" "+a.Namespace+"/"+a.Name < b.Kind+" "+b.Namespace+"/"+b.Name
	})
	for i := range tables.Items {
		st.Tables = append(st.Tables, v.tables.view(&tables.Items[i]))
	}
	sort.Slice(st.Tables, func(i, j int) bool { return st.Tables[i].TableName < st.Tables[j].TableName })
	return st, nil
}

func lightDriver(l *huev1alpha1.HueLight) driverView {
	d := driverView{Kind: "HueLight", Namespace: l.Namespace, Name: l.Name, LightIDs: []string{}, Bulbs: []string{},
		Ready: condition(l.Managed(), commonv1alpha1.Ready), Synced: condition(l.Managed(), commonv1alpha1.Synced)}
	if l.Status.LightID != "" {
		d.LightIDs = append(d.LightIDs, l.Status.LightID)
	}
	if l.Spec.Name != "" {
		d.Bulbs = append(d.Bulbs, l.Spec.Name)
	}
	if c := l.Status.Capabilities; c != nil {
		d.ModelID, d.Model = c.ModelID, modelKind(c)
	}
	return d
}

// groupDriver is a HueGroup: it drives its members, by id once the bridge
// reported them, else the lights its spec names.
func groupDriver(g *huev1alpha1.HueGroup) driverView {
	d := driverView{Kind: "HueGroup", Namespace: g.Namespace, Name: g.Name, LightIDs: []string{},
		Bulbs: append([]string{}, g.Spec.Lights...), Group: g.Spec.Name, Scene: g.Status.ActiveScene,
		Ready: condition(g.Managed(), commonv1alpha1.Ready), Synced: condition(g.Managed(), commonv1alpha1.Synced)}
	for _, m := range g.Status.Members {
		d.LightIDs = append(d.LightIDs, m.LightID)
		d.Bulbs = append(d.Bulbs, m.Name)
	}
	return d
}

// modelKind names the product line as Hue sells it, from what the bulb
// can show.
func modelKind(c *huev1alpha1.LightCapabilities) string {
	switch {
	case !c.Dimmable:
		return "plug"
	case slices.Contains(c.ColorModes, huev1alpha1.ColorModeXY) || slices.Contains(c.ColorModes, huev1alpha1.ColorModeHueSaturation):
		return "colour"
	case slices.Contains(c.ColorModes, huev1alpha1.ColorModeColorTemperature):
		return "ambiance"
	default:
		return "white"
	}
}

func condition(s *commonv1alpha1.ManagedStatus, typ string) condView {
	c := meta.FindStatusCondition(s.Conditions, typ)
	if c == nil {
		return condView{Status: "Unknown", Reason: "NotObservedYet"}
	}
	return condView{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
}

// eventTime is when the event (or the last of its series) happened.
func eventTime(ev *eventsv1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	}
	return ev.CreationTimestamp.Time
}

// objectRef is how the page names an object: Kind namespace/name.
func objectRef(kind, namespace, name string) string {
	if namespace == "" {
		return fmt.Sprintf("%s %s", kind, name)
	}
	return fmt.Sprintf("%s %s/%s", kind, namespace, name)
}
