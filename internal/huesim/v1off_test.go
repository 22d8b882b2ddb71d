package huesim

import (
	"net/http"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestV1Off: a bridge with the v1 API off answers 404 on v1 paths, keyed
// or not, on both ports, except pairing and the public config; CLIP v2
// still answers; every v1 request is recorded, the username left out.
func TestV1Off(t *testing.T) {
	g := NewWithT(t)
	s, err := Start(Options{Lights: []string{"hall"}, Usernames: []string{"user-0123456789"}, V1Off: true}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	defer s.Close()
	tlsClient := v2Client(t, s)
	status := func(c *http.Client, method, url string) int {
		req, err := http.NewRequest(method, url, strings.NewReader(`{"devicetype":"t#t"}`))
		g.Expect(err).NotTo(HaveOccurred())
		req.Header.Set("hue-application-key", "user-0123456789")
		res, err := c.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		res.Body.Close()
		return res.StatusCode
	}
	g.Expect(status(http.DefaultClient, "GET", s.URL()+"/api/user-0123456789/lights")).To(Equal(http.StatusNotFound))
	g.Expect(status(tlsClient, "GET", s.TLSURL()+"/api/user-0123456789/groups")).To(Equal(http.StatusNotFound))
	g.Expect(status(tlsClient, "GET", s.TLSURL()+"/api/user-0123456789/config")).To(Equal(http.StatusNotFound))
	g.Expect(status(tlsClient, "GET", s.TLSURL()+"/api/config")).To(Equal(http.StatusOK), "the public config")
	g.Expect(status(tlsClient, "POST", s.TLSURL()+"/api")).To(Equal(http.StatusOK), "pairing")
	g.Expect(status(tlsClient, "GET", s.TLSURL()+"/clip/v2/resource/light")).To(Equal(http.StatusOK), "CLIP v2")
	g.Expect(s.V1Requests()).To(Equal([]V1Request{
		{Method: "GET", Path: "/api/{user}/lights", Refused: true},
		{Method: "GET", Path: "/api/{user}/groups", Refused: true},
		{Method: "GET", Path: "/api/{user}/config", Refused: true},
		{Method: "GET", Path: "/api/config"},
		{Method: "POST", Path: "/api"},
	}))
}
