package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

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
	}
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
	ext, ok := p.external[w.Name]
	if !ok {
		return providers.Observation{}, nil
	}
	var d widgetDiff
	if ext.Size != w.Spec.Size {
		d.Size = &[2]int32{ext.Size, w.Spec.Size}
	}
	if ext.Color != w.Spec.Color {
		d.Color = &[2]string{ext.Color, w.Spec.Color}
	}
	upToDate := d.Size == nil && d.Color == nil
	return providers.Observation{Exists: true, UpToDate: upToDate, Diff: d, Available: true}, nil
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
	ext := p.external[w.Name]
	if d.Size != nil {
		ext.Size = d.Size[1]
	}
	if d.Color != nil {
		ext.Color = d.Color[1]
	}
	p.external[w.Name] = ext
	return nil
}

func (p *widgetProvider) Delete(_ context.Context, w *testv1alpha1.Widget) error {
	if err := p.record(w.Name, "Delete"); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.external, w.Name)
	return nil
}

// Test helpers.

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
