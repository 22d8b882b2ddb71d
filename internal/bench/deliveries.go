package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// deliveries records when the harness's own watch received each version
// of the objects of a kind: the API server's watch delivery, which no
// operator can beat.
type deliveries struct {
	mu   sync.Mutex
	seen map[string]time.Time // "<namespace>/<name>@<resourceVersion>"
}

// watchDeliveries starts recording obj's kind; stop ends it.
func (e *env) watchDeliveries(ctx context.Context, obj client.Object) (d *deliveries, stop func(), err error) {
	informer, err := e.cache.GetInformer(ctx, obj)
	if err != nil {
		return nil, nil, err
	}
	d = &deliveries{seen: map[string]time.Time{}}
	record := func(o any) {
		if c, ok := o.(client.Object); ok {
			d.mu.Lock()
			d.seen[keyOf(c)+"@"+c.GetResourceVersion()] = time.Now()
			d.mu.Unlock()
		}
	}
	reg, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { record(o) },
		UpdateFunc: func(_, o any) { record(o) },
	})
	if err != nil {
		return nil, nil, err
	}
	return d, func() { _ = informer.RemoveEventHandler(reg) }, nil
}

// wait returns when the watch received that version of the object.
func (d *deliveries) wait(ctx context.Context, key, resourceVersion string) (time.Time, error) {
	var at time.Time
	err := WaitUntil(ctx, 10*time.Second, time.Millisecond, func() (bool, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		t, ok := d.seen[key+"@"+resourceVersion]
		at = t
		return ok, nil
	})
	if err != nil {
		return at, fmt.Errorf("%s at resourceVersion %s: %w", key, resourceVersion, err)
	}
	return at, nil
}
