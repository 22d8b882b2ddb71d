package bench

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

// Figure 14 (issue 28 item 1): the API server writes one change costs. A
// changed HueLight or HueGroup should be written once, when it is Ready,
// with status.observed already true: every other write is load on the API
// server nobody asked for. A world of its own: the API server, one bridge
// on the v1 API and one on CLIP v2, HueLights and HueGroups (zones of one
// bulb each, apart from the HueLights' bulbs) on each, the operator with
// its defaults. Rounds of changes, each object changed once a round; a
// round ends once every changed object is Ready and one and a half Hue
// poll intervals more have passed (on v1, a write a read confirms waits for
// the next poll), so that every write a change causes lands in its round.
func init() {
	registerAlone(14, "Status writes per change", true, (*run).statusWrites)
}

// writesGoal is issue 28's goal: one status write per change.
const writesGoal = 1

const (
	writesNS       = "bench-writes"
	writesBridgeV1 = "writes-v1"
	writesBridgeV2 = "writes-v2"
)

// writesWorld is figure 14's objects, by bridge.
type writesWorld struct {
	sims   map[string]*huesim.Server
	lights map[string][]*huev1alpha1.HueLight
	groups map[string][]*huev1alpha1.HueGroup
}

func (r *run) statusWrites(ctx context.Context, bin string) error {
	w, err := r.startWritesWorld(ctx, bin)
	if err != nil {
		return err
	}
	counter := newWriteCounter()
	for _, obj := range []client.Object{&huev1alpha1.HueLight{}, &huev1alpha1.HueGroup{}} {
		informer, err := r.cache.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		reg, err := informer.AddEventHandler(counter.handler())
		if err != nil {
			return err
		}
		defer func() { _ = informer.RemoveEventHandler(reg) }()
	}
	// The creations' writes are not changes: the rounds start after them.
	if err := r.sleep(ctx, r.sc.HuePoll*3/2); err != nil {
		return err
	}
	counter.reset()
	lightChanges, groupChanges := map[string]int{}, map[string]int{}
	rounds := max(r.sc.WriteChanges/(2*r.sc.WriteLights), r.sc.WriteChanges/(2*r.sc.WriteGroups))
	start := time.Now()
	for round := range rounds {
		var objs []client.Object
		var patches []string
		for _, bridge := range []string{writesBridgeV1, writesBridgeV2} {
			if round < r.sc.WriteChanges/(2*r.sc.WriteLights) {
				for i, l := range w.lights[bridge] {
					objs, patches = append(objs, l), append(patches, fmt.Sprintf(`{"spec":{"brightness":%d}}`, 2+(round*37+i*11)%250))
					lightChanges[bridge]++
				}
			}
			if round < r.sc.WriteChanges/(2*r.sc.WriteGroups) {
				for i, g := range w.groups[bridge] {
					objs, patches = append(objs, g), append(patches, fmt.Sprintf(`{"spec":{"brightness":%d}}`, 2+(round*53+i*7)%250))
					groupChanges[bridge]++
				}
			}
		}
		want, err := r.patchEach(ctx, objs, patchClients, func(i int) string { return patches[i] })
		if err != nil {
			return err
		}
		if err := r.waitHueReady(ctx, want, 3*time.Minute); err != nil {
			return fmt.Errorf("round %d: %w", round+1, err)
		}
		if err := r.sleep(ctx, r.sc.HuePoll*3/2); err != nil {
			return err
		}
	}
	took := time.Since(start)
	writes := counter.snapshot()
	f := r.fig(14)
	for _, k := range []struct {
		kind, bridge, api string
		changes           map[string]int
	}{
		{"HueLight", writesBridgeV1, "v1", lightChanges},
		{"HueLight", writesBridgeV2, "CLIP v2", lightChanges},
		{"HueGroup", writesBridgeV1, "v1", groupChanges},
		{"HueGroup", writesBridgeV2, "CLIP v2", groupChanges},
	} {
		n := writes.forBridge(k.kind, k.bridge)
		per := 0.0
		if c := k.changes[k.bridge]; c > 0 {
			per = float64(n.status) / float64(c)
		}
		f.add(fmt.Sprintf("%s_%s", k.kind, k.bridge), fmt.Sprintf("status writes per %s change on %s (%d changes)", k.kind, k.api, k.changes[k.bridge]),
			"writes", per, &goal{Op: "<=", Limit: writesGoal, Text: "1.00"})
		f.why("what the %d writes changed: %s; the Ready they left: %s", n.status, FormatCounts(n.fields), FormatCounts(n.ready))
	}
	for _, k := range []string{"HueLight", "HueGroup"} {
		n := writes.forKind(k)
		f.note("%s: %d status writes in all; what they changed, by field: %s; metadata-only writes: %d.", k, n.status, FormatCounts(n.fields), n.metadata)
	}
	f.note("%d rounds in %s on %d HueLights and %d HueGroups (zones of one bulb) per bridge, one v1 bridge and one CLIP v2 bridge; each object changed once a round "+
		"(a brightness of its own); a round ends 1.5 Hue poll intervals (%s) after every changed object is Ready. Writes counted from the harness's watch: "+
		"a new resourceVersion at the same generation is a status write when the status differs, else a metadata write.",
		rounds, took.Round(time.Second), r.sc.WriteLights, r.sc.WriteGroups, r.sc.HuePoll)
	return nil
}

