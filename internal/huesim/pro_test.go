package huesim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestProPlainHTTPIsRedirected: a Bridge Pro answers every plain-HTTP
// request, pairing included, with a 301 to the same path over https
// (zim514/script.service.hue #332), and records it; the same requests
// over HTTPS are served, v1 included (Q42/Q42.HueApi #333). A client that
// does not follow redirects sees the 301 itself.
func TestProPlainHTTPIsRedirected(t *testing.T) {
	g := NewWithT(t)
	s, err := Start(Options{Lights: []string{"hall"}, Usernames: []string{"user-0123456789"}, Pro: true}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	defer s.Close()
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tlsClient := v2Client(t, s)
	for _, tc := range []struct{ method, path string }{
		{"POST", "/api"},
		{"GET", "/api/config"},
		{"GET", "/api/user-0123456789/lights"},
	} {
		req, _ := http.NewRequest(tc.method, s.URL()+tc.path, strings.NewReader(`{"devicetype":"t#t"}`))
		res, err := plain.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		res.Body.Close()
		g.Expect(res.StatusCode).To(Equal(http.StatusMovedPermanently), tc.path)
		g.Expect(res.Header.Get("Location")).To(Equal(s.TLSURL()+tc.path), tc.path)

		req, _ = http.NewRequest(tc.method, s.TLSURL()+tc.path, strings.NewReader(`{"devicetype":"t#t"}`))
		res, err = tlsClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		res.Body.Close()
		g.Expect(res.StatusCode).To(Equal(http.StatusOK), "over https: "+tc.path)
	}
	g.Expect(s.PlainRequests()).To(Equal([]PlainRequest{
		{"POST", "/api"}, {"GET", "/api/config"}, {"GET", "/api/{user}/lights"},
	}))
}

// TestProIdentityAndCertificate: a Bridge Pro's id starts C42996FFFE, its
// public config and bridge device say BSB003 / bridge_v3 (aiohue's Bridge
// Pro fixture), and its certificate has the shape of the Pro's
// (openhab-addons huebridge3_cacert.pem): EC P-256, CN the id in upper
// case, OU BSB003, issued by root-bridge.
func TestProIdentityAndCertificate(t *testing.T) {
	g := NewWithT(t)
	s, err := Start(Options{Lights: []string{"hall"}, Usernames: []string{"user-0123456789"}, Pro: true}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	defer s.Close()
	g.Expect(s.BridgeID()).To(HavePrefix("C42996FFFE"))
	g.Expect(s.CertificateName()).To(Equal(strings.ToUpper(s.BridgeID())))

	conn, err := tls.Dial("tcp", s.TLSAddr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reads the chain only
	g.Expect(err).NotTo(HaveOccurred())
	leaf := conn.ConnectionState().PeerCertificates[0]
	conn.Close()
	g.Expect(leaf.Subject.CommonName).To(Equal(strings.ToUpper(s.BridgeID())))
	g.Expect(leaf.Subject.OrganizationalUnit).To(Equal([]string{"BSB003"}))
	g.Expect(leaf.Issuer.CommonName).To(Equal("root-bridge"))
	key, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	g.Expect(ok).To(BeTrue(), "an EC key")
	g.Expect(key.Curve).To(Equal(elliptic.P256()))

	c := v2Client(t, s)
	res, err := c.Get(s.TLSURL() + "/api/config")
	g.Expect(err).NotTo(HaveOccurred())
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	g.Expect(string(body)).To(ContainSubstring(`"modelid":"BSB003"`))
	_, devices := v2Do(t, c, s, "GET", "/clip/v2/resource/device", "user-0123456789", "")
	g.Expect(devices["data"]).To(ContainElement(HaveKeyWithValue("product_data",
		And(HaveKeyWithValue("model_id", "BSB003"), HaveKeyWithValue("product_archetype", "bridge_v3")))))
}

// TestProResources: the Pro's full listing has its newer types and one no
// client knows, but not motion_area_candidate and wifi_connectivity,
// which it serves by type (homebridge-hue2 Bridge.js missingRtypes); a
// scene's palette leaves out effects (aiohue PR #659). A square bridge
// has none of these.
func TestProResources(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		pro                         bool
		wantListed, wantNotListed   []string
		wantByType, wantNoneOfTypes []string
	}{
		{name: "pro", pro: true,
			wantListed:    []string{"clip", "device_software_update", "zigbee_device_discovery", "geolocation", "speaker", "motion_area_configuration", proFutureType, "light"},
			wantNotListed: proUnlisted, wantByType: proUnlisted},
		{name: "square", wantListed: []string{"light"}, wantNotListed: append([]string{"clip", proFutureType}, proUnlisted...),
			wantNoneOfTypes: proUnlisted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s, err := Start(Options{Lights: []string{"hall"}, Usernames: []string{"user-0123456789"}, Pro: tc.pro}, "127.0.0.1:0")
			g.Expect(err).NotTo(HaveOccurred())
			defer s.Close()
			c := v2Client(t, s)
			_, all := v2Do(t, c, s, "GET", "/clip/v2/resource", "user-0123456789", "")
			types := map[string]bool{}
			for _, r := range all["data"].([]any) {
				types[r.(map[string]any)["type"].(string)] = true
			}
			for _, typ := range tc.wantListed {
				g.Expect(types).To(HaveKey(typ))
			}
			for _, typ := range tc.wantNotListed {
				g.Expect(types).NotTo(HaveKey(typ))
			}
			for _, typ := range tc.wantByType {
				_, one := v2Do(t, c, s, "GET", "/clip/v2/resource/"+typ, "user-0123456789", "")
				g.Expect(one["data"]).To(HaveLen(1), typ)
			}
			for _, typ := range tc.wantNoneOfTypes {
				_, one := v2Do(t, c, s, "GET", "/clip/v2/resource/"+typ, "user-0123456789", "")
				g.Expect(one["data"]).To(BeEmpty(), typ)
			}
		})
	}
}

// TestProOmitsPaletteEffects: the Pro's scenes carry palettes without
// effects (aiohue PR #659), where the square bridge's carry all four lists.
func TestProOmitsPaletteEffects(t *testing.T) {
	g := NewWithT(t)
	scene := func() resource {
		return resource{"id": "s", "type": "scene", "palette": map[string]any{"color": []any{}, "effects": []any{}}}
	}
	pro := New(Options{Pro: true})
	pro.mu.Lock()
	out := pro.proResources([]resource{scene()})
	pro.mu.Unlock()
	g.Expect(out[0]["palette"]).To(Equal(map[string]any{"color": []any{}}))
}

// TestProChain: a Pro's certificate as sent: issued by root-bridge (and
// the root sent too), or by an intermediate that is sent after it, or by
// one that is not sent.
func TestProChain(t *testing.T) {
	for _, tc := range []struct {
		chain      ProChain
		issuer     string
		sentLength int
	}{
		{ProDirect, "root-bridge", 2},
		{ProIntermediate, "huesim intermediate", 2},
		{ProIncompleteChain, "huesim intermediate", 1},
	} {
		t.Run(string(tc.chain), func(t *testing.T) {
			g := NewWithT(t)
			s, err := Start(Options{Lights: []string{"hall"}, Pro: true, ProChain: tc.chain}, "127.0.0.1:0")
			g.Expect(err).NotTo(HaveOccurred())
			defer s.Close()
			conn, err := tls.Dial("tcp", s.TLSAddr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reads the chain only
			g.Expect(err).NotTo(HaveOccurred())
			sent := conn.ConnectionState().PeerCertificates
			conn.Close()
			g.Expect(sent).To(HaveLen(tc.sentLength))
			g.Expect(sent[0].Issuer.CommonName).To(Equal(tc.issuer))
			if len(sent) > 1 {
				g.Expect(sent[1].Subject.CommonName).To(Equal(tc.issuer))
			}
		})
	}
}
