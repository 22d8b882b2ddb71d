package demo

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

func lightWithReady(generation int64, status metav1.ConditionStatus, reason, message string, observed int64) *huev1alpha1.HueLight {
	l := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "entrance", Name: "hallway-light", Generation: generation},
		Spec: huev1alpha1.HueLightSpec{Name: "hallway"}}
	l.Status.Conditions = []metav1.Condition{{Type: commonv1alpha1.Ready, Status: status, Reason: reason, Message: message,
		ObservedGeneration: observed}}
	return l
}

// TestWriteEntry: a write shows once, in words, as Updated for a new spec
// and as DriftCorrected at a generation that was already Ready, as the
// reconciler decides.
func TestWriteEntry(t *testing.T) {
	ready := lightWithReady(2, metav1.ConditionTrue, "Available", "", 2)
	cases := []struct {
		name       string
		was, now   *huev1alpha1.HueLight
		wantReason string
		wantText   string
	}{
		{"a new spec sent", lightWithReady(3, metav1.ConditionTrue, "Available", "", 2),
			lightWithReady(3, metav1.ConditionFalse, "Updating", "sent: brightness: 254 -> 40", 3),
			"Updated", "hallway: brightness 254 -> 40"},
		{"drift put back", ready, lightWithReady(2, metav1.ConditionFalse, "Updating", "sent: on: false -> true", 2),
			"DriftCorrected", "hallway: put back on false -> true"},
		{"the same write seen again", lightWithReady(2, metav1.ConditionFalse, "Updating", "sent: on: false -> true", 2),
			lightWithReady(2, metav1.ConditionFalse, "Updating", "sent: on: false -> true", 2), "", ""},
		{"observed, no write", lightWithReady(2, metav1.ConditionFalse, "Updating", "sent: on: false -> true", 2), ready, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, ok := writeEntry(c.was, c.now, subjectOf(c.now))
			if ok != (c.wantReason != "") {
				t.Fatalf("entry = %v, %+v", ok, e)
			}
			if e.Reason != c.wantReason || e.Text != c.wantText {
				t.Errorf("got %s %q, want %s %q", e.Reason, e.Text, c.wantReason, c.wantText)
			}
			if ok && e.Object != "HueLight entrance/hallway-light" {
				t.Errorf("object %q", e.Object)
			}
		})
	}
}

func TestStateChange(t *testing.T) {
	on := huesim.LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366}
	cases := []struct {
		name string
		a, b huesim.LightState
		want string
	}{
		{"switched off", on, huesim.LightState{On: false, Bri: 254, ColorMode: "ct", CT: 366}, "on -> off"},
		{"dimmed and coloured", on, huesim.LightState{On: true, Bri: 25, ColorMode: "xy", XY: [2]float64{0.675, 0.322}},
			"brightness 254 -> 25, colour ct 366 -> xy [0.675, 0.322]"},
		{"reachability is not a hand's change", on, huesim.LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366, Reachable: true}, ""},
	}
	for _, c := range cases {
		if got := stateChange(c.a, c.b); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