// startWritesWorld starts the API server, the two bridges with their
// HueBridges, the operator, and the HueLights and HueGroups, all Ready.
func (r *run) startWritesWorld(ctx context.Context, bin string) (*writesWorld, error) {
	kubeconfig, err := r.startControlPlane(r.runDir)
	if err != nil {
		return nil, err
	}
	for _, ns := range []string{secretsNS, writesNS} {
		if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	w := &writesWorld{sims: map[string]*huesim.Server{}, lights: map[string][]*huev1alpha1.HueLight{}, groups: map[string][]*huev1alpha1.HueGroup{}}
	var all []client.Object
	for _, name := range []string{writesBridgeV1, writesBridgeV2} {
		opts := huesim.Options{Usernames: []string{benchUser}, BridgeID: fmt.Sprintf("001788FFFE%06X", rand.N(1<<24))}
		for i := range r.sc.WriteLights {
			opts.Lights = append(opts.Lights, fmt.Sprintf("%s-light-%d", name, i+1))
		}
		for i := range r.sc.WriteGroups {
			opts.Lights = append(opts.Lights, fmt.Sprintf("%s-zone-%d", name, i+1))
		}
		sim, err := huesim.Start(opts, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		r.onStop(sim.Close)
		w.sims[name] = sim
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: name + "-credentials"},
			Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte(benchUser), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())}}
		if err := r.c.Create(ctx, secret); err != nil {
			return nil, err
		}
		spec := huev1alpha1.HueBridgeSpec{Address: sim.Addr(), CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name}}
		if name == writesBridgeV2 {
			spec.Address, spec.APIVersion, spec.CABundle, spec.BridgeID = sim.TLSAddr(), huev1alpha1.APIV2, string(sim.CACertPEM()), sim.BridgeID()
		}
		if err := r.c.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}); err != nil {
			return nil, err
		}
		for i := range r.sc.WriteLights {
			bulb := fmt.Sprintf("%s-light-%d", name, i+1)
			l := newLight(writesNS, bulb, name, name, bulb, int32(1+i*7%254))
			w.lights[name] = append(w.lights[name], l)
			all = append(all, l)
		}
		for i := range r.sc.WriteGroups {
			bulb := fmt.Sprintf("%s-zone-%d", name, i+1)
			g := &huev1alpha1.HueGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: writesNS, Name: bulb},
				Spec: huev1alpha1.HueGroupSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: name}, Name: bulb, Type: huev1alpha1.GroupZone,
					Lights: []string{bulb}, Brightness: ptr.To(int32(1 + i*13%254)), OnDelete: huev1alpha1.DeletionKeep},
			}
			w.groups[name] = append(w.groups[name], g)
			all = append(all, g)
		}
	}
	if err := r.startHueOperator(ctx, bin, kubeconfig); err != nil {
		return nil, err
	}
	if err := r.waitBridgesReady(ctx, len(w.sims)); err != nil {
		return nil, err
	}
	if err := r.createAll(ctx, all); err != nil {
		return nil, err
	}
	if err := r.waitHueReady(ctx, wantAll(all), 3*time.Minute); err != nil {
		return nil, fmt.Errorf("creating the HueLights and HueGroups: %w", err)
	}
	return w, nil
}

