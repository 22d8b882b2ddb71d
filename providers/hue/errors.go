package hue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tether-dev/tether/providers"
)

// Condition reasons of the Hue kinds.
const (
	ReasonBridgeUnreachable    = "BridgeUnreachable"
	ReasonBridgeBusy           = "BridgeBusy"
	ReasonBridgeProtocol       = "BridgeProtocolError"
	ReasonUnauthorized         = "Unauthorized"
	ReasonNotPaired            = "NotPaired"
	ReasonLinkButton           = "LinkButtonNotPressed"
	ReasonPaired               = "Paired"
	ReasonLightUnreachable     = "LightUnreachable"
	ReasonLightNotFound        = "LightNotFound"
	ReasonConflict             = "Conflict"
	ReasonThrottled            = "Throttled"
	ReasonBridgeNotFound       = "BridgeNotFound"
	ReasonBridgeAmbiguous      = "BridgeAmbiguous"
	ReasonNamespaceNotAllowed  = "NamespaceNotAllowed"
	ReasonInvalidValue         = "InvalidValue"
	ReasonDeviceOff            = "DeviceOff"
	ReasonCredentialsUnusable  = "CredentialsUnusable"
	ReasonBridgeRejectedChange = "BridgeRejectedChange"
	// ReasonLimited: Ready=True, the bulb shows all it can of the spec and
	// the message says what it cannot (projected or not reported).
	ReasonLimited = "Limited"
	// ReasonAttributeRefused: Ready=False, the bridge refused part of the
	// spec and the message names it; it is not sent again unchanged.
	ReasonAttributeRefused = "AttributeRefused"
)

// Hue error types the adapter acts on (the v1 API's numbers; a v2 client
// maps its answers onto them).
const (
	errUnauthorized          = 1
	errNotAvailable          = 3
	errParameterNotAvailable = 6
	errInvalidValue          = 7
	errNotModifiable         = 8
	errLinkButton            = 101
	errDeviceOff             = 201
	errInternal              = 901
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

// apiErrorType returns the Hue error type in err, or 0.
func apiErrorType(err error) int {
	var bridgeErr *BridgeError
	if errors.As(err, &bridgeErr) {
		return bridgeErr.Type
	}
	return 0
}

// classify turns a bridge call's error into the reconciler's typed errors.
// bridge names the HueBridge for the messages.
func classify(bridge string, err error) error {
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
	switch apiErrorType(err) {
	case errUnauthorized:
		return providers.RetryAfter(unauthorizedDelay, ReasonUnauthorized, fmt.Errorf(
			"bridge %s does not accept the stored username: delete the credentials Secret and press the link button to pair again", bridge))
	case errInternal:
		return providers.RetryAfter(busyDelay, ReasonBridgeBusy, fmt.Errorf("bridge %s is overloaded: %w", bridge, err))
	case errInvalidValue:
		return providers.Terminal(ReasonInvalidValue, fmt.Errorf("bridge %s refused a value: %w", bridge, err))
	case errDeviceOff:
		return providers.RetryAfter(busyDelay, ReasonDeviceOff, fmt.Errorf("bridge %s: %w", bridge, err))
	case 0:
	default:
		return providers.RetryAfter(busyDelay, ReasonBridgeRejectedChange, fmt.Errorf("bridge %s: %w", bridge, err))
	}
	if isNetwork(err) {
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

// isNetwork reports connection failures and timeouts.
func isNetwork(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) ||
		errors.Is(err, net.ErrClosed)
}

// apiError builds a bridge error of type typ, for conditions the adapter
// detects itself (a /config without whitelist is error 1 in disguise).
func apiError(typ int) error { return &BridgeError{Type: typ, Description: "unauthorized user"} }
