package bridge

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// The bridge's answers to commands, as errors: a refusal of part of a
// command, and the failure of one nobody waited for, kept for the next
// pass of the object that asked.

// failure is the bridge's refusal of a command nobody waited for, with the
// state that command wanted.
type failure struct {
	fullKey string
	err     error
}

// takeFailureOf removes key's remembered failure from failed and returns its
// error if it was for the command fullKey; callers hold s.mu.
func takeFailureOf(failed map[types.NamespacedName]failure, key types.NamespacedName, fullKey string) error {
	f, ok := failed[key]
	delete(failed, key)
	if !ok || f.fullKey != fullKey {
		return nil
	}
	return f.err
}

// refusedError is the first attribute the bridge refused, as an error.
func refusedError(res wire.Result) error {
	if len(res.Refused) == 0 {
		return nil
	}
	r := res.Refused[0]
	return &wire.BridgeError{Type: r.Type, Address: r.Param, Description: r.Description}
}
