package wire_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/huetest"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// bridgeIDSpellings are the spellings one bridge id comes in: as
// /api/config shows it, lower case (CLIP v2, certificates, mDNS), with
// colons (zeroconf), and with space around it.
var bridgeIDSpellings = []string{"001788FFFE23BFC2", "001788fffe23bfc2", "00:17:88:ff:fe:23:bf:c2", " 001788FFFE23BFC2 "}

// TestBridgeIDEntersInOneForm: whatever spelling a bridge writes its id in,
// every client returns it in one form, the one sessions are keyed by: over
// v1's public and authorised /config, and over CLIP v2's probe and config.
func TestBridgeIDEntersInOneForm(t *testing.T) {
	const want = "001788FFFE23BFC2"
	for _, spelled := range bridgeIDSpellings {
		t.Run(strings.TrimSpace(spelled), func(t *testing.T) {
			ctx := context.Background()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"name": "Hue", "bridgeid": %q, "apiversion": "1.65.0", "whitelist": {"u": {}}}`, spelled)
			}))
			defer srv.Close()
			for _, user := range []string{"", "u"} {
				cfg, err := wire.NewClient(srv.Listener.Addr().String(), user, 2*time.Second).Config(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if cfg.BridgeID != want {
					t.Errorf("v1 /config (user %q) gave %q, want %q", user, cfg.BridgeID, want)
				}
			}
			sim := huetest.StartSim(t, huesim.Options{BridgeID: spelled})
			probe, cfg, err := wire.ProbeV2(ctx, sim.TLSAddr(), 2*time.Second, wire.Trust{CABundle: sim.CACertPEM()})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BridgeID != want {
				t.Errorf("v2 probe gave %q, want %q", cfg.BridgeID, want)
			}
			if cfg, err = probe.Config(ctx); err != nil || cfg.BridgeID != want {
				t.Errorf("v2 /config gave %q (%v), want %q", cfg.BridgeID, err, want)
			}
			if !wire.SameBridgeID(spelled, want) || wire.NormalizeBridgeID(spelled) != want {
				t.Errorf("%q is not %q", spelled, want)
			}
		})
	}
}
