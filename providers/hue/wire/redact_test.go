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

// TestForeignAnswersAreNamedNotQuoted: spec.address reaches whatever
// answers there, an internal service's admin page as well as a bridge.
// Its answer is named by its HTTP status and content type in the error
// (which lands in a condition), never quoted, whether it is not JSON at
// all or JSON of another shape; on either API, before and after pairing.
func TestForeignAnswersAreNamedNotQuoted(t *testing.T) {
	const secret = "db_password=hunter2"
	answers := []struct {
		name, contentType, body, want string
	}{
		{"text", "text/plain; charset=utf-8", "INTERNAL-ONLY path=/admin/config " + secret, `HTTP 200, content type "text/plain"`},
		{"html", "text/html", "<html><body>" + secret + "</body></html>", `HTTP 200, content type "text/html"`},
		{"no content type", "", secret, "HTTP 200, no content type"},
		{"JSON of another shape", "application/json", `{"config": "` + secret + `"}`, "HTTP 200, JSON that is not"},
		{"a JSON list of another shape", "application/json", `[{"x": "` + secret + `"}]`, "HTTP 200, JSON that is not"},
	}
	for _, a := range answers {
		handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if a.contentType != "" {
				w.Header().Set("Content-Type", a.contentType)
			} else {
				w.Header()["Content-Type"] = nil // no sniffing either
			}
			_, _ = fmt.Fprint(w, a.body)
		})
		plain := httptest.NewServer(handler)
		tlsSrv := httptest.NewTLSServer(handler)
		v2, err := wire.NewClientV2(tlsSrv.Listener.Addr().String(), "", 2*time.Second, wire.Trust{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		v2User, err := wire.NewClientV2(tlsSrv.Listener.Addr().String(), "s3cr3tuser", 2*time.Second, wire.Trust{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]func(context.Context) error{
			"v1 public config": func(ctx context.Context) error {
				_, err := wire.NewClient(plain.Listener.Addr().String(), "", 2*time.Second).Config(ctx)
				return err
			},
			"v1 lights": func(ctx context.Context) error {
				_, err := wire.NewClient(plain.Listener.Addr().String(), "s3cr3tuser", 2*time.Second).Lights(ctx)
				return err
			},
			"v2 probe": func(ctx context.Context) error {
				_, _, err := wire.ProbeV2(ctx, tlsSrv.Listener.Addr().String(), 2*time.Second, wire.Trust{InsecureSkipVerify: true})
				return err
			},
			"v2 public config": func(ctx context.Context) error {
				_, err := v2.Config(ctx)
				return err
			},
			"v2 lights": func(ctx context.Context) error {
				_, err := v2User.Lights(ctx)
				return err
			},
		}
		for name, call := range calls {
			t.Run(a.name+"/"+name, func(t *testing.T) {
				err := call(context.Background())
				json := strings.Contains(a.contentType, "json")
				if err == nil && json {
					return // a JSON object missing every field reads as empty: the registry refuses a config without an id
				}
				if err == nil {
					t.Fatal("a foreign answer was taken for a Hue one")
				}
				msg := hue.Classify("home", err).Error()
				if strings.Contains(msg, "hunter2") || strings.Contains(msg, "INTERNAL-ONLY") {
					t.Errorf("the answer's body is in the error: %s", msg)
				}
				if json && strings.Contains(msg, "names no bridgeid") {
					return
				}
				if !strings.Contains(msg, a.want) {
					t.Errorf("the error does not name the answer by %q: %s", a.want, msg)
				}
			})
		}
		plain.Close()
		tlsSrv.Close()
	}
}

// TestV2ErrorsAreRedactedAsV1s: a CLIP v2 answer's error description that
// echoes the application key (as a proxy or a hostile bridge may) does not
// carry it into the error, as the v1 client's errors do not.
func TestV2ErrorsAreRedactedAsV1s(t *testing.T) {
	const user = "s3cr3tuser"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"errors": [{"description": "key %s refused at %s"}], "data": []}`, r.Header.Get("hue-application-key"), r.URL.Path)
	}))
	defer srv.Close()
	c, err := wire.NewClientV2(srv.Listener.Addr().String(), user, 2*time.Second, wire.Trust{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Lights(context.Background())
	if err == nil {
		t.Fatal("a 400 was taken as success")
	}
	if msg := hue.Classify("home", err).Error(); strings.Contains(msg, user) || strings.Contains(err.Error(), user) {
		t.Errorf("the key leaked: %s", msg)
	}
}
