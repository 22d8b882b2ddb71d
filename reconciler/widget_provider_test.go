package reconciler

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/event"

	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// widgetProvider is an in-memory "outside world" for the generic reconciler's
// tests: it stores widgets, counts and timestamps every call per object, and
// lets a test make a call fail.
type widgetProvider struct {
	mu       sync.Mutex
	external map[string]testv1alpha1.WidgetSpec
	calls    map[string][]call
	failWith map[string]map[string]error // object name -> method -> error
	diffs    map[string][]widgetDiff     // what Update received
	paused   map[string]int              // Paused notices (not external calls)
	connects map[string]int              // Connect stages (not external calls)
	// ignoring makes Update succeed without changing the widget: a backend
	// that accepts a write and never shows it.
	ignoring map[string]bool
	// waiting makes Observe answer Wait with this reason.
	waiting map[string]string
	// notes makes Observe of a matching widget carry this reason and note.
	notes map[string][2]string
	// inLine makes Update hand its write to a line instead (a quiet Wait, Sent),
	// where it stays for that many more looks (a quiet wait each) before it
	// is done: a bridge's sender.
	inLine map[string]int
	lined  map[string]widgetDiff
	// wakeAfterWrite makes Update wake the widget as soon as its write is
	// done, as a bridge's sender does once the bridge accepted a command.
	wakeAfterWrite map[string]bool
	// wakes is the channel source of those wake-ups (suite_test.go).
	wakes chan event.GenericEvent
}

type call struct {
	method string
	at     time.Time
}

// widgetDiff is the typed difference the provider hands to Update.
type widgetDiff struct {
	Size  *[2]int32
	Color *[2]string
}

func (d widgetDiff) String() string {
	s := ""
	if d.Size != nil {
		s += fmt.Sprintf("size %d -> %d ", d.Size[0], d.Size[1])
	}
	if d.Color != nil {
		s += fmt.Sprintf("color %q -> %q", d.Color[0], d.Color[1])
	}
	return s
}

func newWidgetProvider() *widgetProvider {
	return &widgetProvider{
		external: map[string]testv1alpha1.WidgetSpec{},
		calls:    map[string][]call{},
		failWith: map[string]map[string]error{},
		diffs:    map[string][]widgetDiff{},
		paused:   map[string]int{},
		connects: map[string]int{},
		ignoring: map[string]bool{},
		waiting:  map[string]string{},
		notes:    map[string][2]string{},
		inLine:   map[string]int{},
		lined:    map[string]widgetDiff{},

		wakeAfterWrite: map[string]bool{},
		wakes:          make(chan event.GenericEvent, 16),
	}
}

// Connect is the connect stage: counted apart from the external calls (it
// makes none), and failing when the test asks for it.
func (p *widgetProvider) Connect(_ context.Context, w *testv1alpha1.Widget) (providers.External[*testv1alpha1.Widget], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.connects[w.Name]++
	if err := p.failWith[w.Name]["Connect"]; err != nil {
		return nil, err
	}
	return p, nil
}

func (p *widgetProvider) connectCount(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connects[name]
}

// mode sets a widget's ignoring, waiting and notes behaviour.
func (p *widgetProvider) mode(name string, ignore bool, waitReason string, note [2]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ignoring[name], p.waiting[name], p.notes[name] = ignore, waitReason, note
}

// Paused is the optional providers.Pauser notice; it is not an external call.
func (p *widgetProvider) Paused(_ context.Context, w *testv1alpha1.Widget) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused[w.Name]++
}

func (p *widgetProvider) pausedNotices(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused[name]
}

// record notes the call and returns the error the test asked for, if any.
func (p *widgetProvider) record(name, method string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[name] = append(p.calls[name], call{method: method, at: time.Now()})
	return p.failWith[name][method]
}

