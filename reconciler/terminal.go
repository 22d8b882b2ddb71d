package reconciler

import (
	"fmt"
	"hash/fnv"
	"sort"
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// terminalGate remembers objects whose last attempt failed terminally, so that
// resyncs and poller wake-ups make no external call until the user changes
// the spec or an annotation (which is how a user answers "the spec is wrong"
// or "allow this replacement"). It lives in memory: after a restart an object
// is tried once more, which is the honest thing to do anyway.
type terminalGate struct {
	mu     sync.Mutex
	failed map[ctrl.Request]string
}

func newTerminalGate() *terminalGate {
	return &terminalGate{failed: map[ctrl.Request]string{}}
}

func (g *terminalGate) record(req ctrl.Request, obj client.Object) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failed[req] = fingerprint(obj)
}

func (g *terminalGate) blocks(req ctrl.Request, obj client.Object) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	fp, ok := g.failed[req]
	return ok && fp == fingerprint(obj)
}

func (g *terminalGate) clear(req ctrl.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.failed, req)
}

// fingerprint identifies what the user controls: the object's identity, its
// spec generation and its annotations.
func fingerprint(obj client.Object) string {
	h := fnv.New64a()
	annotations := obj.GetAnnotations()
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == commonv1alpha1.AnnotationCreateStarted {
			continue // Tether's own note, not the user's answer
		}
		fmt.Fprintf(h, "%s=%s\x00", k, annotations[k])
	}
	return fmt.Sprintf("%s/%d/%x", obj.GetUID(), obj.GetGeneration(), h.Sum64())
}
