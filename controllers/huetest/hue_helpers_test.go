package huetest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/internal/ctrltest"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// The package's tests share one real API server of their own
// (internal/ctrltest), so that go test runs them beside controllers/awstest's.
var env *testenv.Env

func TestMain(m *testing.M) { os.Exit(ctrltest.Main(m, &env)) }

// The Hue integration tests run the HueLight and HueBridge controllers in a
// manager of their own (on the package's API server) against simulated
// bridges over real HTTP.

const (
	hueTimeout   = 30 * time.Second
	huePoll      = 100 * time.Millisecond
	hueUser      = "tether-test-username-0123456789"
	hueSecretsNS = "tether-system"
	// huePollInterval is each test bridge's spec.pollInterval.
	huePollInterval = time.Second
)

var (
	hueOnce   sync.Once
	hueClient client.Client
	hueErr    error
)

// startHue starts the Hue controllers once for the package.
func startHue(t *testing.T) client.Client {
	t.Helper()
	hueOnce.Do(func() { hueClient, hueErr = startHueManager() })
	if hueErr != nil {
		t.Fatalf("starting the Hue controllers: %v", hueErr)
	}
	return hueClient
}

func startHueManager() (client.Client, error) {
	mgr, err := ctrltest.NewManager()
	if err != nil {
		return nil, err
	}
	registry := hue.NewRegistry(mgr.GetClient(), mgr.GetAPIReader(), hue.Settings{
		PollInterval: huePollInterval, CommandsPerSecond: 10, CallTimeout: 2 * time.Second,
		CredentialsNamespaces: []string{hueSecretsNS},
		// A quiet v2 test bridge reconnects its stream this often; a
		// bridge that hangs is noticed no later.
		Stream: bridge.StreamSettings{Silence: 20 * time.Second},
	}, mgr.GetLogger().WithName("hue"))
	if err := mgr.Add(registry); err != nil {
		return nil, err
	}
	if err := controllers.SetupHueLight(mgr, registry); err != nil {
		return nil, err
	}
	if err := controllers.SetupHueGroup(mgr, registry); err != nil {
		return nil, err
	}
	if err := controllers.SetupHueScene(mgr, registry); err != nil {
		return nil, err
	}
	if err := controllers.SetupHueBridge(mgr, registry); err != nil {
		return nil, err
	}
	go func() {
		if err := mgr.Start(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "hue manager:", err)
		}
	}()
	c := env.Client
	for _, ns := range []string{hueSecretsNS, "entrance"} {
		if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	return c, nil
}

// hueEnv is one test's simulated bridge and its HueBridge.
type hueEnv struct {
	t      *testing.T
	c      client.Client
	sim    *huesim.Server
	bridge string
	secret string
	api    string // V1 or V2
}

// hueAPIs are the backends the table-driven Hue suites run on: the v1
// API over HTTP, and CLIP v2 over HTTPS with its event stream.
var hueAPIs = []string{wire.APIV1, wire.APIV2}

// forEachAPI runs a test on each backend, as subtests named by the API.
func forEachAPI(t *testing.T, test func(t *testing.T, api string)) {
	for _, api := range hueAPIs {
		t.Run(api, func(t *testing.T) { test(t, api) })
	}
}

// apiV2WithoutV1 is CLIP v2 on a bridge whose v1 API is gone
// (huesim.Options.V1Off): newHueEnvOn takes it as an API.
const apiV2WithoutV1 = "V2-without-v1"

// forEachGroupAPI runs a HueGroup test on each backend and on CLIP v2
// without v1, where the test also fails if anything but the allowed v1
// requests reached the bridge (expectNoV1).
func forEachGroupAPI(t *testing.T, test func(t *testing.T, api string)) {
	for _, api := range append(hueAPIs, apiV2WithoutV1) {
		t.Run(api, func(t *testing.T) { test(t, api) })
	}
}

