package reconciler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	testv1alpha1 "github.com/tether-dev/tether/internal/testkind/v1alpha1"
)

func TestPollInterval(t *testing.T) {
	r := &Reconciler[*testv1alpha1.Widget]{opts: Options{PollInterval: 2 * time.Minute}}
	tests := []struct {
		name        string
		annotation  *string
		want        time.Duration
		wantWarning bool
	}{
		{name: "no annotation uses the kind's default", want: 2 * time.Minute},
		{name: "a valid annotation overrides", annotation: ptr.To("30s"), want: 30 * time.Second},
		{name: "too short is raised to the floor", annotation: ptr.To("1ms"), want: commonv1alpha1.MinPollInterval},
		{name: "garbage falls back with a warning", annotation: ptr.To("soon"), want: 2 * time.Minute, wantWarning: true},
		{name: "negative falls back with a warning", annotation: ptr.To("-5s"), want: 2 * time.Minute, wantWarning: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &testv1alpha1.Widget{}
			if tt.annotation != nil {
				w.Annotations = map[string]string{commonv1alpha1.AnnotationPollInterval: *tt.annotation}
			}
			got, warning := r.pollInterval(w)
			if got != tt.want {
				t.Errorf("interval = %s, want %s", got, tt.want)
			}
			if (warning != "") != tt.wantWarning {
				t.Errorf("warning = %q, want a warning: %v", warning, tt.wantWarning)
			}
		})
	}
}

func TestJitterStaysWithinTenPercent(t *testing.T) {
	for range 1000 {
		got := jitter(time.Minute)
		if got < time.Minute || got > time.Minute+6*time.Second {
			t.Fatalf("jitter(1m) = %s, want within [1m, 1m6s]", got)
		}
	}
	if jitter(0) != 0 {
		t.Fatal("jitter(0) must stay 0 (no requeue)")
	}
}

func TestTerminalGateOpensOnSpecOrAnnotationChange(t *testing.T) {
	base := func() *testv1alpha1.Widget {
		return &testv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{
			Name: "w", Namespace: "ns", UID: "u1", Generation: 3,
			Annotations: map[string]string{"a": "1"},
		}}
	}
	tests := []struct {
		name       string
		change     func(*testv1alpha1.Widget)
		wantBlocks bool
	}{
		{name: "nothing changed", change: func(*testv1alpha1.Widget) {}, wantBlocks: true},
		{name: "spec changed", change: func(w *testv1alpha1.Widget) { w.Generation = 4 }},
		{name: "annotation added", change: func(w *testv1alpha1.Widget) { w.Annotations["tether.dev/allow"] = "true" }},
		{name: "annotation value changed", change: func(w *testv1alpha1.Widget) { w.Annotations["a"] = "2" }},
		{name: "recreated under the same name", change: func(w *testv1alpha1.Widget) { w.UID = "u2" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate := newTerminalGate()
			w := base()
			req := reqFor(w)
			gate.record(req, w)
			tt.change(w)
			if got := gate.blocks(req, w); got != tt.wantBlocks {
				t.Errorf("blocks = %v, want %v", got, tt.wantBlocks)
			}
			gate.clear(req)
			if gate.blocks(req, base()) {
				t.Error("a cleared gate still blocks")
			}
		})
	}
}

func reqFor(w *testv1alpha1.Widget) ctrl.Request {
	return ctrl.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: w.Name}}
}

func TestNextBackoffDoublesUpToTheCap(t *testing.T) {
	o := Options{MinBackoff: time.Second, MaxBackoff: 5 * time.Minute}
	tests := []struct {
		requeues int
		want     time.Duration
	}{
		{0, time.Second}, {1, 2 * time.Second}, {3, 8 * time.Second}, {8, 256 * time.Second}, {9, 5 * time.Minute}, {60, 5 * time.Minute},
	}
	for _, tt := range tests {
		if got := nextBackoff(o, tt.requeues); got != tt.want {
			t.Errorf("nextBackoff after %d requeues = %s, want %s", tt.requeues, got, tt.want)
		}
	}
}

func TestUserAnnotationChangedIgnoresTethersOwnNote(t *testing.T) {
	withAnnotations := func(a map[string]string) *testv1alpha1.Widget {
		return &testv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Annotations: a}}
	}
	tests := []struct {
		name     string
		old, new map[string]string
		want     bool
	}{
		{name: "create-started written", old: nil, new: map[string]string{commonv1alpha1.AnnotationCreateStarted: "t"}},
		{name: "create-started rewritten", old: map[string]string{commonv1alpha1.AnnotationCreateStarted: "t1"},
			new: map[string]string{commonv1alpha1.AnnotationCreateStarted: "t2"}},
		{name: "user pauses", old: nil, new: map[string]string{commonv1alpha1.AnnotationReconcile: "paused"}, want: true},
		{name: "user changes the poll interval", old: map[string]string{commonv1alpha1.AnnotationPollInterval: "1m"},
			new: map[string]string{commonv1alpha1.AnnotationPollInterval: "2m"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := event.UpdateEvent{ObjectOld: withAnnotations(tt.old), ObjectNew: withAnnotations(tt.new)}
			if got := userAnnotationChanged().Update(e); got != tt.want {
				t.Errorf("wakes = %v, want %v", got, tt.want)
			}
		})
	}
}
