package bridge

import (
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// Wake is a wake-up for one object, by key: the controllers turn it into a
// reconcile request through a controller-runtime channel source.
type Wake = event.TypedGenericEvent[types.NamespacedName]

// Wakes are the channels a session sends keys on, the only way anything
// leaves it. It never blocks on them: a wake-up that finds its channel full
// is dropped, and the next read or the resync catches up.
type Wakes struct {
	// Lights carries the HueLights whose bulb drifted, changed
	// reachability or was let go, or whose command went out.
	Lights chan<- Wake
	// Groups carries the HueGroups one of whose members drifted, whose
	// group changed, or whose command went out.
	Groups chan<- Wake
	// Scenes carries the HueScenes whose scene an event showed changed
	// (in the Hue app, or deleted there).
	Scenes chan<- Wake
	// Bridge carries the session's bridge id when the bridge started or
	// stopped answering, its number of lights changed, or its event stream
	// did: its HueBridges report that.
	Bridge chan<- string
}

// wakes sends keys on a session's channels without blocking it.
type wakes struct {
	Wakes
	log logr.Logger
}

func (w *wakes) lights(keys []types.NamespacedName) { w.send(w.Lights, keys, "hueLight") }

func (w *wakes) groups(keys []types.NamespacedName) { w.send(w.Groups, keys, "hueGroup") }

func (w *wakes) scenes(keys []types.NamespacedName) { w.send(w.Scenes, keys, "hueScene") }

func (w *wakes) send(ch chan<- Wake, keys []types.NamespacedName, kind string) {
	if ch == nil {
		return
	}
	for _, k := range keys {
		select {
		case ch <- Wake{Object: k}:
		default:
			w.log.V(1).Info("wake-up dropped: queue full", kind, k.String())
		}
	}
}

func (w *wakes) bridge(id string) {
	if w.Bridge == nil {
		return
	}
	select {
	case w.Bridge <- id:
	default:
	}
}