// allowedV1 are the v1 requests a session sends a bridge without v1: the
// keyless public config it reads before it sends the key, and the
// sender's one look for temporary groups a crash left, whose 404 tells it
// the bridge has no v1 (TestHueV2BridgeWithoutV1).
var allowedV1 = []huesim.V1Request{
	{Method: "GET", Path: "/api/config"},
	{Method: "GET", Path: "/api/{user}/groups", Refused: true},
}

// expectNoV1 fails the test if the bridge received a v1 request other than
// allowedV1, or the look for temporary groups more than once.
func (h *hueEnv) expectNoV1() {
	h.t.Helper()
	looks := 0
	for _, r := range h.sim.V1Requests() {
		if r == allowedV1[1] {
			looks++
		}
		if !slices.Contains(allowedV1, r) || looks > 1 {
			h.t.Errorf("a v1 request reached the bridge without v1: %+v (all: %+v)", r, h.sim.V1Requests())
			return
		}
	}
}

// groupCommands lists the bodies of the group commands the bridge received
// for the group with v1 id id: PUT /groups/<id>/action on v1 (and scene
// recalls, which still go through v1 on CLIP v2), PUT to its grouped_light
// on CLIP v2.
func (h *hueEnv) groupCommands(id string) []string {
	out := h.commandsTo("PUT", "/groups/"+id+"/action")
	if gl := h.sim.GroupedLightIDV2(id); gl != "" {
		out = append(out, h.commandsTo("PUT", "/clip/v2/resource/grouped_light/"+gl)...)
	}
	return out
}

// sceneRecalls lists the bodies of the recalls of scene sceneID on group
// groupID: a group action with "scene" on v1 (and for a v1 scene on CLIP
// v2), a PUT with recall to the v2 scene on CLIP v2.
func (h *hueEnv) sceneRecalls(groupID, sceneID string) []string {
	var out []string
	for _, body := range h.commandsTo("PUT", "/groups/"+groupID+"/action") {
		if strings.Contains(body, `"scene":"`+sceneID+`"`) {
			out = append(out, body)
		}
	}
	for _, body := range h.commandsTo("PUT", "/clip/v2/resource/scene/"+h.sim.SceneIDV2(sceneID)) {
		if strings.Contains(body, `"recall"`) {
			out = append(out, body)
		}
	}
	return out
}

// sceneWrites lists the bodies of the changes to scene sceneID (not its
// recalls), on either API.
func (h *hueEnv) sceneWrites(sceneID string) []string {
	out := h.commandsTo("PUT", "/scenes/"+sceneID)
	for _, body := range h.commandsTo("PUT", "/clip/v2/resource/scene/"+h.sim.SceneIDV2(sceneID)) {
		if !strings.Contains(body, `"recall"`) {
			out = append(out, body)
		}
	}
	return out
}

// newHueEnv starts a simulator with lights, stores the pre-paired username
// (unless paired is false) and creates a HueBridge for it.
func newHueEnv(t *testing.T, name string, paired bool, lights ...string) *hueEnv {
	t.Helper()
	return newHueEnvWith(t, name, paired, huesim.Options{Lights: lights})
}

// newHueEnvAPI is newHueEnv on an API.
func newHueEnvAPI(t *testing.T, api, name string, paired bool, lights ...string) *hueEnv {
	t.Helper()
	return newHueEnvOn(t, api, name, paired, huesim.Options{Lights: lights})
}

// newHueEnvWith is newHueEnv with the simulator's options (bulb models).
func newHueEnvWith(t *testing.T, name string, paired bool, opts huesim.Options) *hueEnv {
	t.Helper()
	return newHueEnvWithBridge(t, name, paired, opts, nil)
}

// withoutTemporaryScenes is a HueBridge that keeps to light and group
// commands, for tests of those paths.
func withoutTemporaryScenes(spec *huev1alpha1.HueBridgeSpec) { spec.TemporaryScenes = ptr.To(false) }

