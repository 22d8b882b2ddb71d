package demo

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/reconciler"
)

// timelineLength is how many entries the page keeps: a talk's worth.
const timelineLength = 60

// foldWindow is how long after a warning the same warning of other objects
// joins its line: a bridge that goes offline is one line however many
// objects wait for it.
const foldWindow = time.Minute

// entry is one line of the page's timeline.
type entry struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	// Source says who acted: "tether" (an event or a write of Tether's
	// objects) or "hand" (a bulb changed as with the Hue app, followed by
	// the bridge's push and Tether's correction: Loop).
	Source string `json:"source"`
	Type   string `json:"type"` // Normal or Warning
	Reason string `json:"reason,omitempty"`
	// Object names what the entry is about (Kind namespace/name); Others
	// are the further objects a folded warning is about.
	Object string   `json:"object,omitempty"`
	Others []string `json:"others,omitempty"`
	Text   string   `json:"text"`
	Loop   *loop    `json:"loop,omitempty"`

	// fold is what makes a later warning join this line.
	fold string
}

// loop is a hand change and what the control loop made of it, filled in
// as it happens: the bridge pushing the change (a CLIP v2 bridge's event
// stream) and Tether putting the bulb back.
type loop struct {
	Light string `json:"light"`
	// PushedMS is the time from the hand change to the bridge's push; nil
	// until the bridge pushed it (never, on a polled v1 bridge).
	PushedMS *float64 `json:"pushedMs,omitempty"`
	// TookMS is the time from the hand change to the bulb shown put back,
	// and PutBack what changed back, in words; nil and "" until then.
	TookMS  *float64 `json:"tookMs,omitempty"`
	PutBack string   `json:"putBack,omitempty"`
}

// timeline is the page's history.
type timeline struct {
	mu      sync.Mutex
	seq     int
	entries []entry
	changed *notifier
}

func newTimeline(changed *notifier) *timeline { return &timeline{changed: changed} }

// add appends e and returns its sequence number, or folds a warning into
// the line of the same warning of another object.
func (t *timeline) add(e entry) int {
	t.mu.Lock()
	defer t.changed.notify()
	defer t.mu.Unlock()
	if e.Type == "" {
		e.Type = corev1.EventTypeNormal
	}
	if e.fold != "" {
		for i := len(t.entries) - 1; i >= 0; i-- {
			old := &t.entries[i]
			if old.fold == e.fold && e.Time.Sub(old.Time) < foldWindow {
				old.Others = append(old.Others, e.Object)
				old.Text = e.fold
				return old.Seq
			}
		}
	}
	t.seq++
	e.Seq = t.seq
	t.entries = append(t.entries, e)
	if len(t.entries) > timelineLength {
		t.entries = t.entries[len(t.entries)-timelineLength:]
	}
	return e.Seq
}

// update changes the entry seq (still kept) in place.
func (t *timeline) update(seq int, change func(*entry)) {
	t.mu.Lock()
	defer t.changed.notify()
	defer t.mu.Unlock()
	for i := range t.entries {
		if t.entries[i].Seq == seq {
			change(&t.entries[i])
			return
		}
	}
}

// list returns copies of the entries in time order. Events reach the
// informer a little after they happen, so an entry may belong before one
// added earlier.
func (t *timeline) list() []entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]entry, len(t.entries))
	for i, e := range t.entries {
		if e.Loop != nil {
			l := *e.Loop
			e.Loop = &l
		}
		e.Others = append([]string(nil), e.Others...)
		out[i] = e
	}
	sortEntries(out)
	return out
}

func sortEntries(es []entry) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Time.Before(es[j].Time) })
}

// eventEntry words an event of a Tether object. A repeat of a series
// keeps the first occurrence's note (the recorder counts repeats instead of
// recording them), so it says only that it happened again. A warning is
// folded with the same warning of other objects (fold).
func eventEntry(ev *eventsv1.Event, count int32, subject string) entry {
	e := entry{Time: eventTime(ev), Source: "tether", Type: ev.Type, Reason: ev.Reason,
		Object: objectRef(ev.Regarding.Kind, ev.Regarding.Namespace, ev.Regarding.Name)}
	if count > 1 {
		e.Text = fmt.Sprintf("%s: %s again (%d times)", subject, ev.Reason, count)
		return e
	}
	note := plainNote(ev.Note)
	e.Text = subject + ": " + note
	if ev.Type == corev1.EventTypeWarning {
		e.fold = note
	}
	return e
}

// plainNote is an event's note without the reconciler's phase ("Connect
// failed: bridge home is unreachable" says only what matters).
func plainNote(note string) string {
	for _, phase := range []string{"Connect", "Observe", "Create", "Update", "Delete"} {
		if rest, ok := strings.CutPrefix(note, phase+" failed: "); ok {
			return rest
		}
	}
	return note
}

// sentPrefix starts the Ready message of an object whose change was just
// sent (controllers' markWritten): "sent: brightness: 254 -> 40".
const sentPrefix = "sent: "

