package providers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	cases := []struct {
		name string
		in   string
	}{
		{"short", "the bridge is unreachable"},
		{"at the limit", strings.Repeat("a", MaxMessageBytes)},
		{"over it", strings.Repeat("a", MaxMessageBytes+1)},
		{"far over it", strings.Repeat("a", 1<<20)},
		{"a character across the cut", strings.Repeat("a", MaxMessageBytes-4) + strings.Repeat("€", 10)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Truncate(tc.in)
			switch {
			case len(got) > MaxMessageBytes:
				t.Fatalf("%d bytes, over %d", len(got), MaxMessageBytes)
			case !utf8.ValidString(got):
				t.Fatal("cut inside a character")
			case len(tc.in) <= MaxMessageBytes && got != tc.in:
				t.Fatal("a message within the limit was changed")
			case len(tc.in) > MaxMessageBytes && !strings.HasSuffix(got, "..."):
				t.Fatal("a cut message is not marked")
			}
		})
	}
}