// newHueEnvWithBridge is newHueEnvWith with a change to the HueBridge's spec.
func newHueEnvWithBridge(t *testing.T, name string, paired bool, opts huesim.Options, change func(*huev1alpha1.HueBridgeSpec)) *hueEnv {
	t.Helper()
	return newHueEnvOnWith(t, wire.APIV1, name, paired, opts, change)
}

// newHueEnvOn is newHueEnvWith on an API: V1 at the simulator's HTTP
// address, V2 at its HTTPS address with its test CA as caBundle (each as
// spec.apiVersion). The
// bridge's name gets the API, so that both runs of a test differ.
func newHueEnvOn(t *testing.T, api, name string, paired bool, opts huesim.Options) *hueEnv {
	t.Helper()
	return newHueEnvOnWith(t, api, name, paired, opts, nil)
}

// newHueEnvOnWith is newHueEnvOn with a change to the HueBridge's spec.
func newHueEnvOnWith(t *testing.T, api, name string, paired bool, opts huesim.Options, change func(*huev1alpha1.HueBridgeSpec)) *hueEnv {
	t.Helper()
	if api != wire.APIV1 {
		name += "-" + strings.ToLower(api)
	}
	c := startHue(t)
	opts.Usernames = []string{hueUser}
	v1Off := api == apiV2WithoutV1
	if v1Off {
		api, opts.V1Off = wire.APIV2, true
	}
	sim, err := huesim.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hueEnv{t: t, c: c, sim: sim, bridge: name, secret: name + "-credentials", api: api}
	if v1Off {
		t.Cleanup(h.expectNoV1) // after h.cleanup: deleting goes without v1 too
	}
	t.Cleanup(h.cleanup)
	if paired {
		h.writeSecret(hueUser)
	}
	b := &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: huev1alpha1.HueBridgeSpec{
			Address:              sim.Addr(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: h.secret},
			PollInterval:         &metav1.Duration{Duration: huePollInterval},
		},
	}
	switch api {
	case wire.APIV1:
		// As asked: apiVersion Auto on plain v1 is Ready with a note
		// (TestHueV2AutoPicksV2).
		b.Spec.APIVersion = huev1alpha1.APIV1
	case wire.APIV2:
		b.Spec.Address, b.Spec.APIVersion, b.Spec.CABundle = sim.TLSAddr(), huev1alpha1.APIV2, string(sim.CACertPEM())
	}
	if change != nil {
		change(&b.Spec)
	}
	NewWithT(t).Expect(c.Create(context.Background(), b)).To(Succeed())
	return h
}

// writeSecret stores a username as a person would, with the id of the
// bridge it belongs to.
func (h *hueEnv) writeSecret(user string) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: hueSecretsNS, Name: h.secret},
		Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(user), huev1alpha1.BridgeIDKey: []byte(h.sim.BridgeID())},
	}
	NewWithT(h.t).Expect(h.c.Create(context.Background(), s)).To(Succeed())
}

// cleanup deletes the test's HueLights, then its HueBridge and Secret, and
// waits until they are gone so the next test starts from an empty cluster.
func (h *hueEnv) cleanup() {
	ctx := context.Background()
	g := NewWithT(h.t)
	for _, list := range []client.ObjectList{&huev1alpha1.HueSceneList{}, &huev1alpha1.HueGroupList{}} {
		g.Expect(h.c.List(ctx, list)).To(Succeed())
		g.Expect(meta.EachListItem(list, func(o runtime.Object) error {
			_ = h.c.Delete(ctx, o.(client.Object))
			return nil
		})).To(Succeed())
		g.Eventually(func(g Gomega) int {
			g.Expect(h.c.List(ctx, list)).To(Succeed())
			return meta.LenList(list)
		}, hueTimeout, huePoll).Should(BeZero(), "%T left behind", list)
	}
	var lights huev1alpha1.HueLightList
	g.Expect(h.c.List(ctx, &lights)).To(Succeed())
	for i := range lights.Items {
		_ = h.c.Delete(ctx, &lights.Items[i])
	}
	if !g.Eventually(func(g Gomega) int {
		var left huev1alpha1.HueLightList
		g.Expect(h.c.List(ctx, &left)).To(Succeed())
		return len(left.Items)
	}, hueTimeout, huePoll).Should(BeZero(), "HueLights left behind") {
		// This test fails for it; the next ones must not.
		h.dropFinalizers(ctx, &huev1alpha1.HueLightList{})
	}
	_ = h.c.Delete(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: h.bridge}})
	if !g.Eventually(func() bool {
		err := h.c.Get(ctx, client.ObjectKey{Name: h.bridge}, &huev1alpha1.HueBridge{})
		return apierrors.IsNotFound(err)
	}, hueTimeout, huePoll).Should(BeTrue(), "HueBridge left behind") {
		h.dropFinalizers(ctx, &huev1alpha1.HueBridgeList{})
	}
	_ = h.c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hueSecretsNS, Name: h.secret}})
	h.sim.Close()
}

