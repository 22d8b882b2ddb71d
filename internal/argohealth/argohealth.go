// Package argohealth runs an Argo CD resource health check (a Lua script, as
// argocd-cm's resource.customizations.health.<group>_<kind> holds it) over
// an object the way Argo CD runs one (util/lua/lua.go in Argo CD's
// repository): with the Lua interpreter Argo CD embeds
// (github.com/yuin/gopher-lua), the standard libraries skipped and only the
// package, base and table libraries opened, plus Argo CD's "safe" os
// library (time and date alone, reachable through require("os")); the
// object as the global obj; a one-second limit; and the answer read from
// the returned table. A script that calls string.format or math.floor
// therefore fails here as it fails in Argo CD (unless its argocd-cm entry
// sets useOpenLibs, which Tether's do not).
package argohealth

import (
	"context"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The health statuses Argo CD accepts from a script.
const (
	Healthy     = "Healthy"
	Progressing = "Progressing"
	Degraded    = "Degraded"
	Suspended   = "Suspended"
	Missing     = "Missing"
	Unknown     = "Unknown"
)

// InvalidStatus is the message Argo CD shows, with Unknown, when a script
// returns a status it does not know.
const InvalidStatus = "Lua returned an invalid health status"

// timeout bounds a script, as Argo CD bounds each Lua run.
const timeout = time.Second

// Evaluate runs script with obj (an object as decoded from JSON:
// map[string]any, []any, string, bool, float64 or int64) and returns the
// health Argo CD would show.
func Evaluate(script string, obj map[string]any) (status, message string, err error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.OsLibName, openSafeOs}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return "", "", err
		}
	}
	l.PreloadModule(lua.OsLibName, loadSafeOs)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return "", "", err
	}
	switch answer := l.Get(-1).(type) {
	case *lua.LTable:
		status = lua.LVAsString(answer.RawGetString("status"))
		message = lua.LVAsString(answer.RawGetString("message"))
	case *lua.LNilType:
		// Argo CD reads no answer as an empty health.
		return "", "", nil
	default:
		return "", "", fmt.Errorf("expect table output from Lua script, not %s", answer.Type())
	}
	switch status {
	case Healthy, Progressing, Degraded, Suspended, Missing, Unknown:
		return status, message, nil
	}
	return Unknown, InvalidStatus, nil
}

// openSafeOs is what Argo CD opens under the os library's name: it
// registers its two functions into the table module, so the global os stays
// nil (and table.time, table.date exist); scripts reach them with
// require("os").
func openSafeOs(l *lua.LState) int {
	l.Push(l.RegisterModule(lua.TabLibName, safeOs))
	return 1
}

// loadSafeOs is the module require("os") loads.
func loadSafeOs(l *lua.LState) int {
	l.Push(l.SetFuncs(l.NewTable(), safeOs))
	return 1
}

// safeOs are the os functions Argo CD lets scripts call: the time now (or of
// a date table) and a date in UTC or local time. Tether's checks call
// neither; they are here so that the harness refuses exactly what Argo CD
// refuses.
var safeOs = map[string]lua.LGFunction{
	"time": func(l *lua.LState) int {
		t := time.Now()
		if l.GetTop() > 0 {
			tbl := l.CheckTable(1)
			field := func(k string, def int) int {
				if n, ok := tbl.RawGetString(k).(lua.LNumber); ok {
					return int(n)
				}
				return def
			}
			t = time.Date(field("year", -1), time.Month(field("month", -1)), field("day", -1),
				field("hour", 12), field("min", 0), field("sec", 0), 0, time.Local)
		}
		l.Push(lua.LNumber(t.Unix()))
		return 1
	},
	"date": func(l *lua.LState) int {
		t := time.Now()
		if l.GetTop() >= 2 {
			t = time.Unix(l.CheckInt64(2), 0)
		}
		if l.GetTop() >= 1 && len(l.CheckString(1)) > 0 && l.CheckString(1)[0] == '!' {
			t = t.UTC()
		}
		l.Push(lua.LString(t.Format(time.RFC3339)))
		return 1
	},
}

// toLua turns a decoded JSON value into Lua's: objects and arrays become
// tables (arrays from index 1), numbers LNumber.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := l.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	case []any:
		t := l.NewTable()
		for i, e := range v {
			t.RawSetInt(i+1, toLua(l, e))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	}
	return lua.LString(fmt.Sprint(v))
}
