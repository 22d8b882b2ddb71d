package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tether-dev/tether/providers"
)

// Reasons of a bridge's answers, as classify gives them.
const (
	ReasonBridgeUnreachable    = "BridgeUnreachable"
	ReasonBridgeBusy           = "BridgeBusy"
	ReasonBridgeProtocol       = "BridgeProtocolError"
	ReasonUnauthorized         = "Unauthorized"
	ReasonInvalidValue         = "InvalidValue"
	ReasonDeviceOff            = "DeviceOff"
	ReasonBridgeRejectedChange = "BridgeRejectedChange"
)

// Hue error types the adapter acts on (the v1 API's numbers; a v2 client
// maps its answers onto them).
const (
	TypeUnauthorized          = 1
	TypeNotAvailable          = 3
	TypeParameterNotAvailable = 6
	TypeInvalidValue          = 7
	TypeNotModifiable         = 8
	TypeLinkButton            = 101
	TypeDeviceOff             = 201
	TypeInternal              = 901
)

// Delays the adapter asks for. Unauthorized waits long: only re-pairing
// (deleting the credentials Secret and pressing the button) fixes it, and
// that wakes the bridge's objects anyway.
var (
	unreachableDelay  = 5 * time.Second
	busyDelay         = time.Second
	unauthorizedDelay = time.Minute
)

// ProtocolError is an answer the adapter could not make sense of.
type ProtocolError struct{ Detail string }

func (e *ProtocolError) Error() string {
	return "the bridge sent an answer that is not valid Hue v1 API: " + e.Detail
}

// ErrorType returns the Hue error type in err, or 0.
func ErrorType(err error) int {
	var bridgeErr *BridgeError
	if errors.As(err, &bridgeErr) {
		return bridgeErr.Type
	}
	return 0
}

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
	var certErr *CertificateError
	if errors.As(err, &certErr) {
		return providers.RetryAfter(time.Minute, certErr.Reason, fmt.Errorf("bridge %s: %s", bridge, certErr.Detail))
	}
	switch ErrorType(err) {
	case TypeUnauthorized:
		return providers.RetryAfter(unauthorizedDelay, ReasonUnauthorized, fmt.Errorf(
			"bridge %s does not accept the stored username: delete the credentials Secret and press the link button to pair again", bridge))
	case TypeInternal:
		return providers.RetryAfter(busyDelay, ReasonBridgeBusy, fmt.Errorf("bridge %s is overloaded: %w", bridge, err))
	case TypeInvalidValue:
		return providers.Terminal(ReasonInvalidValue, fmt.Errorf("bridge %s refused a value: %w", bridge, err))
	case TypeDeviceOff:
		return providers.RetryAfter(busyDelay, ReasonDeviceOff, fmt.Errorf("bridge %s: %w", bridge, err))
	case 0:
	default:
		return providers.RetryAfter(busyDelay, ReasonBridgeRejectedChange, fmt.Errorf("bridge %s: %w", bridge, err))
	}
	if IsNetwork(err) {
		return providers.RetryAfter(unreachableDelay, ReasonBridgeUnreachable, &unreachableError{bridge: bridge, cause: err})
	}
	// Everything else is an answer the adapter could not read: a
	// ProtocolError, JSON the client failed to decode (HTML from a proxy,
	// garbage), an error object without a type. Name the bridge and the problem, and
	// retry as for an unreachable bridge.
	var perr *ProtocolError
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

// IsNetwork reports connection failures and timeouts.
func IsNetwork(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) ||
		errors.Is(err, net.ErrClosed)
}

// UnauthorizedError is error 1 for a condition the adapter detects itself
// (a /config without whitelist is error 1 in disguise).
func UnauthorizedError() error {
	return &BridgeError{Type: TypeUnauthorized, Description: "unauthorized user"}
}

// Reasons of a bridge's answers about rooms, zones and scenes.
const (
	ReasonRoomsNotSupported  = "RoomsNotSupported"
	ReasonLightInAnotherRoom = "LightInAnotherRoom"
)

// errLightInAnotherRoom is the v1 bridge's answer to a room taking a light
// of another room.
const errLightInAnotherRoom = 306

// ClassifyRooms is Classify, with the answers of rooms and scenes.
func ClassifyRooms(bridge string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNoRooms):
		return providers.RetryAfter(10*time.Minute, ReasonRoomsNotSupported, fmt.Errorf("bridge %s: %w", bridge, err))
	case ErrorType(err) == errLightInAnotherRoom:
		return providers.RetryAfter(time.Minute, ReasonLightInAnotherRoom, fmt.Errorf(
			"bridge %s: a light belongs to one room at most: %w", bridge, err))
	}
	return Classify(bridge, err)
}
