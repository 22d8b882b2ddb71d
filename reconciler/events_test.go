package reconciler

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
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
