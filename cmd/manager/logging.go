package main

import (
	"slices"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	ctrlzap "sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// newLogger is the manager's logger: controller-runtime's zap logger, set
// by its --zap-* flags, whose loggers encode the fields they are given
// only when they write an entry (lazyFields).
func newLogger(opts *ctrlzap.Options) logr.Logger {
	raw := ctrlzap.NewRaw(ctrlzap.UseFlagOptions(opts))
	return zapr.NewLogger(raw.WithOptions(zap.WrapCore(withLazyFields)))
}

// lazyFields keeps the fields a logger is given (logr's WithValues, zap's
// With) and hands them to the core it wraps only when an entry is written.
// Every reconcile's logger is given its fields in three steps (the
// controller and the object, then the reconcile's id, by controller-runtime;
// the behaviour, by the generic reconciler), and zap's JSON encoder encodes
// them at each step into a buffer of its own, whether anything is logged or
// not: a quarter of all the manager allocated during the bench's figure 2.
// zap's own WithLazy is lazy for one step only: a second With encodes the
// first one's fields.
type lazyFields struct {
	zapcore.Core
	fields []zapcore.Field
}

func withLazyFields(core zapcore.Core) zapcore.Core { return &lazyFields{Core: core} }

// With keeps fields after the ones already kept; the clip makes each child
// copy them, so siblings never share an array.
func (c *lazyFields) With(fields []zapcore.Field) zapcore.Core {
	return &lazyFields{Core: c.Core, fields: append(slices.Clip(c.fields), fields...)}
}

// Check hands the entry, when its level is enabled, to the wrapped core
// given the kept fields.
func (c *lazyFields) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !c.Enabled(e.Level) {
		return ce
	}
	return c.withFields().Check(e, ce)
}

func (c *lazyFields) Write(e zapcore.Entry, fields []zapcore.Field) error {
	return c.withFields().Write(e, fields)
}

// withFields is the wrapped core given the kept fields.
func (c *lazyFields) withFields() zapcore.Core {
	if len(c.fields) == 0 {
		return c.Core
	}
	return c.Core.With(c.fields)
}
