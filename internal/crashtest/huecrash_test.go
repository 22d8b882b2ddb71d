package crashtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	huesession "github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// holdProxy forwards to a simulated bridge and holds the answer to the
// first command that matches (which the bridge has carried out) until
// released or the caller hangs up.
type holdProxy struct {
	*httptest.Server
	once    sync.Once
	held    chan struct{}
	release chan struct{}
	streams atomic.Int32 // CLIP v2 event streams opened through the proxy
}

// switchOff matches a command that switches lights off.
func switchOff(r *http.Request, body []byte) bool {
	return r.Method == http.MethodPut && bytes.Contains(body, []byte(`"on":false`))
}

// newHoldProxy stands in front of sim: on its plain HTTP port (the v1 API),
// or with overTLS on its HTTPS port (the v1 and CLIP v2 APIs), where the
// proxy ends TLS with the bridge's own certificate (its name is the bridge
// id, it chains to the simulator's CA: what a HueBridge's caBundle trusts)
// and calls the bridge over TLS again, to see and hold the requests. The
// event stream passes as it comes (FlushInterval -1).
func newHoldProxy(t *testing.T, sim *huesim.Server, overTLS bool, match func(r *http.Request, body []byte) bool) *holdProxy {
	target := sim.URL()
	if overTLS {
		target = sim.TLSURL()
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{held: make(chan struct{}), release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	if overTLS {
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(sim.CACertPEM()) {
			t.Fatal("the simulator's CA does not parse")
		}
		rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	}
	p.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/eventstream/clip/v2" {
			p.streams.Add(1)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !match(r, body) {
			rp.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r) // the bridge carries the command out now
		first := false
		p.once.Do(func() { first = true; close(p.held) })
		if first {
			select {
			case <-p.release:
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	if overTLS {
		p.TLS = &tls.Config{Certificates: []tls.Certificate{sim.Certificate()}, MinVersion: tls.VersionTLS12}
		p.StartTLS()
	} else {
		p.Start()
	}
	t.Cleanup(func() {
		select {
		case <-p.release:
		default:
			close(p.release)
		}
		p.Close()
	})
	return p
}

// TestCrashDuringHueLightDelete: the manager is SIGKILLed after the bridge
// switched the light off for a deleted HueLight but before the manager heard
// back (so before it removed the finalizer). A new manager finishes the
// deletion: the object goes, the light stays off, and it sends no second
// command to a light that is already off.
func TestCrashDuringHueLightDelete(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	const user = "crashtest-user-0123456789"
	sim, err := huesim.Start(huesim.Options{Lights: []string{"hall"}, Usernames: []string{user}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sim.Close)
	proxy := newHoldProxy(t, sim, false, switchOff)

	for _, ns := range []string{"tether-system", "huecrash"} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "tether-system", Name: "crash-bridge"},
		Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte(user), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())}}
	g.Expect(env.Client.Create(ctx, secret)).To(Succeed())
	bridge := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "crash-bridge"},
		Spec: huev1alpha1.HueBridgeSpec{Address: proxy.URL,
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "tether-system", Name: "crash-bridge"},
			PollInterval:         &metav1.Duration{Duration: time.Second}}}
	g.Expect(env.Client.Create(ctx, bridge)).To(Succeed())
	light := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: "huecrash", Name: "hall"},
		Spec: huev1alpha1.HueLightSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: "crash-bridge"}, Name: "hall"}}
	g.Expect(env.Client.Create(ctx, light)).To(Succeed())

	bulbOn := func() bool { l, _ := sim.LightByName("hall"); return l.State.On }
	first := startManager(t, "first", "http://127.0.0.1:1", "--hue-poll-interval=1s")
	g.Eventually(bulbOn, timeout, poll).Should(BeTrue())

	g.Expect(env.Client.Delete(ctx, light)).To(Succeed())
	select {
	case <-proxy.held:
	case <-time.After(timeout):
		t.Fatalf("the light was never switched off; manager log:\n%s", first.logTail(4000))
	}
	g.Expect(bulbOn()).To(BeFalse(), "the bridge carried out the switch-off")
	first.kill()

	var stuck huev1alpha1.HueLight
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(light), &stuck)).To(Succeed(), "the finalizer still holds the object")
	g.Expect(stuck.DeletionTimestamp).NotTo(BeNil())
	sim.ResetCommands()

	startManager(t, "second", "http://127.0.0.1:1", "--hue-poll-interval=1s")
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(light), &huev1alpha1.HueLight{}))
	}, timeout, poll).Should(BeTrue(), "the restarted manager finishes the deletion")
	g.Expect(bulbOn()).To(BeFalse())
	g.Expect(sim.Commands()).To(BeEmpty(), "nothing is sent to a light that is already off")

	g.Expect(env.Client.Delete(ctx, bridge)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(bridge), &huev1alpha1.HueBridge{}))
	}, timeout, poll).Should(BeTrue())
	_ = env.Client.Delete(ctx, secret)
}

