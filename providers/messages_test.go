package providers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncate: conditions' messages (Truncate) and events' notes
// (TruncateNote) are cut by one rule, each at its own limit: within the
// limit, at a character boundary, marked with "..."; a message within the
// limit is kept as it is.
func TestTruncate(t *testing.T) {
	for _, cut := range []struct {
		name  string
		fn    func(string) string
		limit int
	}{{"Truncate", Truncate, MaxMessageBytes}, {"TruncateNote", TruncateNote, MaxEventNoteBytes}} {
		limit := cut.limit
		cases := []struct {
			name string
			in   string
		}{
			{"short", "the bridge is unreachable"},
			{"at the limit", strings.Repeat("a", limit)},
			{"over it", strings.Repeat("a", limit+1)},
			{"far over it", strings.Repeat("a", 1<<20)},
			{"a character across the cut", strings.Repeat("a", limit-4) + strings.Repeat("€", 10)},
		}
		for _, tc := range cases {
			t.Run(cut.name+"/"+tc.name, func(t *testing.T) {
				got := cut.fn(tc.in)
				switch {
				case len(got) > limit:
					t.Fatalf("%d bytes, over %d", len(got), limit)
				case !utf8.ValidString(got):
					t.Fatal("cut inside a character")
				case len(tc.in) <= limit && got != tc.in:
					t.Fatal("a message within the limit was changed")
				case len(tc.in) > limit && !strings.HasSuffix(got, "..."):
					t.Fatal("a cut message is not marked")
				case len(tc.in) > limit && len(got) < limit-utf8.UTFMax-len("..."):
					t.Fatalf("cut to %d bytes, more than a character short of %d", len(got), limit)
				}
			})
		}
	}
}
