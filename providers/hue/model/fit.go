package model

import "fmt"

// What a HueLight's pass makes of its wanted state and its bulb, in one
// step: fitted to what the bulb can show (projection.go), without what the
// bridge refused with the same value (refusals.go), compared with what the
// bulb shows (diff.go), with the notes its Ready condition carries.

// Known is a bulb as Tether knows it: the last read with what the bridge
// accepted since (Light), what the bridge refused for it by parameter, and
// the attributes the bridge does not report for it, known only from what
// it accepted.
type Known struct {
	Light
	Refused map[string]Refused
	Assumed []string
}

// Fitted is a wanted state made to fit a bulb, and what to send for it.
type Fitted struct {
	// Want is the wanted state projected onto the bulb: what is watched
	// for drift.
	Want Desired
	// Full is the whole state to send, without what the bridge refused:
	// what a group command or a temporary scene sends, and what a command
	// in line is for.
	Full StateBody
	// Diff is what to send for the bulb to show it; nil when it does.
	Diff *Diff
	// Refused names what is not sent again; Notes what the bulb shows
	// instead and what Tether takes as shown without seeing it.
	Refused, Notes []string
}

// Fit fits want to the bulb k and says what to send.
func Fit(want Desired, k Known) Fitted {
	p := Project(want, k.Light)
	send, refused := WithoutRefused(p.Want, k.Refused)
	return Fitted{Want: p.Want, Full: FullBody(send), Diff: Compare(send, k.State), Refused: refused,
		Notes: append(p.Notes, assumedNotes(send, k.Assumed)...)}
}

// assumedNotes names the attributes want sets that the bridge does not
// report for the bulb (assumed): Tether knows them only from what the
// bridge accepted, and cannot see them change.
func assumedNotes(want Desired, assumed []string) []string {
	full := FullBody(want)
	var notes []string
	for _, p := range assumed {
		if value := full.Value(p); value != "" {
			notes = append(notes, fmt.Sprintf("the bridge does not report %s for this bulb: it accepted %s, which Tether takes as shown",
				specField(p), value))
		}
	}
	return notes
}
