package wire

import (
	"context"
	"errors"
	"net"
)

// The errors a bridge call returns, as the protocol knows them: the Hue
// error types, an answer that is not Hue's, a connection that failed. What
// the reconciler makes of them (retry when, with what reason) is the
// adapters' (providers/hue's retry policy), not this package's.

// Hue error types (the v1 API's numbers; a v2 client maps its answers
// onto them).
const (
	TypeUnauthorized          = 1
	TypeNotAvailable          = 3
	TypeParameterNotAvailable = 6
	TypeInvalidValue          = 7
	TypeNotModifiable         = 8
	TypeLinkButton            = 101
	TypeDeviceOff             = 201
	TypeInternal              = 901
	// TypeLightInAnotherRoom is a v1 bridge's answer to a room taking a
	// light of another room.
	TypeLightInAnotherRoom = 306
)

// ProtocolError is an answer the adapter could not make sense of.
type ProtocolError struct{ Detail string }

func (e *ProtocolError) Error() string {
	return "the bridge sent an answer that is not valid Hue v1 API: " + e.Detail
}

// NoPublicConfigError is a bridge that serves CLIP v2 but not the public
// /api/config, where Tether learns which bridge answers before it sends
// the key. It is not a bridge without CLIP v2 (so apiVersion Auto does not
// take it for one and fall back to v1), and it does not unwrap to its
// cause for the same reason.
type NoPublicConfigError struct{ Cause error }

func (e *NoPublicConfigError) Error() string {
	return "the bridge serves CLIP v2 but not the public /api/config, where Tether learns which bridge answers before it sends the key: " +
		e.Cause.Error()
}

// ErrorType returns the Hue error type in err, or 0.
func ErrorType(err error) int {
	var bridgeErr *BridgeError
	if errors.As(err, &bridgeErr) {
		return bridgeErr.Type
	}
	return 0
}

// IsNetwork reports connection failures and timeouts. A v1 request refused
// because the bridge has no v1 (V1GoneError) is none, though the HTTP
// client wraps it as one.
func IsNetwork(err error) bool {
	if errors.As(err, new(V1GoneError)) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) ||
		errors.Is(err, net.ErrClosed)
}

// UnauthorizedError is error 1 for a condition the adapter detects itself
// (a /config without whitelist is error 1 in disguise).
func UnauthorizedError() error {
	return &BridgeError{Type: TypeUnauthorized, Description: "unauthorized user"}
}
