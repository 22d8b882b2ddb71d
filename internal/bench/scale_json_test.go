package bench

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestScaleJSONHasReadableDurations(t *testing.T) {
	raw, err := json.Marshal(FullScale())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"outage":"5m0s"`, `"ddbPoll":"45s"`, `"tables":1000`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("%s lacks %s", raw, want)
		}
	}
}
