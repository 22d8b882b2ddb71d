package hue

import (
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// Every request a bridge client sends counts in tether_external_calls_total:
// wire tells of each (CountCall), and this names its result.
func init() { wire.CountCall = countCall }

func countCall(operation string, err error) {
	providers.CountExternalCall("hue", operation, callResult(err))
}

// callResult names a call's outcome for the external-calls metric: an
// overloaded bridge (error 901, HTTP 503) is pushing back, like a throttle.
func callResult(err error) string {
	switch {
	case err == nil:
		return providers.ResultOK
	case wire.ErrorType(err) == wire.TypeInternal:
		return providers.ResultThrottled
	default:
		return providers.ResultError
	}
}
