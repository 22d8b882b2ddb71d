package hue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The retry policy: what the reconciler does with a bridge call's error.
// wire returns the protocol's own errors (a Hue error type, a refused
// certificate, an answer that is not Hue's, a connection that failed);
// Classify turns each into the reconciler's typed errors, with a reason and
// when to try again, and a message that names the bridge.

// Reasons of a bridge's answers, as Classify gives them.
const (
	ReasonBridgeUnreachable    = "BridgeUnreachable"
	ReasonBridgeBusy           = "BridgeBusy"
	ReasonBridgeProtocol       = "BridgeProtocolError"
	ReasonUnauthorized         = "Unauthorized"
	ReasonInvalidValue         = "InvalidValue"
	ReasonDeviceOff            = "DeviceOff"
	ReasonBridgeRejectedChange = "BridgeRejectedChange"
)

// Delays the adapter asks for. Unauthorized waits long: only re-pairing
// (deleting the credentials Secret and pressing the button) fixes it, and
// that wakes the bridge's objects anyway.
var (
	unreachableDelay  = 5 * time.Second
	busyDelay         = time.Second
	unauthorizedDelay = time.Minute
)

// Classify turns a bridge call's error into the reconciler's typed errors.
// bridge names the HueBridge for the messages.
func Classify(bridge string, err error) error {
	if err == nil {
		return nil
	}
	// Already classified (a spec refused before any call, a bridge not
	// found by discovery): as it is.
	if _, ok := providers.AsRetryAfter(err); ok {
		return err
	}
	if _, ok := providers.AsTerminal(err); ok {
		return err
	}
	// A refused certificate is retried slowly: a spec change (caBundle,
	// bridgeID, address) rebinds at once anyway.
	var certErr *wire.CertificateError
	if errors.As(err, &certErr) {
		return providers.RetryAfter(time.Minute, certErr.Reason, fmt.Errorf("bridge %s: %s", bridge, certErr.Detail))
	}
	switch wire.ErrorType(err) {
	case wire.TypeUnauthorized:
		return providers.RetryAfter(unauthorizedDelay, ReasonUnauthorized, fmt.Errorf(
			"bridge %s does not accept the stored username: delete the credentials Secret and press the link button to pair again", bridge))
	case wire.TypeInternal:
		return providers.RetryAfter(busyDelay, ReasonBridgeBusy, fmt.Errorf("bridge %s is overloaded: %w", bridge, err))
	case wire.TypeInvalidValue:
		return providers.Terminal(ReasonInvalidValue, fmt.Errorf("bridge %s refused a value: %w", bridge, err))
	case wire.TypeDeviceOff:
		return providers.RetryAfter(busyDelay, ReasonDeviceOff, fmt.Errorf("bridge %s: %w", bridge, err))
	case 0:
	default:
		return providers.RetryAfter(busyDelay, ReasonBridgeRejectedChange, fmt.Errorf("bridge %s: %w", bridge, err))
	}
	if wire.IsNetwork(err) {
		return providers.RetryAfter(unreachableDelay, ReasonBridgeUnreachable, &unreachableError{bridge: bridge, cause: err})
	}
	// Everything else is an answer the adapter could not read: a
	// wire.ProtocolError, JSON the client failed to decode (HTML from a proxy,
	// garbage), an error object without a type. Name the bridge and the problem, and
	// retry as for an unreachable bridge.
	var perr *wire.ProtocolError
	if errors.As(err, &perr) {
		return providers.RetryAfter(unreachableDelay, ReasonBridgeProtocol, fmt.Errorf("bridge %s: %w", bridge, err))
	}
	return providers.RetryAfter(unreachableDelay, ReasonBridgeProtocol,
		fmt.Errorf("bridge %s sent an answer that is not valid Hue v1 API: %w", bridge, err))
}

// unreachableError says in a few words that a bridge does not answer: it
// is the message of every object on that bridge, in conditions and events,
// so it names the bridge and the cause ("connection refused", "no answer in
// time"), not the request URL and the layers of the Go error. The error
// itself stays underneath for errors.Is and errors.As.
type unreachableError struct {
	bridge string
	cause  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("bridge %s is unreachable: %s", e.bridge, networkCause(e.cause))
}

func (e *unreachableError) Unwrap() error { return e.cause }

// networkCause is the innermost cause of a connection failure ("connection
// refused", "no such host"), or "no answer in time" for a timeout.
func networkCause(err error) string {
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return "no answer in time"
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}

// Reasons of a bridge's answers about rooms, zones and scenes.
const (
	ReasonRoomsNotSupported  = "RoomsNotSupported"
	ReasonLightInAnotherRoom = "LightInAnotherRoom"
)

// ClassifyRooms is Classify, with the answers of rooms and scenes.
func ClassifyRooms(bridge string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, wire.ErrNoRooms):
		return providers.RetryAfter(10*time.Minute, ReasonRoomsNotSupported, fmt.Errorf("bridge %s: %w", bridge, err))
	case wire.ErrorType(err) == wire.TypeLightInAnotherRoom:
		return providers.RetryAfter(time.Minute, ReasonLightInAnotherRoom, fmt.Errorf(
			"bridge %s: a light belongs to one room at most: %w", bridge, err))
	}
	return Classify(bridge, err)
}