// TestCrashLeavesATemporaryScene: the manager is SIGKILLed after the bridge
// recalled a temporary scene (HueLights created together, each wanting a
// brightness of its own) but before the manager heard back, so before it
// deleted the scene. A new manager removes the scene that was left when
// its session starts, and every bulb ends at its HueLight's state. On both
// APIs: a CLIP v2 bridge stores and recalls temporary scenes through the v1
// API it serves on HTTPS too (client_v2_rooms.go), so the proxy holds the
// same recall there, behind TLS, while the event stream passes.
func TestCrashLeavesATemporaryScene(t *testing.T) {
	for _, api := range []huev1alpha1.HueAPI{huev1alpha1.APIV1, huev1alpha1.APIV2} {
		t.Run(string(api), func(t *testing.T) { crashLeavesATemporaryScene(t, api) })
	}
}

func crashLeavesATemporaryScene(t *testing.T, api huev1alpha1.HueAPI) {
	g := NewWithT(t)
	ctx := context.Background()
	const user, n = "crashtest-user-0123456789", 20
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bulb-%02d", i)
	}
	sim, err := huesim.Start(huesim.Options{Lights: names, Usernames: []string{user}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sim.Close)
	recall := func(r *http.Request, body []byte) bool {
		return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/groups/0/action") && bytes.Contains(body, []byte(`"scene"`))
	}
	v2 := api == huev1alpha1.APIV2
	proxy := newHoldProxy(t, sim, v2, recall)

	ns, name := "scenecrash-"+strings.ToLower(string(api)), "scene-bridge-"+strings.ToLower(string(api))
	for _, ns := range []string{"tether-system", ns} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "tether-system", Name: name},
		Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte(user), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())}}
	g.Expect(env.Client.Create(ctx, secret)).To(Succeed())
	spec := huev1alpha1.HueBridgeSpec{Address: proxy.URL,
		CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "tether-system", Name: name},
		PollInterval:         &metav1.Duration{Duration: time.Second}}
	if v2 {
		spec.Address, spec.APIVersion, spec.CABundle = proxy.Listener.Addr().String(), huev1alpha1.APIV2, string(sim.CACertPEM())
	}
	bridge := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	g.Expect(env.Client.Create(ctx, bridge)).To(Succeed())
	var lights []*huev1alpha1.HueLight
	for i, bulb := range names {
		l := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: bulb},
			Spec: huev1alpha1.HueLightSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: name}, Name: bulb,
				Brightness: ptr.To(int32(10 + i)), OnDelete: huev1alpha1.DeletionKeep}}
		g.Expect(env.Client.Create(ctx, l)).To(Succeed())
		lights = append(lights, l)
	}
	temporary := func() int {
		count := 0
		for _, sc := range sim.Scenes() {
			if strings.HasPrefix(sc.Name, "tether-temporary-") {
				count++
			}
		}
		return count
	}

	first := startManager(t, "first", "http://127.0.0.1:1", "--hue-poll-interval=1s")
	select {
	case <-proxy.held:
	case <-time.After(timeout):
		t.Fatalf("no temporary scene was recalled; manager log:\n%s", first.logTail(4000))
	}
	first.kill()
	g.Expect(temporary()).To(Equal(1), "the recalled scene is left on the bridge")
	streamsBefore := proxy.streams.Load()

	startManager(t, "second", "http://127.0.0.1:1", "--hue-poll-interval=1s")
	g.Eventually(temporary, timeout, poll).Should(BeZero(), "the restarted manager removes the scene that was left")
	g.Eventually(func() error {
		for i, bulb := range names {
			if l, _ := sim.LightByName(bulb); !l.State.On || l.State.Bri != 10+i {
				return fmt.Errorf("%s: %+v", bulb, l.State)
			}
		}
		return nil
	}, timeout, poll).Should(Succeed())
	if v2 {
		// The second session spoke CLIP v2 through the proxy: its
		// certificate checked against caBundle and the bridge id, an
		// event stream of its own opened and up.
		g.Eventually(func(g Gomega) {
			g.Expect(proxy.streams.Load()).To(BeNumerically(">", streamsBefore))
			var b huev1alpha1.HueBridge
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(bridge), &b)).To(Succeed())
			g.Expect(b.Status.API).To(Equal(huev1alpha1.APIV2))
			g.Expect(b.Status.Certificate).NotTo(BeNil())
			g.Expect(b.Status.Certificate.Check).To(Equal(wire.CertificateVerified))
			g.Expect(b.Status.EventStream).NotTo(BeNil())
			g.Expect(b.Status.EventStream.State).To(Equal(huesession.StreamConnected))
		}, timeout, poll).Should(Succeed(), "the second manager speaks CLIP v2 through the proxy")
	}

	for _, l := range lights {
		g.Expect(env.Client.Delete(ctx, l)).To(Succeed())
	}
	g.Eventually(func() bool {
		var list huev1alpha1.HueLightList
		g.Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		return len(list.Items) == 0
	}, timeout, poll).Should(BeTrue(), "the HueLights are gone before their bridge")
	g.Expect(env.Client.Delete(ctx, bridge)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(bridge), &huev1alpha1.HueBridge{}))
	}, timeout, poll).Should(BeTrue())
	_ = env.Client.Delete(ctx, secret)
}
