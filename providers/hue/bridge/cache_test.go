package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"

	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestACancelledCallSaysNothingOfTheBridge: a call the session gave up on
// itself (its context cancelled as it stops) does not mark the bridge as
// not answering, so the stopping session's last deletions still go
// (runGroups); a connection failure or a timeout does. Before, a call
// cancelled by the stop held every deletion back as a leftover that died
// with the session.
func TestACancelledCallSaysNothingOfTheBridge(t *testing.T) {
	get := func(err error) error { return &url.Error{Op: "Get", URL: "https://bridge/clip/v2/resource", Err: err} }
	for _, tc := range []struct {
		name   string
		err    error
		silent bool
	}{
		{"answered", nil, false},
		{"the session stopped", get(context.Canceled), false},
		{"the session stopped, wrapped", fmt.Errorf("recall: %w", get(context.Canceled)), false},
		{"timed out", get(context.DeadlineExceeded), true},
		{"refused", get(&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}), true},
		{"an error of the bridge's", &wire.BridgeError{Type: wire.TypeNotAvailable}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bridgeSilent(tc.err); got != tc.silent {
				t.Errorf("bridgeSilent(%v) = %v, want %v", tc.err, got, tc.silent)
			}
			c := newCache()
			c.unanswered(tc.err)
			if answering, _ := c.answering(); answering == tc.silent {
				t.Errorf("after %v the bridge answers: %v, want %v", tc.err, answering, !tc.silent)
			}
		})
	}
}