// writeEntry words a write the controller made, as the object's status
// records it: "hallway: brightness 254 → 40". A write at a generation that
// was already Ready undid a change made outside (DriftCorrected), as the
// reconciler itself decides.
func writeEntry(was, now managed, subject string) (entry, bool) {
	before := meta.FindStatusCondition(was.Managed().Conditions, commonv1alpha1.Ready)
	after := meta.FindStatusCondition(now.Managed().Conditions, commonv1alpha1.Ready)
	if after == nil || after.Reason != providers.ReasonUpdating || !strings.HasPrefix(after.Message, sentPrefix) {
		return entry{}, false
	}
	if before != nil && before.Reason == after.Reason && before.Message == after.Message {
		return entry{}, false
	}
	e := entry{Time: time.Now(), Source: "tether", Reason: reconciler.ReasonUpdated,
		Object: objectRef(kindOf(now), now.GetNamespace(), now.GetName())}
	change := plainChanges(strings.TrimPrefix(after.Message, sentPrefix))
	if before != nil && before.Status == metav1.ConditionTrue && before.ObservedGeneration == now.GetGeneration() {
		e.Reason = reconciler.ReasonDriftCorrected
		change = "put back: " + change
	}
	e.Text = subject + ": " + change
	return e, true
}

// writeEventEntry words the event of a write ("updated: brightness: 254 ->
// 40", or "corrected drift: on: false -> true") as writeEntry words one
// read from the status.
func writeEventEntry(ev *eventsv1.Event, subject string) entry {
	e := entry{Time: eventTime(ev), Source: "tether", Type: ev.Type, Reason: ev.Reason,
		Object: objectRef(ev.Regarding.Kind, ev.Regarding.Namespace, ev.Regarding.Name)}
	_, diff, ok := strings.Cut(ev.Note, ": ")
	if !ok {
		e.Text = subject + ": " + ev.Note
		return e
	}
	change := plainChanges(diff)
	if ev.Reason == reconciler.ReasonDriftCorrected {
		change = "put back: " + change
	}
	e.Text = subject + ": " + change
	return e
}

// plainChanges words a write's difference as the audience reads it: "on:
// false -> true, brightness: 127 -> 254, xy: ct 366 -> [0.68, 0.31]"
// becomes "switched on, brightness 127 → 254, colour ct 366 → xy [0.68,
// 0.31]". A group's members are worded one by one ("kitchen (on: false ->
// true)").
func plainChanges(diff string) string {
	members := splitTop(diff, "; ")
	for i, m := range members {
		parts := splitTop(m, ", ")
		for j, p := range parts {
			parts[j] = plainChange(p)
		}
		members[i] = strings.Join(parts, ", ")
	}
	return strings.Join(members, "; ")
}

func plainChange(c string) string {
	if name, inner, ok := strings.Cut(c, " ("); ok && strings.HasSuffix(inner, ")") && !strings.Contains(name, ":") {
		return name + " (" + plainChanges(strings.TrimSuffix(inner, ")")) + ")"
	}
	field, change, ok := strings.Cut(c, ": ")
	if !ok {
		return strings.ReplaceAll(c, " -> ", " → ")
	}
	from, to, ok := strings.Cut(change, " -> ")
	if !ok {
		return field + " " + change
	}
	switch field {
	case "on":
		if to == "true" {
			return "switched on"
		}
		return "switched off"
	case "xy":
		return fmt.Sprintf("colour %s → xy %s", from, to)
	case "colorTemperature":
		return fmt.Sprintf("colour %s → ct %s", from, to)
	case "hue/saturation":
		return fmt.Sprintf("colour %s → hue/sat %s", from, to)
	case "effect":
		return effectChange(from, to)
	}
	return fmt.Sprintf("%s %s → %s", field, from, to)
}

// effectChange words a CLIP v2 effect's change: "plays candle", or "stops
// candle" for no_effect (the bridge's name for none).
func effectChange(from, to string) string {
	switch {
	case to != "no_effect":
		return "plays " + to
	case from == "no_effect" || from == "unknown":
		return "plays no effect"
	}
	return "stops " + from
}

// splitTop splits s at sep outside brackets and parentheses: "xy: ct 366
// -> [0.68, 0.31]" is one change.
func splitTop(s, sep string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}

// sceneEntry tells that a HueGroup now shows another scene: the bulbs
// change with one group command, which leaves no "sent:" in the status
// when it goes out at the group's next slot.
func sceneEntry(was, now *huev1alpha1.HueGroup) (entry, bool) {
	if now.Status.ActiveScene == "" || now.Status.ActiveScene == was.Status.ActiveScene {
		return entry{}, false
	}
	return entry{Time: time.Now(), Source: "tether", Reason: "SceneShown",
		Object: objectRef("HueGroup", now.Namespace, now.Name),
		Text:   fmt.Sprintf("%s: shows scene %s", now.Spec.Name, now.Status.ActiveScene)}, true
}

// kindOf names an object's kind (the informers' objects carry no
// TypeMeta).
func kindOf(obj client.Object) string {
	switch obj.(type) {
	case *huev1alpha1.HueLight:
		return "HueLight"
	case *awsv1alpha1.DynamoDBTable:
		return "DynamoDBTable"
	case *huev1alpha1.HueBridge:
		return "HueBridge"
	case *huev1alpha1.HueGroup:
		return "HueGroup"
	case *huev1alpha1.HueScene:
		return "HueScene"
	}
	return obj.GetObjectKind().GroupVersionKind().Kind
}

// notifier wakes the page's streams after a change; wake-ups merge, so a
// burst of changes costs one snapshot per stream.
type notifier struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

func newNotifier() *notifier { return &notifier{subs: map[chan struct{}]struct{}{}} }

func (n *notifier) subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	n.mu.Lock()
	n.subs[ch] = struct{}{}
	n.mu.Unlock()
	return ch, func() {
		n.mu.Lock()
		delete(n.subs, ch)
		n.mu.Unlock()
	}
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for ch := range n.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
