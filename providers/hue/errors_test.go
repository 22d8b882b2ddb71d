package hue

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/amimof/huego"

	"github.com/tether-dev/tether/providers"
)

func TestDecodeAnswer(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		body     string
		wantType int // -1: protocol error, 0: nil
	}{
		{"all success", 200, `[{"success":{"/lights/1/state/on":true}}]`, 0},
		{"error after success", 200, `[{"success":{"/lights/1/state/on":true}},{"error":{"type":201,"address":"/lights/1/state/bri","description":"off"}}]`, 201},
		{"error without address (huego would panic)", 200, `[{"error":{"type":901,"description":"busy"}}]`, 901},
		{"overload", 503, `[{"error":{"type":901,"address":"/lights/1/state","description":"Internal error, 503"}}]`, 901},
		{"html from a proxy", 502, `<html>bad gateway</html>`, -1},
		{"503 without error array", 503, `[]`, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeAnswer(tc.status, []byte(tc.body))
			var perr *ProtocolError
			switch {
			case tc.wantType == 0 && err != nil:
				t.Fatalf("want nil, got %v", err)
			case tc.wantType == -1 && !errors.As(err, &perr):
				t.Fatalf("want a protocol error, got %v", err)
			case tc.wantType > 0 && apiErrorType(err) != tc.wantType:
				t.Fatalf("want API error %d, got %v", tc.wantType, err)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "http://h/api/u/lights", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name       string
		err        error
		wantReason string
		terminal   bool
	}{
		{"connection refused", refused, ReasonBridgeUnreachable, false},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), ReasonBridgeUnreachable, false},
		{"unauthorized", &huego.APIError{Type: 1}, ReasonUnauthorized, false},
		{"overloaded", &huego.APIError{Type: 901}, ReasonBridgeBusy, false},
		{"invalid value", &huego.APIError{Type: 7}, ReasonInvalidValue, true},
		{"not available", &huego.APIError{Type: 3}, ReasonBridgeRejectedChange, false},
		{"garbage", &ProtocolError{Detail: "x"}, ReasonBridgeProtocol, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := classify("home", tc.err)
			if te, ok := providers.AsTerminal(err); tc.terminal {
				if !ok || te.Reason != tc.wantReason {
					t.Fatalf("want terminal %s, got %v", tc.wantReason, err)
				}
				return
			}
			ra, ok := providers.AsRetryAfter(err)
			if !ok || ra.Reason != tc.wantReason || ra.Delay <= 0 {
				t.Fatalf("want retry-after %s, got %#v", tc.wantReason, err)
			}
		})
	}
}

func TestRedactKeepsUsernameOutOfErrors(t *testing.T) {
	err := redact(&url.Error{Op: "Get", URL: "http://h/api/s3cr3tuser/lights", Err: context.DeadlineExceeded}, "s3cr3tuser")
	if strings.Contains(err.Error(), "s3cr3tuser") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("redacted: %v", err)
	}
	if msg := classify("home", err).Error(); strings.Contains(msg, "s3cr3tuser") {
		t.Fatalf("classified message leaks the username: %s", msg)
	}
}

// TestRedactBridgeErrorAddress: some bridges answer errors with the full
// path (/api/<username>/groups) as the address.
func TestRedactBridgeErrorAddress(t *testing.T) {
	err := redact(&huego.APIError{Type: 3, Address: "/api/s3cr3tuser/groups", Description: "resource, /api/s3cr3tuser/groups, not available"}, "s3cr3tuser")
	if strings.Contains(err.Error(), "s3cr3tuser") || apiErrorType(err) != 3 {
		t.Fatalf("redacted: %v", err)
	}
	if msg := classify("home", err).Error(); strings.Contains(msg, "s3cr3tuser") {
		t.Fatalf("classified message leaks the username: %s", msg)
	}
}
