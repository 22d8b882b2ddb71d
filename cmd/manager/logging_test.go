package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	ctrlzap "sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// countedWith counts the With calls that reach the core it wraps: the
// fields encoded.
type countedWith struct {
	zapcore.Core
	withs *int
}

func (c countedWith) With(fields []zapcore.Field) zapcore.Core {
	*c.withs++
	return countedWith{Core: c.Core.With(fields), withs: c.withs}
}

func (c countedWith) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

// TestLoggersEncodeTheirFieldsOnlyWhenTheyWrite: a logger given fields in
// three steps, as a reconcile's is, hands them to the JSON core only when
// it writes an entry, once, and writes the same line as without lazyFields;
// an entry below the level, or none, encodes nothing; siblings keep their
// own fields.
func TestLoggersEncodeTheirFieldsOnlyWhenTheyWrite(t *testing.T) {
	steps := [][]zapcore.Field{
		{zap.String("controller", "huelight"), zap.String("namespace", "kitchen"), zap.String("name", "hob")},
		{zap.String("reconcileID", "4f0c")},
		{zap.String("behaviour", "Wait")},
	}
	lines := map[bool]string{}
	for _, lazy := range []bool{false, true} {
		var buf bytes.Buffer
		withs := 0
		var core zapcore.Core = countedWith{
			Core:  zapcore.NewCore(zapcore.NewJSONEncoder(zapcore.EncoderConfig{MessageKey: "msg"}), zapcore.AddSync(&buf), zapcore.InfoLevel),
			withs: &withs,
		}
		if lazy {
			core = withLazyFields(core)
		}
		log := zap.New(core)
		for _, fields := range steps {
			log = log.With(fields...)
		}
		sibling := log.With(zap.String("sibling", "a"))
		_ = log.With(zap.String("sibling", "b"))
		log.Debug("below the level")
		if lazy && withs != 0 {
			t.Fatalf("fields encoded %d times before anything was written", withs)
		}
		sibling.Info("queued")
		if lazy && withs != 1 {
			t.Fatalf("fields encoded %d times for one entry, want once", withs)
		}
		lines[lazy] = buf.String()
	}
	if lines[true] != lines[false] {
		t.Fatalf("lazily:\n%s\nat once:\n%s", lines[true], lines[false])
	}
	var entry map[string]string
	if err := json.Unmarshal([]byte(lines[true]), &entry); err != nil || entry["reconcileID"] != "4f0c" ||
		entry["behaviour"] != "Wait" || entry["sibling"] != "a" || entry["msg"] != "queued" {
		t.Fatalf("wrote %q (%v)", lines[true], err)
	}
}

// TestTheManagersLoggerKeepsFieldsLazily: the manager's logger is built
// with lazyFields outermost, and still writes at the flags' level.
func TestTheManagersLoggerKeepsFieldsLazily(t *testing.T) {
	var buf bytes.Buffer
	opts := ctrlzap.Options{DestWriter: &buf}
	log := newLogger(&opts).WithValues("controller", "dynamodbtable")
	raw := log.GetSink().(zapr.Underlier).GetUnderlying()
	if _, ok := raw.Core().(*lazyFields); !ok {
		t.Fatalf("the manager's core is a %T, not lazyFields", raw.Core())
	}
	log.V(1).Info("below the default level")
	log.Info("ready")
	var entry map[string]any
	if err := json.Unmarshal(buf.Bytes(), &entry); err != nil || entry["controller"] != "dynamodbtable" || entry["msg"] != "ready" {
		t.Fatalf("wrote %q (%v)", buf.String(), err)
	}
}
