package reconciler

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tether-dev/tether/internal/repo"
	"github.com/tether-dev/tether/providers"
)

// Every behaviour a pass can end in, one row each, decided without an API
// server: what the status says, which event, when the next look is, and
// what becomes of the backoff, the stall breaker and the terminal gate.
// docs/how-it-works.md's table is these rows.
func TestDecide(t *testing.T) {
	const poll, afterWrite = 2 * time.Minute, time.Second
	base := pass{Generation: 3, Poll: poll, AfterWrite: afterWrite, Diff: "size 1 -> 2", StallKey: "size 1 -> 2"}
	with := func(change func(*pass)) pass {
		p := base
		change(&p)
		return p
	}
	match := providers.Matches()
	unconfirmed := providers.Matches()
	unconfirmed.Unconfirmed, unconfirmed.NextLook = true, 5*time.Second
	transition := providers.Matches()
	transition.Available, transition.Reason, transition.NextLook = false, "Updating", 10*time.Second
	updated := &note{Type: corev1.EventTypeNormal, Reason: ReasonUpdated, Action: "Update", Note: "updated: size 1 -> 2"}
	for _, tc := range []struct {
		name string
		pass pass
		want decision
	}{
		{"a match", with(func(p *pass) { p.Stage, p.Obs = stageObserve, match }),
			decision{Behaviour: Matched, Status: statusObserved, Obs: match, After: poll, Jitter: true, Backoff: backoffReset, Stall: stallSettle, Gate: gateOpen}},
		{"a match not yet read back", with(func(p *pass) { p.Stage, p.Obs = stageObserve, unconfirmed }),
			decision{Behaviour: Matched, Status: statusObserved, Obs: unconfirmed, After: 5 * time.Second, Jitter: true, Backoff: backoffReset, Gate: gateOpen}},
		{"a match in transition", with(func(p *pass) { p.Stage, p.Obs = stageObserve, transition }),
			decision{Behaviour: Matched, Status: statusObserved, Obs: transition, After: 10 * time.Second, Jitter: true, Backoff: backoffReset, Stall: stallSettle, Gate: gateOpen}},
		{"a wait", with(func(p *pass) {
			p.Stage, p.Obs = stageObserve, providers.Waiting(providers.Wait{Reason: "Conflict", Message: "held by another", For: time.Minute})
		}), decision{Behaviour: Waiting, Status: statusWaiting, Reason: "Conflict", Message: "held by another", After: time.Minute, Jitter: true, Backoff: backoffReset, Gate: gateOpen}},
		{"a wait for the poll", with(func(p *pass) { p.Stage, p.Obs = stageObserve, providers.Waiting(providers.Wait{Reason: "Creating"}) }),
			decision{Behaviour: Waiting, Status: statusWaiting, Reason: "Creating", After: poll, Jitter: true, Backoff: backoffReset, Gate: gateOpen}},
		{"a quiet wait", with(func(p *pass) {
			p.Stage, p.Obs = stageObserve, providers.Waiting(providers.Wait{Quiet: true, For: 300 * time.Millisecond})
		}),
			decision{Behaviour: Held, After: 300 * time.Millisecond, Backoff: backoffReset}},
		{"a budget spent", with(func(p *pass) {
			p.Stage, p.Err = stageObserve, providers.Defer(2*time.Second, "AccountBudget")
		}), decision{Behaviour: Deferred, Reason: "AccountBudget", After: 2 * time.Second}},
		{"created", with(func(p *pass) { p.Stage = stageCreate }),
			decision{Behaviour: Created, Status: statusWritten, Reason: providers.ReasonCreating, Message: "created; waiting to observe it",
				Event: &note{Type: corev1.EventTypeNormal, Reason: ReasonCreated, Action: "Create", Note: "created the external resource"},
				After: afterWrite, Jitter: true, Backoff: backoffReset, Gate: gateOpen}},
		{"updated", with(func(p *pass) { p.Stage = stageUpdate }),
			decision{Behaviour: Updated, Status: statusWritten, Reason: providers.ReasonUpdating, Message: "sent: size 1 -> 2", Event: updated,
				After: afterWrite, Jitter: true, Backoff: backoffReset, Stall: stallRecord, StallKey: "size 1 -> 2", Gate: gateOpen}},
		{"drift corrected", with(func(p *pass) { p.Stage, p.WasReady = stageUpdate, true }),
			decision{Behaviour: Updated, Status: statusWritten, Reason: providers.ReasonUpdating, Message: "sent: size 1 -> 2",
				Event: &note{Type: corev1.EventTypeNormal, Reason: ReasonDriftCorrected, Action: "Update", Note: "corrected drift: size 1 -> 2"},
				After: afterWrite, Jitter: true, Backoff: backoffReset, Stall: stallRecord, StallKey: "size 1 -> 2", Gate: gateOpen, Drift: true}},
		{"handed to a line", with(func(p *pass) {
			p.Stage, p.Err = stageUpdate, &providers.HandedError{Reason: "Throttled", Message: "in line", For: 4 * time.Second}
		}), decision{Behaviour: Handed, Status: statusFailed, Reason: "Throttled", Message: "in line", Event: updated, After: 4 * time.Second,
			Backoff: backoffReset, Stall: stallRecord, StallKey: "size 1 -> 2"}},
		{"handed, known in a moment", with(func(p *pass) {
			p.Stage, p.Err = stageUpdate, &providers.HandedError{Quiet: true, For: 200 * time.Millisecond}
		}), decision{Behaviour: HandedQuietly, Event: updated, After: 200 * time.Millisecond, Backoff: backoffReset, Stall: stallRecord, StallKey: "size 1 -> 2"}},
		{"pending", with(func(p *pass) {
			p.Stage, p.Err = stageDelete, providers.Pendingf(5*time.Second, "Deleting", "deleting table t")
		}),
			decision{Behaviour: Pending, Status: statusFailed, Reason: "Deleting", Message: "deleting table t", After: 5 * time.Second, Backoff: backoffReset}},
		{"a fault", with(func(p *pass) {
			p.Stage, p.Err = stageObserve, providers.RetryAfter(10*time.Second, "Throttled", errors.New("slow down"))
		}), decision{Behaviour: Retrying, Status: statusFailed, Reason: "Throttled", Message: "slow down",
			Event: &note{Type: corev1.EventTypeWarning, Reason: "Throttled", Action: "Observe", Note: "Observe failed: slow down", OnChange: true},
			After: 10 * time.Second, Backoff: backoffHint}},
		{"a spec that cannot work", with(func(p *pass) { p.Stage, p.Err = stageCreate, providers.Terminalf("InvalidSpec", "no such size") }),
			decision{Behaviour: Stopped, Status: statusStalled, Reason: "InvalidSpec", Message: "no such size",
				Event: &note{Type: corev1.EventTypeWarning, Reason: "InvalidSpec", Action: "Create", Note: "Create failed: no such size", OnChange: true},
				After: poll, Jitter: true, Backoff: backoffReset, Gate: gateClose}},
		{"the stall breaker", with(func(p *pass) { p.Stage, p.Obs, p.SentTimes = stageObserve, providers.Differs(nil), 3 }),
			decision{Behaviour: StallBroken, Status: statusStalled, Reason: providers.ReasonStalled,
				Message: `sent "size 1 -> 2" 3 times for generation 3 with no visible effect: not sent again until the spec changes or it is changed from outside`,
				Event: &note{Type: corev1.EventTypeWarning, Reason: providers.ReasonStalled, Action: "Update",
					Note: `sent "size 1 -> 2" 3 times for generation 3 with no visible effect: not sent again until the spec changes or it is changed from outside`, OnChange: true},
				After: poll, Jitter: true, Backoff: backoffReset, Gate: gateOpen}},
		{"any other error", with(func(p *pass) { p.Stage, p.Err = stageConnect, errors.New("boom") }),
			decision{Behaviour: Failed, Status: statusFailed, Reason: "ConnectFailed", Message: "boom",
				Event:   &note{Type: corev1.EventTypeWarning, Reason: "ConnectFailed", Action: "Connect", Note: "Connect failed: boom", OnChange: true},
				Backoff: backoffQueue, Err: errors.New("boom")}},
		{"a stopped object that matches", with(func(p *pass) { p.Stage, p.Stopped, p.Obs = stageObserve, true, match }),
			decision{Behaviour: Recovered, Status: statusObserved, Obs: match, After: poll, Jitter: true, Backoff: backoffReset, Stall: stallSettle, Gate: gateOpen,
				Event: &note{Type: corev1.EventTypeNormal, Reason: ReasonRecovered, Action: "Observe", Note: "the external resource matches the spec: the last failure is over"}}},
		{"a stopped object that does not", with(func(p *pass) { p.Stage, p.Stopped, p.Obs = stageObserve, true, providers.Differs(nil) }),
			decision{Behaviour: StillStopped, After: poll, Jitter: true}},
		{"a stopped object not read", with(func(p *pass) { p.Stage, p.Stopped, p.Err = stageObserve, true, errors.New("offline") }),
			decision{Behaviour: StillStopped, After: poll, Jitter: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.pass)
			if (got.Err == nil) != (tc.want.Err == nil) || (got.Err != nil && got.Err.Error() != tc.want.Err.Error()) {
				t.Fatalf("error %v, want %v", got.Err, tc.want.Err)
			}
			got.Err, tc.want.Err = nil, nil
			if got.Event != nil && tc.want.Event != nil && *got.Event != *tc.want.Event {
				t.Fatalf("event %+v, want %+v", *got.Event, *tc.want.Event)
			}
			if (got.Event == nil) != (tc.want.Event == nil) {
				t.Fatalf("event %+v, want %+v", got.Event, tc.want.Event)
			}
			got.Event, tc.want.Event = nil, nil
			if got != tc.want {
				t.Fatalf("decision\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// docs/how-it-works.md lists every behaviour, each in a row of its table
// "What a pass can end in", and no other.
func TestEveryBehaviourIsInTheDocs(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "how-it-works.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\|").FindAllStringSubmatch(string(page), -1) {
		documented[m[1]] = true
	}
	all := []Behaviour{Matched, Waiting, Held, Deferred, Created, Updated, Handed, HandedQuietly, Pending, Retrying, Stopped,
		StallBroken, Failed, Recovered, StillStopped}
	for _, b := range all {
		if !documented[string(b)] {
			t.Errorf("docs/how-it-works.md has no row for %s", b)
		}
		delete(documented, string(b))
	}
	for name := range documented {
		t.Errorf("docs/how-it-works.md has a row for %s, which is no behaviour", name)
	}
}
