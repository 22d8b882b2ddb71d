package argohealth

import (
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{"generation": int64(2)},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}
	cases := []struct {
		name, script, status, message, err string
	}{
		{name: "reads the object", status: Healthy, message: "generation 2, Ready True",
			script: `hs = {}; hs.status = "Healthy"; hs.message = "generation " .. obj.metadata.generation .. ", " ..
				obj.status.conditions[1].type .. " " .. obj.status.conditions[1].status; return hs`},
		{name: "a status Argo CD does not know", script: `return {status = "Fine"}`, err: "does not know"},
		{name: "no table", script: `return "Healthy"`, err: "not a table"},
		{name: "no os library", script: `os.exit(1)`, err: "non-table object(nil) with key 'exit'"},
		{name: "a script that never ends", script: `while true do end`, err: "context deadline exceeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, message, err := Evaluate(c.script, obj)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want an error with %q, got %v", c.err, err)
				}
				return
			}
			if err != nil || status != c.status || message != c.message {
				t.Fatalf("got %q %q %v, want %q %q", status, message, err, c.status, c.message)
			}
		})
	}
}
