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
		{name: "base and table libraries", status: Healthy, message: "1,2",
			script: `local t = {}; for _, v in ipairs({1, 2}) do table.insert(t, tostring(v)) end; return {status = "Healthy", message = table.concat(t, ",")}`},
		{name: "the safe os library through require", status: Healthy, message: "number",
			script: `local os = require("os"); return {status = "Healthy", message = type(os.time())}`},
		{name: "a status Argo CD does not know", script: `return {status = "Fine"}`, status: Unknown, message: InvalidStatus},
		{name: "no answer", script: `return nil`},
		{name: "not a table", script: `return "Healthy"`, err: "expect table output"},
		{name: "no string library", script: `return {status = "Healthy", message = string.format("%d", 1)}`,
			err: "non-table object(nil) with key 'format'"},
		{name: "no method on strings either", script: `local s = "x"; return {status = "Healthy", message = s:upper()}`,
			err: "upper"},
		{name: "no math library", script: `return {status = "Healthy", message = tostring(math.floor(1.5))}`,
			err: "non-table object(nil) with key 'floor'"},
		{name: "no global os", script: `os.exit(1)`, err: "non-table object(nil) with key 'exit'"},
		{name: "no os.exit through require either", script: `require("os").exit(1)`, err: "attempt to call a non-function object"},
		{name: "no io library", script: `io.open("/etc/passwd")`, err: "non-table object(nil) with key 'open'"},
		{name: "a script that never ends", script: `while true do end`, err: "context deadline exceeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, message, err := Evaluate(c.script, obj)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want an error with %q, got %v (%q %q)", c.err, err, status, message)
				}
				return
			}
			if err != nil || status != c.status || message != c.message {
				t.Fatalf("got %q %q %v, want %q %q", status, message, err, c.status, c.message)
			}
		})
	}
}
