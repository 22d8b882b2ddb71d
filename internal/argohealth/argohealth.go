// Package argohealth runs an Argo CD resource health check (a Lua script, as
// argocd-cm's resource.customizations.health.<group>_<kind> holds it) over
// an object, the way Argo CD does: with the Lua interpreter Argo CD embeds
// (github.com/yuin/gopher-lua), only the base, table, string and math
// libraries open, the object as the global obj, and a table with status and
// message as the answer.
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

// timeout bounds a script, as Argo CD bounds each Lua run.
const timeout = time.Second

// Evaluate runs script with obj (an object as decoded from JSON:
// map[string]any, []any, string, bool, float64 or int64) and returns the
// health it reports.
func Evaluate(script string, obj map[string]any) (status, message string, err error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	l.SetContext(ctx)
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return "", "", err
		}
	}
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return "", "", err
	}
	answer, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return "", "", fmt.Errorf("the script returned %s, not a table", l.Get(-1).Type())
	}
	status = lua.LVAsString(answer.RawGetString("status"))
	message = lua.LVAsString(answer.RawGetString("message"))
	switch status {
	case Healthy, Progressing, Degraded, Suspended, Missing, Unknown:
		return status, message, nil
	}
	return "", "", fmt.Errorf("the script returned the status %q, which Argo CD does not know", status)
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
