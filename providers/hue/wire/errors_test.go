package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/providers/hue/model"

	"k8s.io/utils/ptr"

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
		{"error after success", 200, `[{"success":{"/lights/1/state/on":true}},{"error":{"type":3,"address":"/lights/1","description":"resource, /lights/1, not available"}}]`, 3},
		{"error without address (huego would panic)", 200, `[{"error":{"type":901,"description":"busy"}}]`, 901},
		{"overload", 503, `[{"error":{"type":901,"address":"/lights/1/state","description":"Internal error, 503"}}]`, 901},
		{"html from a proxy", 502, `<html>bad gateway</html>`, -1},
		{"503 without error array", 503, `[]`, -1},
		// DELETE answers success with a string (huego's test data, from the
		// v1 API documentation).
		{"a group deleted", 200, `[{"success":"/groups/4 deleted."}]`, 0},
		{"a scene deleted", 200, `[{"success":"/scenes/3T2SvsxvwteNNys deleted"}]`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAnswer(tc.status, []byte(tc.body), model.StateBody{})
			var perr *ProtocolError
			switch {
			case tc.wantType == 0 && err != nil:
				t.Fatalf("want nil, got %v", err)
			case tc.wantType == -1 && !errors.As(err, &perr):
				t.Fatalf("want a protocol error, got %v", err)
			case tc.wantType > 0 && ErrorType(err) != tc.wantType:
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
		{"unauthorized", &BridgeError{Type: 1}, ReasonUnauthorized, false},
		{"overloaded", &BridgeError{Type: 901}, ReasonBridgeBusy, false},
		{"invalid value", &BridgeError{Type: 7}, ReasonInvalidValue, true},
		{"not available", &BridgeError{Type: 3}, ReasonBridgeRejectedChange, false},
		{"garbage", &ProtocolError{Detail: "x"}, ReasonBridgeProtocol, false},
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

func TestRedactKeepsUsernameOutOfErrors(t *testing.T) {
	err := redact(&url.Error{Op: "Get", URL: "http://h/api/s3cr3tuser/lights", Err: context.DeadlineExceeded}, "s3cr3tuser")
	if strings.Contains(err.Error(), "s3cr3tuser") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("redacted: %v", err)
	}
	if msg := Classify("home", err).Error(); strings.Contains(msg, "s3cr3tuser") {
		t.Fatalf("classified message leaks the username: %s", msg)
	}
}

// TestRedactBridgeErrorAddress: some bridges answer errors with the full
// path (/api/<username>/groups) as the address.
func TestRedactBridgeErrorAddress(t *testing.T) {
	err := redact(&BridgeError{Type: 3, Address: "/api/s3cr3tuser/groups", Description: "resource, /api/s3cr3tuser/groups, not available"}, "s3cr3tuser")
	if strings.Contains(err.Error(), "s3cr3tuser") || ErrorType(err) != 3 {
		t.Fatalf("redacted: %v", err)
	}
	if msg := Classify("home", err).Error(); strings.Contains(msg, "s3cr3tuser") {
		t.Fatalf("classified message leaks the username: %s", msg)
	}
}

// TestForeignAnswersDoNotLeakTheUsername: something that is not a bridge
// (a proxy, an emulator) answers with the request path, username and all,
// in a body that is not Hue's. Over real HTTP, through every request, the
// classified error must not carry it.
func TestForeignAnswersDoNotLeakTheUsername(t *testing.T) {
	const user = "s3cr3tuser"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, "<html><body>Cannot %s %s</body></html>", r.Method, r.URL.Path)
	}))
	defer srv.Close()
	c := NewClient(strings.TrimPrefix(srv.URL, "http://"), user, 2*time.Second)
	bodies := []model.StateBody{
		{On: ptr.To(true), Bri: ptr.To(100)},
		{On: ptr.To(true), Hue: ptr.To(0)},
		{On: ptr.To(true), TransitionTime: ptr.To(0)},
	}
	if _, err := c.Lights(context.Background()); err == nil || strings.Contains(Classify("home", err).Error(), user) {
		t.Errorf("GET /lights: %v", err)
	}
	if _, err := c.Config(context.Background()); err == nil || strings.Contains(Classify("home", err).Error(), user) {
		t.Errorf("GET /config: %v", err)
	}
	for _, b := range bodies {
		_, err := c.SetLightState(context.Background(), "1", b)
		if err == nil {
			t.Fatalf("a 404 page was taken as success for %+v", b)
		}
		if msg := Classify("home", err).Error(); strings.Contains(msg, user) || strings.Contains(err.Error(), user) {
			t.Errorf("the username leaked for %+v: %s", b, msg)
		}
	}
}
