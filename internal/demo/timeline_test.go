package demo

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"

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
			"Updated", "hallway: brightness 254 → 40"},
		{"drift put back", ready, lightWithReady(2, metav1.ConditionFalse, "Updating", "sent: on: false -> true", 2),
			"DriftCorrected", "hallway: put back: switched on"},
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
		{"switched off", on, huesim.LightState{On: false, Bri: 254, ColorMode: "ct", CT: 366}, "on → off"},
		{"dimmed and coloured", on, huesim.LightState{On: true, Bri: 25, ColorMode: "xy", XY: [2]float64{0.675, 0.322}},
			"brightness 254 → 25, colour ct 366 → xy [0.675, 0.322]"},
		{"reachability is not a hand's change", on, huesim.LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366, Reachable: true}, ""},
		{"an effect stopped", huesim.LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366, V2Effect: "candle"},
			huesim.LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366, V2Effect: "no_effect"}, "effect candle → none"},
		{"none is none however the bridge says it", on, huesim.LightState{On: true, Bri: 254, ColorMode: "ct", CT: 366, V2Effect: "no_effect"}, ""},
	}
	for _, c := range cases {
		if got := stateChange(c.a, c.b); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPlainChanges: a write's difference in the audience's words, one
// change after the other, a group's members one by one; never "xy xy".
func TestPlainChanges(t *testing.T) {
	for _, c := range []struct{ diff, want string }{
		{"on: false -> true, brightness: 127 -> 254", "switched on, brightness 127 → 254"},
		{"on: true -> false", "switched off"},
		{"xy: xy [0.6743, 0.3211] -> [0.3, 0.3]", "colour xy [0.6743, 0.3211] → xy [0.3, 0.3]"},
		{"xy: ct 366 -> [0.68, 0.31]", "colour ct 366 → xy [0.68, 0.31]"},
		{"colorTemperature: xy [0.4089, 0.5179] -> 370", "colour xy [0.4089, 0.5179] → ct 370"},
		{"kitchen (on: false -> true, brightness: 127 -> 120); desk (on: false -> true, brightness: 127 -> 120)",
			"kitchen (switched on, brightness 127 → 120); desk (switched on, brightness 127 → 120)"},
		{"lights: [kitchen] -> [kitchen, desk]", "lights [kitchen] → [kitchen, desk]"},
		{"on: false -> true, effect: no_effect -> candle", "switched on, plays candle"},
		{"effect: unknown -> fire", "plays fire"},
		{"effect: candle -> no_effect", "stops candle"},
	} {
		if got := plainChanges(c.diff); got != c.want {
			t.Errorf("plainChanges(%q) = %q, want %q", c.diff, got, c.want)
		}
	}
}

// TestAWarningOfManyObjectsIsOneLine: a bridge going offline makes every
// object on it warn with the same words; the timeline shows one line that
// names them all.
func TestAWarningOfManyObjectsIsOneLine(t *testing.T) {
	tl := newTimeline(newNotifier())
	at := time.Now()
	warn := func(kind, name, phase string, offset time.Duration) {
		ev := &eventsv1.Event{Type: corev1.EventTypeWarning, Reason: "BridgeUnreachable",
			Note:      phase + " failed: bridge home is unreachable: connection refused",
			Regarding: corev1.ObjectReference{Kind: kind, Namespace: "entrance", Name: name}, EventTime: metav1.NewMicroTime(at.Add(offset))}
		tl.add(eventEntry(ev, 1, name))
	}
	warn("HueLight", "hallway-light", "Connect", 0)
	warn("HueGroup", "living-room", "Connect", time.Second)
	warn("HueLight", "porch-light", "Connect", foldWindow+time.Second) // a later outage
	got := tl.list()
	if len(got) != 2 {
		t.Fatalf("%d lines, want 2: %+v", len(got), got)
	}
	if got[0].Text != "bridge home is unreachable: connection refused" || len(got[0].Others) != 1 {
		t.Errorf("first line %q, others %v", got[0].Text, got[0].Others)
	}
	if got[1].Text != "porch-light: bridge home is unreachable: connection refused" {
		t.Errorf("second line %q", got[1].Text)
	}
}

// TestAPlanIsTickedOff: a table's pending plan becomes a checklist whose
// steps are ticked as they leave the plan, all ticked once it is done; a
// new generation's plan starts a new list.
func TestAPlanIsTickedOff(t *testing.T) {
	p := newPlans()
	table := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "orders", Generation: 3}}
	key := types.NamespacedName{Namespace: "default", Name: "orders"}
	steps := func(pending ...string) []planStep {
		table.Status.PendingPlan = pending
		p.seen(table)
		return p.checklist(key)
	}
	if got := steps(); len(got) != 0 {
		t.Fatalf("no plan: %v", got)
	}
	want := func(got []planStep, w ...planStep) {
		t.Helper()
		if !slices.Equal(got, w) {
			t.Errorf("checklist %v, want %v", got, w)
		}
	}
	want(steps("create index by-status", "create index by-date"),
		planStep{"create index by-status", false}, planStep{"create index by-date", false})
	want(steps("create index by-date"), planStep{"create index by-status", true}, planStep{"create index by-date", false})
	want(steps(), planStep{"create index by-status", true}, planStep{"create index by-date", true})
	table.Generation = 4
	want(steps("switch billing to PROVISIONED"), planStep{"switch billing to PROVISIONED", false})
}

// TestWriteEventEntry: a HueLight's write, which its status no longer
// records (one status write per change, when the bridge shows it), is
// worded from its event as writeEntry words a table's from its status.
func TestWriteEventEntry(t *testing.T) {
	regarding := corev1.ObjectReference{Kind: "HueLight", Namespace: "entrance", Name: "hallway-light"}
	cases := []struct{ reason, note, want string }{
		{"Updated", "updated: on: false -> true, brightness: 127 -> 254", "hallway: switched on, brightness 127 → 254"},
		{"DriftCorrected", "corrected drift: on: false -> true", "hallway: put back: switched on"},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			ev := &eventsv1.Event{Reason: c.reason, Note: c.note, Type: corev1.EventTypeNormal, Regarding: regarding}
			e := writeEventEntry(ev, "hallway")
			if e.Text != c.want || e.Reason != c.reason || e.Object != "HueLight entrance/hallway-light" {
				t.Errorf("got %s %q on %s, want %s %q", e.Reason, e.Text, e.Object, c.reason, c.want)
			}
		})
	}
}
