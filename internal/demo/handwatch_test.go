package demo

import (
	"testing"
	"time"
)

// TestMillis: a correction pushed by a CLIP v2 bridge takes milliseconds;
// the page shows them to a tenth.
func TestMillis(t *testing.T) {
	for _, c := range []struct {
		took time.Duration
		want float64
	}{
		{3400 * time.Microsecond, 3.4},
		{412 * time.Millisecond, 412},
		{2170 * time.Millisecond, 2170},
	} {
		if got := millis(c.took); got != c.want {
			t.Errorf("millis(%s) = %v, want %v", c.took, got, c.want)
		}
	}
}
