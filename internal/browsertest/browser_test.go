package browsertest

import (
	"strings"
	"testing"
)

// verdictTB records whether a check failed or skipped the test.
type verdictTB struct {
	testing.TB
	verdict, msg string
}

func (v *verdictTB) Helper()           {}
func (v *verdictTB) Fatal(args ...any) { v.verdict, v.msg = "fail", args[0].(string) }
func (v *verdictTB) Skip(args ...any)  { v.verdict, v.msg = "skip", args[0].(string) }

func TestMissingChromiumFailsOnlyInCI(t *testing.T) {
	for _, tc := range []struct{ ci, want string }{{"true", "fail"}, {"", "skip"}} {
		t.Setenv("CI", tc.ci)
		v := &verdictTB{TB: t}
		requireChromium(v, "/nonexistent/chromium")
		if v.verdict != tc.want || !strings.Contains(v.msg, "make browser-deps") {
			t.Errorf("CI=%q: %s %q, want %s with a hint to run make browser-deps", tc.ci, v.verdict, v.msg, tc.want)
		}
	}
}
