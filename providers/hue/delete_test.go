package hue

import (
	"errors"
	"testing"
	"time"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

func TestNeverHeldABulb(t *testing.T) {
	unauthorized := providers.RetryAfter(time.Minute, ReasonUnauthorized, errors.New("refused"))
	unreachable := providers.RetryAfter(5*time.Second, ReasonBridgeUnreachable, errors.New("down"))
	mismatch := providers.RetryAfter(time.Minute, wire.ReasonCertificateMismatch, errors.New("names another bridge"))
	untrusted := providers.RetryAfter(time.Minute, wire.ReasonCertificateUntrusted, errors.New("unknown CA"))
	tests := []struct {
		name    string
		lightID string
		err     error
		want    bool
	}{
		{name: "refused credentials, never held a bulb: let go", err: unauthorized, want: true},
		{name: "refused credentials, held bulb 3: keep trying to switch it off", lightID: "3", err: unauthorized},
		{name: "certificate naming another bridge, never held a bulb: let go", err: mismatch, want: true},
		{name: "certificate from an unknown CA, never held a bulb: let go", err: untrusted, want: true},
		{name: "certificate refused, held bulb 3: keep trying", lightID: "3", err: mismatch},
		{name: "bridge unreachable: keep trying", err: unreachable},
		{name: "untyped error: keep trying", err: errors.New("boom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &huev1alpha1.HueLight{}
			l.Status.LightID = tt.lightID
			if got := neverHeldABulb(l, tt.err); got != tt.want {
				t.Errorf("neverHeldABulb = %v, want %v", got, tt.want)
			}
		})
	}
}