func (p *widgetProvider) Observe(_ context.Context, w *testv1alpha1.Widget) (providers.Observation, error) {
	if err := p.record(w.Name, "Observe"); err != nil {
		return providers.Observation{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.lined[w.Name]; ok {
		if p.inLine[w.Name] > 0 {
			p.inLine[w.Name]--
			return providers.Waiting(providers.Wait{Quiet: true, For: lineLook}), nil
		}
		delete(p.lined, w.Name)
		p.applyLocked(w.Name, d)
	}
	ext, ok := p.external[w.Name]
	if !ok {
		return providers.Absent(), nil
	}
	var d widgetDiff
	if ext.Size != w.Spec.Size {
		d.Size = &[2]int32{ext.Size, w.Spec.Size}
	}
	if ext.Color != w.Spec.Color {
		d.Color = &[2]string{ext.Color, w.Spec.Color}
	}
	if reason := p.waiting[w.Name]; reason != "" {
		return providers.Waiting(providers.Wait{Reason: reason, Message: "waiting: " + reason}), nil
	}
	upToDate := d.Size == nil && d.Color == nil
	if note := p.notes[w.Name]; upToDate && note[0] != "" {
		obs := providers.Matches()
		obs.Reason, obs.Message = note[0], note[1]
		return obs, nil
	}
	if upToDate {
		return providers.Matches(), nil
	}
	return providers.Differs(d), nil
}

func (p *widgetProvider) Create(_ context.Context, w *testv1alpha1.Widget) error {
	if err := p.record(w.Name, "Create"); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.external[w.Name] = w.Spec
	return nil
}

func (p *widgetProvider) Update(_ context.Context, w *testv1alpha1.Widget, diff providers.Difference) error {
	if err := p.record(w.Name, "Update"); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	d := diff.(widgetDiff)
	p.diffs[w.Name] = append(p.diffs[w.Name], d)
	if p.ignoring[w.Name] {
		return nil
	}
	if p.inLine[w.Name] > 0 {
		p.lined[w.Name] = d
		return &providers.HandedError{For: lineLook, Reason: "Throttled", Message: "in line", Quiet: true}
	}
	p.applyLocked(w.Name, d)
	if p.wakeAfterWrite[w.Name] {
		p.wakes <- event.GenericEvent{Object: w.DeepCopy()}
	}
	return nil
}

// wake enqueues the widget, as a backend's push does.
func (p *widgetProvider) wake(w *testv1alpha1.Widget) { p.wakes <- event.GenericEvent{Object: w} }

// wakeOnWrite makes the widget's writes wake it at once (wakeAfterWrite).
func (p *widgetProvider) wakeOnWrite(name string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wakeAfterWrite[name] = on
}

// lineLook is when a widget whose write is in line is looked at again.
const lineLook = 100 * time.Millisecond

func (p *widgetProvider) applyLocked(name string, d widgetDiff) {
	ext := p.external[name]
	if d.Size != nil {
		ext.Size = d.Size[1]
	}
	if d.Color != nil {
		ext.Color = d.Color[1]
	}
	p.external[name] = ext
}

func (p *widgetProvider) Delete(_ context.Context, w *testv1alpha1.Widget) error {
	if err := p.record(w.Name, "Delete"); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.external, w.Name)
	if p.wakeAfterWrite[w.Name] {
		p.wakes <- event.GenericEvent{Object: w.DeepCopy()}
	}
	return nil
}

// DescribeDelete is the optional providers.DeleteDescriber.
func (p *widgetProvider) DescribeDelete(w *testv1alpha1.Widget) string {
	return fmt.Sprintf("removed widget %s of size %d", w.Name, w.Spec.Size)
}

// Test helpers.

// queue makes the widget's next write wait in line for looks more looks.
func (p *widgetProvider) queue(name string, looks int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inLine[name] = looks
}

func (p *widgetProvider) fail(name, method string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failWith[name] == nil {
		p.failWith[name] = map[string]error{}
	}
	p.failWith[name][method] = err
}

func (p *widgetProvider) count(name, method string) int {
	return len(p.callTimes(name, method))
}

func (p *widgetProvider) callTimes(name, method string) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var times []time.Time
	for _, c := range p.calls[name] {
		if method == "" || c.method == method {
			times = append(times, c.at)
		}
	}
	return times
}

func (p *widgetProvider) get(name string) (testv1alpha1.WidgetSpec, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.external[name]
	return s, ok
}

func (p *widgetProvider) set(name string, spec testv1alpha1.WidgetSpec) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.external[name] = spec
}

func (p *widgetProvider) updates(name string) []widgetDiff {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]widgetDiff(nil), p.diffs[name]...)
}
