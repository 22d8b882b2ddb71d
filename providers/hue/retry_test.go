package hue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

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
		{"unauthorized", &wire.BridgeError{Type: 1}, ReasonUnauthorized, false},
		{"overloaded", &wire.BridgeError{Type: 901}, ReasonBridgeBusy, false},
		{"invalid value", &wire.BridgeError{Type: 7}, ReasonInvalidValue, true},
		{"not available", &wire.BridgeError{Type: 3}, ReasonBridgeRejectedChange, false},
		{"garbage", &wire.ProtocolError{Detail: "x"}, ReasonBridgeProtocol, false},
		// What wire's TestV2ClientTrust and TestV2ClientBacksOffWhenBusy see a
		// client return, as the HueBridge's condition says it.
		{"certificate untrusted", &wire.CertificateError{Reason: wire.ReasonCertificateUntrusted, Detail: "x"}, wire.ReasonCertificateUntrusted, false},
		{"certificate mismatch", &wire.CertificateError{Reason: wire.ReasonCertificateMismatch, Detail: "x"}, wire.ReasonCertificateMismatch, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Classify("home", tc.err)
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

// TestUnreachableSaysItInAFewWords: every object on a bridge that does not
// answer carries the same message in its conditions and events; it names
// the bridge and the cause, not the request URL and the layers of the Go
// error, which stay underneath for errors.Is.
func TestUnreachableSaysItInAFewWords(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	_ = ln.Close()
	_, dialErr := (&http.Client{Timeout: time.Second}).Get("https://" + closedPort + "/clip/v2/resource")
	cases := []struct {
		name string
		err  error
		want string
		is   error
	}{
		{"a closed port, over real HTTP", dialErr, "bridge home is unreachable: connection refused", syscall.ECONNREFUSED},
		{"connection refused", &url.Error{Op: "Get", URL: "https://h/clip/v2/resource", Err: &net.OpError{Op: "dial", Net: "tcp",
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}, "bridge home is unreachable: connection refused", syscall.ECONNREFUSED},
		{"no answer in time", &url.Error{Op: "Get", URL: "https://h/api/u/lights", Err: context.DeadlineExceeded},
			"bridge home is unreachable: no answer in time", context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Classify("home", tc.err)
			if err.Error() != tc.want {
				t.Errorf("message %q, want %q", err.Error(), tc.want)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v underneath", err, tc.is)
			}
		})
	}
}
