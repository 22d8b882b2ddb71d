package bench

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// newLight is a HueLight for a bulb; onDelete Keep, so that tearing a run
// down sends nothing to the bridges.
func newLight(ns, name, set, bridge, bulb string, brightness int32) *huev1alpha1.HueLight {
	return &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelSet: set}},
		Spec: huev1alpha1.HueLightSpec{
			BridgeRef:  &huev1alpha1.BridgeReference{Name: bridge},
			Name:       bulb,
			Brightness: ptr.To(brightness),
			OnDelete:   huev1alpha1.DeletionKeep,
		},
	}
}

// lightsOn returns n HueLights for bulbs <bridge>-1..n, spread over the
// rooms (namespaces) unless ns is set.
func lightsOn(bridge, ns string, n int, brightness int32) []*huev1alpha1.HueLight {
	out := make([]*huev1alpha1.HueLight, n)
	for i := range out {
		room := ns
		if room == "" {
			room = fmt.Sprintf("%s%d", roomPrefix, i%roomCount)
		}
		bulb := fmt.Sprintf("%s-%d", bridge, i+1)
		out[i] = newLight(room, bulb, bridge, bridge, bulb, brightness)
	}
	return out
}

// newTable is a PAY_PER_REQUEST table, or PROVISIONED 5/5 when provisioned.
func newTable(name string, provisioned bool) *awsv1alpha1.DynamoDBTable {
	t := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: tablesNS, Name: name, Labels: map[string]string{labelSet: "tables"}},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
		},
	}
	if provisioned {
		t.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		t.Spec.ProvisionedThroughput = &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5}
	}
	return t
}

func objects[T client.Object](in []T) []client.Object {
	out := make([]client.Object, len(in))
	for i, o := range in {
		out[i] = o
	}
	return out
}

func keyOf(o client.Object) string { return o.GetNamespace() + "/" + o.GetName() }

// wants is what waitReady waits for: each object's key and the generation
// its Ready condition must have observed (0: any).
type wants map[string]int64

func wantAll(objs []client.Object) wants {
	w := wants{}
	for _, o := range objs {
		w[keyOf(o)] = o.GetGeneration()
	}
	return w
}

func readyAt(s *commonv1alpha1.ManagedStatus, generation, want int64) bool {
	c := meta.FindStatusCondition(s.Conditions, commonv1alpha1.Ready)
	return c != nil && c.Status == metav1.ConditionTrue && generation >= want && c.ObservedGeneration == generation
}

// readyNow returns the wanted objects that are Ready now (in the cache).
func (e *env) readyNow(ctx context.Context, tables bool, w wants) (map[string]bool, error) {
	out := map[string]bool{}
	if tables {
		var list awsv1alpha1.DynamoDBTableList
		if err := e.cache.List(ctx, &list); err != nil {
			return nil, err
		}
		for i := range list.Items {
			o := &list.Items[i]
			if want, ok := w[keyOf(o)]; ok && readyAt(&o.Status.ManagedStatus, o.Generation, want) {
				out[keyOf(o)] = true
			}
		}
		return out, nil
	}
	var list huev1alpha1.HueLightList
	if err := e.cache.List(ctx, &list); err != nil {
		return nil, err
	}
	for i := range list.Items {
		o := &list.Items[i]
		if want, ok := w[keyOf(o)]; ok && readyAt(&o.Status.ManagedStatus, o.Generation, want) {
			out[keyOf(o)] = true
		}
	}
	return out, nil
}

// waitReady waits until every wanted object is Ready, calling first (when
// set) the first time each one is seen Ready, and returns when the last one
// was seen.
func (e *env) waitReady(ctx context.Context, tables bool, w wants, timeout time.Duration, first func(key string)) (time.Time, error) {
	return e.waitReadyEvery(ctx, 100*time.Millisecond, tables, w, timeout, first)
}

// waitReadyEvery is waitReady looking every interval: with thousands of
// objects, each look copies them all out of the cache.
func (e *env) waitReadyEvery(ctx context.Context, interval time.Duration, tables bool, w wants, timeout time.Duration, first func(key string)) (time.Time, error) {
	seen := map[string]bool{}
	var last time.Time
	err := WaitUntil(ctx, timeout, interval, func() (bool, error) {
		ready, err := e.readyNow(ctx, tables, w)
		if err != nil {
			return false, err
		}
		now := time.Now()
		for k := range ready {
			if !seen[k] {
				seen[k] = true
				last = now
				if first != nil {
					first(k)
				}
			}
		}
		return len(seen) == len(w), nil
	})
	if err != nil {
		return last, fmt.Errorf("%d of %d objects Ready: %w", len(seen), len(w), err)
	}
	return last, nil
}

// patchAll merge-patches every object and returns the generations the
// patches produced.
func (e *env) patchAll(ctx context.Context, objs []client.Object, patch string) (wants, error) {
	gens := make([]int64, len(objs))
	err := Parallel(len(objs), 16, func(i int) error {
		if err := e.c.Patch(ctx, objs[i], client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			return err
		}
		gens[i] = objs[i].GetGeneration()
		return nil
	})
	w := wants{}
	for i, o := range objs {
		w[keyOf(o)] = gens[i]
	}
	return w, err
}
