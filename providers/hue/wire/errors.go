package wire

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
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

// V1GoneError is a v1 request to a CLIP v2 bridge that has no v1 API. It
// is ErrNoRooms (errors.Is): what still needs v1 is not managed there.
type V1GoneError struct{}

func (V1GoneError) Is(target error) bool { return target == ErrNoRooms }

func (V1GoneError) Error() string {
	return "the bridge answers 404 on the v1 API (a firmware without it): Tether speaks CLIP v2 to it; " +
		"only temporary groups, and scenes stored through v1, need v1"
}

// redact removes the username from the URL that net/http puts in its
// errors, and from the address of a bridge's error (some bridges answer
// with the full path, /api/<username>/...): errors end up in logs,
// conditions and events, the username must not.
func redact(err error, user string) error {
	if user == "" || err == nil {
		return err
	}
	hide := func(s string) string { return hideUser(s, user) }
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return &url.Error{Op: urlErr.Op, URL: hide(urlErr.URL), Err: urlErr.Err}
	}
	var bridgeErr *BridgeError
	if errors.As(err, &bridgeErr) && (strings.Contains(bridgeErr.Address, user) || strings.Contains(bridgeErr.Description, user)) {
		return &BridgeError{Type: bridgeErr.Type, Address: hide(bridgeErr.Address), Description: hide(bridgeErr.Description)}
	}
	var protoErr *ProtocolError
	if errors.As(err, &protoErr) && strings.Contains(protoErr.Detail, user) {
		// An answer that is not Hue's (a proxy's "Cannot PUT /api/<user>/...").
		return &ProtocolError{Detail: hide(protoErr.Detail)}
	}
	return err
}

// hideUser replaces the username in a text that goes into an error.
func hideUser(s, user string) string {
	if user == "" {
		return s
	}
	return strings.ReplaceAll(s, user, "<username>")
}
