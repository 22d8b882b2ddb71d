package reconciler

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"

	"github.com/tether-dev/tether/providers"
)

// heldSink is an event sink whose requests stay in flight until released,
// counting how many are in flight at once.
type heldSink struct {
	release           chan struct{}
	inFlight, maxSeen atomic.Int32
	calls             atomic.Int32
}

func (s *heldSink) hold() (*eventsv1.Event, error) {
	n := s.inFlight.Add(1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	<-s.release
	s.inFlight.Add(-1)
	s.calls.Add(1)
	return &eventsv1.Event{}, nil
}

func (s *heldSink) Create(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.hold()
}

func (s *heldSink) Update(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	return s.hold()
}

func (s *heldSink) Patch(context.Context, *eventsv1.Event, []byte) (*eventsv1.Event, error) {
	return s.hold()
}

// TestEventsGoOneAtATime: events emitted together (creates, and the
// updates and patches of event series) reach the API server one request
// after the other; every one of them is sent. Without the sink's lock all
// of them would be in flight together and the wait for one fails.
func TestEventsGoOneAtATime(t *testing.T) {
	g := NewWithT(t)
	held := &heldSink{release: make(chan struct{})}
	sink := &oneEventAtATime{sink: held}
	const n = 9
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, e := context.Background(), &eventsv1.Event{}
			switch i % 3 {
			case 0:
				_, _ = sink.Create(ctx, e)
			case 1:
				_, _ = sink.Update(ctx, e)
			default:
				_, _ = sink.Patch(ctx, e, []byte("{}"))
			}
		})
	}
	for range n {
		g.Eventually(held.inFlight.Load, 5*time.Second, time.Millisecond).Should(Equal(int32(1)))
		held.release <- struct{}{}
	}
	wg.Wait()
	g.Expect(held.maxSeen.Load()).To(Equal(int32(1)), "requests in flight at once")
	g.Expect(held.calls.Load()).To(Equal(int32(n)), "events sent")
}

// notesSink records the notes it was sent.
type notesSink struct {
	mu    sync.Mutex
	notes []string
}

func (s *notesSink) record(e *eventsv1.Event) (*eventsv1.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, e.Note)
	return e, nil
}

func (s *notesSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.record(e)
}

func (s *notesSink) Update(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.record(e)
}

func (s *notesSink) Patch(_ context.Context, e *eventsv1.Event, _ []byte) (*eventsv1.Event, error) {
	return s.record(e)
}

// TestEventNotesAreCutToWhatTheAPIServerTakes: a note over the API server's
// limit goes out cut, as a condition's message is cut; a short one goes
// out as it is; the event the broadcaster handed over is left as it was
// (it keeps it for its series).
func TestEventNotesAreCutToWhatTheAPIServerTakes(t *testing.T) {
	g := NewWithT(t)
	rec := &notesSink{}
	sink := &oneEventAtATime{sink: rec}
	long := strings.Repeat("living-room-ceiling-spot (on: false -> true); ", 100)
	e := &eventsv1.Event{Note: long}
	_, _ = sink.Create(context.Background(), e)
	_, _ = sink.Update(context.Background(), e)
	_, _ = sink.Create(context.Background(), &eventsv1.Event{Note: "updated: size 1 -> 2"})
	g.Expect(rec.notes).To(Equal([]string{providers.TruncateNote(long), providers.TruncateNote(long), "updated: size 1 -> 2"}))
	g.Expect(len(rec.notes[0])).To(BeNumerically("<=", providers.MaxEventNoteBytes))
	g.Expect(rec.notes[0]).To(HaveSuffix("..."))
	g.Expect(e.Note).To(Equal(long), "the broadcaster's event was changed")
}
