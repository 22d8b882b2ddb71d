package wire_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// What the username must never reach: the error a client returns, and the
// message the adapters' retry policy makes of it (a condition, an event).

func TestRedactKeepsUsernameOutOfErrors(t *testing.T) {
	err := wire.Redact(&url.Error{Op: "Get", URL: "http://h/api/s3cr3tuser/lights", Err: context.DeadlineExceeded}, "s3cr3tuser")
	if strings.Contains(err.Error(), "s3cr3tuser") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("redacted: %v", err)
	}
	if msg := hue.Classify("home", err).Error(); strings.Contains(msg, "s3cr3tuser") {
		t.Fatalf("classified message leaks the username: %s", msg)
	}
}

// TestRedactBridgeErrorAddress: some bridges answer errors with the full
// path (/api/<username>/groups) as the address.
func TestRedactBridgeErrorAddress(t *testing.T) {
	err := wire.Redact(&wire.BridgeError{Type: 3, Address: "/api/s3cr3tuser/groups", Description: "resource, /api/s3cr3tuser/groups, not available"}, "s3cr3tuser")
	if strings.Contains(err.Error(), "s3cr3tuser") || wire.ErrorType(err) != 3 {
		t.Fatalf("redacted: %v", err)
	}
	if msg := hue.Classify("home", err).Error(); strings.Contains(msg, "s3cr3tuser") {
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
	c := wire.NewClient(strings.TrimPrefix(srv.URL, "http://"), user, 2*time.Second)
	bodies := []model.StateBody{
		{On: ptr.To(true), Bri: ptr.To(100)},
		{On: ptr.To(true), Hue: ptr.To(0)},
		{On: ptr.To(true), TransitionTime: ptr.To(0)},
	}
	if _, err := c.Lights(context.Background()); err == nil || strings.Contains(hue.Classify("home", err).Error(), user) {
		t.Errorf("GET /lights: %v", err)
	}
	if _, err := c.Config(context.Background()); err == nil || strings.Contains(hue.Classify("home", err).Error(), user) {
		t.Errorf("GET /config: %v", err)
	}
	for _, b := range bodies {
		_, err := c.SetLightState(context.Background(), "1", b)
		if err == nil {
			t.Fatalf("a 404 page was taken as success for %+v", b)
		}
		if msg := hue.Classify("home", err).Error(); strings.Contains(msg, user) || strings.Contains(err.Error(), user) {
			t.Errorf("the username leaked for %+v: %s", b, msg)
		}
	}
}
