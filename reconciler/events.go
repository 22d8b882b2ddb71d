package reconciler

import (
	"context"
	"fmt"
	"sync"

	eventsv1 "k8s.io/api/events/v1"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/tether-dev/tether/providers"
)

// Events are best effort: they must not take from the API server the time
// the status writes need. controller-runtime's recorder (client-go's
// tools/events) starts a request for each event the moment it is emitted,
// so a burst of 500 HueLight changes sends 500 events at once, beside the
// status writes that say the changes are done; on a busy API server those
// writes then wait behind the events. client-go's core/v1 recorder
// (tools/record) sends one event at a time, from one loop; so does the
// sink here. An idle API server takes an event in milliseconds, so events
// outside bursts appear at once; in a burst they follow the status writes.

// oneEventAtATime is an event sink that has one request in flight at most.
// It also cuts every note to what the API server takes
// (providers.TruncateNote): every recorder of the manager sends through
// it, whoever emits the event, and an event with a longer note would be
// refused and lost.
type oneEventAtATime struct {
	mu   sync.Mutex
	sink events.EventSink
}

func (s *oneEventAtATime) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink.Create(ctx, withNoteCut(e))
}

func (s *oneEventAtATime) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink.Update(ctx, withNoteCut(e))
}

func (s *oneEventAtATime) Patch(ctx context.Context, e *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink.Patch(ctx, e, data)
}

// withNoteCut is e with its note cut, a copy when cut: the broadcaster
// keeps the event it hands over for its series. A Patch carries only a
// series' count and time, never the note, so it needs no cut.
func withNoteCut(e *eventsv1.Event) *eventsv1.Event {
	note := providers.TruncateNote(e.Note)
	if note == e.Note {
		return e
	}
	e = e.DeepCopy()
	e.Note = note
	return e
}

// eventsManager is the manager the kinds are set up with: its event
// recorders share one broadcaster whose sink is oneEventAtATime.
type eventsManager struct {
	manager.Manager
	broadcaster events.EventBroadcaster
}

// GetEventRecorder returns a recorder reporting as name.
func (m eventsManager) GetEventRecorder(name string) recorder.EventRecorder {
	// client-go's recorders implement both interfaces, as
	// controller-runtime's own recorder relies on.
	return m.broadcaster.NewRecorder(m.GetScheme(), name).(recorder.EventRecorder)
}

// WithEventsOneAtATime returns mgr with recorders that send one event at a
// time: SetupAll uses it, and so must whatever sets the kinds up one by one
// (the test suites), so that they send events as the binary does. The
// broadcaster records from now on and shuts down (its events
// still queued are dropped, as controller-runtime's are) once the manager
// has stopped its controllers.
func WithEventsOneAtATime(mgr ctrl.Manager) (ctrl.Manager, error) {
	c, err := eventsv1client.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("creating the events client: %w", err)
	}
	b := events.NewBroadcaster(&oneEventAtATime{sink: &events.EventSinkImpl{Interface: c}})
	ctx, stop := context.WithCancel(context.Background())
	if err := b.StartRecordingToSinkWithContext(ctx); err != nil {
		stop()
		return nil, fmt.Errorf("starting the event broadcaster: %w", err)
	}
	// Logged at debug level, as controller-runtime's recorder logs them.
	if _, err := b.StartLogging(mgr.GetLogger().WithName("events").V(1)); err != nil {
		stop()
		return nil, fmt.Errorf("logging events: %w", err)
	}
	if err := mgr.Add(eventsShutdown{broadcaster: b, stop: stop}); err != nil {
		stop()
		return nil, err
	}
	return eventsManager{Manager: mgr, broadcaster: b}, nil
}

// eventsShutdown shuts the broadcaster down when the manager stops. It
// runs on every replica, leader or not: recorders exist on all of them.
type eventsShutdown struct {
	broadcaster events.EventBroadcaster
	stop        context.CancelFunc
}

func (s eventsShutdown) Start(ctx context.Context) error {
	<-ctx.Done()
	s.stop()
	s.broadcaster.Shutdown()
	return nil
}

func (eventsShutdown) NeedLeaderElection() bool { return false }
