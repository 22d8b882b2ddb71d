package demo

import (
	"testing"
	"time"
)

// TestSeconds: a correction pushed by a CLIP v2 bridge takes milliseconds;
// the timeline must not print it as "0.00 s".
func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		took time.Duration
		want string
	}{
		{3400 * time.Microsecond, "3.4 ms"},
		{412 * time.Millisecond, "412.0 ms"},
		{time.Second, "1.00 s"},
		{2170 * time.Millisecond, "2.17 s"},
	} {
		if got := seconds(c.took); got != c.want {
			t.Errorf("seconds(%s) = %q, want %q", c.took, got, c.want)
		}
	}
}