// waitHueReady waits until every wanted HueLight and HueGroup is Ready at
// its generation.
func (e *env) waitHueReady(ctx context.Context, w wants, timeout time.Duration) error {
	return WaitUntil(ctx, timeout, 100*time.Millisecond, func() (bool, error) {
		var lights huev1alpha1.HueLightList
		if err := e.cache.List(ctx, &lights); err != nil {
			return false, err
		}
		var groups huev1alpha1.HueGroupList
		if err := e.cache.List(ctx, &groups); err != nil {
			return false, err
		}
		ready := 0
		check := func(o client.Object, s *commonv1alpha1.ManagedStatus) {
			if want, ok := w[keyOf(o)]; ok && readyAt(s, o.GetGeneration(), want) {
				ready++
			}
		}
		for i := range lights.Items {
			check(&lights.Items[i], &lights.Items[i].Status.ManagedStatus)
		}
		for i := range groups.Items {
			check(&groups.Items[i], &groups.Items[i].Status.ManagedStatus)
		}
		return ready == len(w), nil
	})
}

// writeCounter counts, from the harness's watch, the writes that are not
// spec changes, by kind and bridge, and the status fields each changed.
type writeCounter struct {
	mu sync.Mutex
	by map[string]*writeCount // "<kind>/<bridge>"
}

type writeCount struct {
	status, metadata int
	fields           map[string]int
	// ready counts the Ready condition each status write left ("True
	// Available", "False Updating"): which writes a change cost.
	ready map[string]int
}

func newWriteCounter() *writeCounter { return &writeCounter{by: map[string]*writeCount{}} }

func (c *writeCounter) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{UpdateFunc: func(oldObj, newObj any) {
		before, ok1 := oldObj.(client.Object)
		after, ok2 := newObj.(client.Object)
		if !ok1 || !ok2 || before.GetResourceVersion() == after.GetResourceVersion() || before.GetGeneration() != after.GetGeneration() {
			return
		}
		kind, bridge := kindAndBridge(after)
		b, errB := runtime.DefaultUnstructuredConverter.ToUnstructured(before)
		a, errA := runtime.DefaultUnstructuredConverter.ToUnstructured(after)
		c.mu.Lock()
		defer c.mu.Unlock()
		n := c.by[kind+"/"+bridge]
		if n == nil {
			n = &writeCount{fields: map[string]int{}, ready: map[string]int{}}
			c.by[kind+"/"+bridge] = n
		}
		fields := []string{"unknown"}
		if errA == nil && errB == nil {
			fields = changedFields(b, a)
		}
		if len(fields) == 1 && fields[0] == "metadata" {
			n.metadata++
			return
		}
		n.status++
		for _, f := range fields {
			n.fields[f]++
		}
		n.ready[readyOf(after)]++
	}}
}

// readyOf words an object's Ready condition: "True Available".
func readyOf(o client.Object) string {
	var st *commonv1alpha1.ManagedStatus
	switch v := o.(type) {
	case *huev1alpha1.HueLight:
		st = &v.Status.ManagedStatus
	case *huev1alpha1.HueGroup:
		st = &v.Status.ManagedStatus
	default:
		return "unknown"
	}
	c := meta.FindStatusCondition(st.Conditions, commonv1alpha1.Ready)
	if c == nil {
		return "none"
	}
	return string(c.Status) + " " + c.Reason
}

func kindAndBridge(o client.Object) (kind, bridge string) {
	switch v := o.(type) {
	case *huev1alpha1.HueLight:
		if v.Spec.BridgeRef != nil {
			bridge = v.Spec.BridgeRef.Name
		}
		return "HueLight", bridge
	case *huev1alpha1.HueGroup:
		if v.Spec.BridgeRef != nil {
			bridge = v.Spec.BridgeRef.Name
		}
		return "HueGroup", bridge
	}
	return fmt.Sprintf("%T", o), ""
}

func (c *writeCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by = map[string]*writeCount{}
}

// writeCounts is a snapshot of a writeCounter.
type writeCounts map[string]writeCount

func (c *writeCounter) snapshot() writeCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := writeCounts{}
	for k, v := range c.by {
		out[k] = writeCount{status: v.status, metadata: v.metadata, fields: maps.Clone(v.fields), ready: maps.Clone(v.ready)}
	}
	return out
}

func (w writeCounts) forBridge(kind, bridge string) writeCount {
	n := w[kind+"/"+bridge]
	if n.fields == nil {
		n.fields, n.ready = map[string]int{}, map[string]int{}
	}
	return n
}

func (w writeCounts) forKind(kind string) writeCount {
	out := writeCount{fields: map[string]int{}}
	for k, v := range w {
		if !strings.HasPrefix(k, kind+"/") {
			continue
		}
		out.status += v.status
		out.metadata += v.metadata
		for f, n := range v.fields {
			out.fields[f] += n
		}
	}
	return out
}