// dropFinalizers removes the finalizers of every object of a list kind
// still there, after a failed cleanup, so that one failing test does not
// fail the ones after it.
func (h *hueEnv) dropFinalizers(ctx context.Context, list client.ObjectList) {
	if err := h.c.List(ctx, list); err != nil {
		return
	}
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		obj := o.(client.Object)
		obj.SetFinalizers(nil)
		_ = h.c.Update(ctx, obj)
		return nil
	})
}

// newLight returns a HueLight on the test's bridge for the bulb name.
func (h *hueEnv) newLight(ns, name, bulb string) *huev1alpha1.HueLight {
	return &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: huev1alpha1.HueLightSpec{
			BridgeRef: &huev1alpha1.BridgeReference{Name: h.bridge},
			Name:      bulb,
		},
	}
}

func (h *hueEnv) create(obj client.Object) {
	h.t.Helper()
	NewWithT(h.t).Expect(h.c.Create(context.Background(), obj)).To(Succeed())
}

// update changes a HueLight's spec, retrying on conflicts with the controller.
func (h *hueEnv) update(ns, name string, change func(*huev1alpha1.HueLight)) {
	h.t.Helper()
	NewWithT(h.t).Eventually(func() error {
		var l huev1alpha1.HueLight
		if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &l); err != nil {
			return err
		}
		change(&l)
		return h.c.Update(context.Background(), &l)
	}, hueTimeout, huePoll).Should(Succeed())
}

func (h *hueEnv) light(g Gomega, ns, name string) *huev1alpha1.HueLight {
	var l huev1alpha1.HueLight
	g.Expect(h.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &l)).To(Succeed())
	return &l
}

// bulb returns the simulated bulb's state by name.
func (h *hueEnv) bulb(g Gomega, name string) huesim.LightState {
	l, ok := h.sim.LightByName(name)
	g.Expect(ok).To(BeTrue(), "no bulb %q", name)
	return l.State
}

// readyReason returns the Ready condition as "Status/Reason".
func readyReason(conds []metav1.Condition, conditionType string) string {
	c := meta.FindStatusCondition(conds, conditionType)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

func (h *hueEnv) eventuallyLightReady(ns, name, want string) {
	h.t.Helper()
	NewWithT(h.t).Eventually(func(g Gomega) string {
		l := h.light(g, ns, name)
		ctrltest.ExpectHealth(g, l)
		return readyReason(l.Status.Conditions, "Ready")
	}, hueTimeout, huePoll).Should(Equal(want), "HueLight %s/%s Ready", ns, name)
}

// lightCommands counts the commands the bridge received for one bulb, on
// either API.
func (h *hueEnv) lightCommands(id string) int {
	n := 0
	for _, c := range h.sim.Commands() {
		if c.ForLight(id) {
			n++
		}
	}
	return n
}

func clientKey(obj client.Object) client.ObjectKey { return client.ObjectKeyFromObject(obj) }
