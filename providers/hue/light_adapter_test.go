package hue

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// newTestLights returns the adapter over a fake cluster holding objs, one
// paired HueBridge "home", and the fake bridge f.
func newTestLights(t *testing.T, f *fakebridge.FakeBridge, objs ...client.Object) *LightExternal {
	t.Helper()
	return newTestLightsAt(t, map[string]*fakebridge.FakeBridge{"bridge": f}, objs...)
}

// newTestLightsAt is newTestLights with a fake bridge per address.
func newTestLightsAt(t *testing.T, bridges map[string]*fakebridge.FakeBridge, objs ...client.Object) *LightExternal {
	t.Helper()
	c, reg := newTestRegistry(t, func(address string) wire.Client { return bridges[address] }, objs...)
	return &LightExternal{Reader: c, Registry: reg}
}

// newTestRegistry is a fake cluster holding objs and the paired HueBridge
// "home" at address "bridge", and a registry whose sessions poll once an
// hour through the client bridge returns for an address.
func newTestRegistry(t *testing.T, bridge func(address string) wire.Client, objs ...client.Object) (client.Client, *Registry) {
	t.Helper()
	return newTestRegistryWith(t, Settings{}, bridge, objs...)
}

// newTestRegistryWith is newTestRegistry with settings of the test's own
// besides those.
func newTestRegistryWith(t *testing.T, settings Settings, bridge func(address string) wire.Client, objs ...client.Object) (client.Client, *Registry) {
	t.Helper()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = huev1alpha1.AddToScheme(scheme)
	objs = append(objs,
		&huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "home", UID: "u1", Generation: 1},
			Spec: huev1alpha1.HueBridgeSpec{Address: "bridge", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue"}}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue"}, Data: map[string][]byte{"username": []byte("u"), "bridgeid": []byte("FAKE")}},
	)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	settings.CredentialsNamespaces, settings.PollInterval = []string{"s"}, time.Hour
	settings.NewClient = func(address, _ string, _ time.Duration) wire.Client { return bridge(address) }
	reg := NewRegistry(c, c, settings, logr.Discard())
	t.Cleanup(reg.Stop)
	return c, reg
}

func hueLight(ns, name, bulb string, created time.Time) *huev1alpha1.HueLight {
	return &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec:       huev1alpha1.HueLightSpec{Name: bulb, Brightness: ptr.To[int32](254), OnDelete: huev1alpha1.DeletionTurnOff},
	}
}

func TestObserveTheTalkManifest(t *testing.T) {
	f := fakebridge.NewFakeBridge("hallway")
	e := newTestLights(t, f)
	l := hueLight("entrance", "hallway-light", "hallway", time.Now())
	obs, err := observe(context.Background(), e, l)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := obs.Diff.(*LightDiff)
	if obs.Outcome != providers.OutcomeUpdate || !ok || *d.Body.On != true || *d.Body.Bri != 254 {
		t.Fatalf("observation %+v", obs)
	}
	if l.Status.LightID != "1" || l.Status.Observed == nil || l.Status.Observed.On {
		t.Fatalf("status %+v", l.Status)
	}
	if err := update(context.Background(), e, l, obs.Diff); err != nil {
		t.Fatal(err)
	}
	if obs, _ := observe(context.Background(), e, l); obs.Outcome != providers.OutcomeWait || obs.Wait.Reason != "" {
		t.Fatalf("after Update: %+v; want the cache to match by what the bridge accepted, waiting for the read back", obs)
	}
	if gets, puts := f.Calls(); gets != 1 || len(puts) != 1 {
		t.Fatalf("%d GETs and %d PUTs, want 1 and 1", gets, len(puts))
	}
}

func TestLaterClaimGetsConflictAndSendsNothing(t *testing.T) {
	f := fakebridge.NewFakeBridge("desk")
	early := hueLight("b-room", "desk", "desk", time.Unix(100, 0))
	late := hueLight("a-room", "desk", "desk", time.Unix(200, 0))
	e := newTestLights(t, f, early.DeepCopy(), late.DeepCopy())
	ctx := context.Background()
	for _, l := range []*huev1alpha1.HueLight{late, early} {
		if _, err := observe(ctx, e, l); err != nil {
			t.Fatal(err)
		}
	}
	obs, err := observe(ctx, e, late)
	if err != nil || obs.Wait.Reason != providers.ReasonConflict || obs.Outcome != providers.OutcomeWait || !strings.Contains(obs.Wait.Message, "b-room/desk") {
		t.Fatalf("later claim: %+v, %v", obs, err)
	}
	if err := remove(ctx, e, late); err != nil {
		t.Fatal(err)
	}
	if _, puts := f.Calls(); len(puts) != 0 {
		t.Fatalf("the later claim sent %v", puts)
	}
}

func TestDelete(t *testing.T) {
	cases := []struct {
		name     string
		policy   huev1alpha1.DeletionPolicy
		on       bool
		wantPuts string
	}{
		{"TurnOff switches a light that is on off", huev1alpha1.DeletionTurnOff, true, `[{1 false}]`},
		{"TurnOff leaves a light that is off alone", huev1alpha1.DeletionTurnOff, false, `[]`},
		{"Keep sends nothing", huev1alpha1.DeletionKeep, true, `[]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fakebridge.NewFakeBridge("hallway")
			f.Set("1", func(s *model.LightState) { s.On = tc.on })
			l := hueLight("entrance", "hallway-light", "hallway", time.Now())
			l.Spec.OnDelete = tc.policy
			e := newTestLights(t, f, l.DeepCopy())
			if err := remove(context.Background(), e, l); err != nil {
				t.Fatal(err)
			}
			_, puts := f.Calls()
			got := "["
			for i, p := range puts {
				if i > 0 {
					got += " "
				}
				got += "{" + p.ID + " " + map[bool]string{true: "true", false: "false"}[*p.Body.On] + "}"
			}
			if got += "]"; got != tc.wantPuts {
				t.Fatalf("PUTs %s, want %s", got, tc.wantPuts)
			}
		})
	}
}

func TestObserveRefusals(t *testing.T) {
	cases := []struct {
		name       string
		light      func() *huev1alpha1.HueLight
		extra      []client.Object
		wantReason string
		wantText   string
	}{
		{"unknown name lists the bridge's lights", func() *huev1alpha1.HueLight { return hueLight("ns", "x", "attic", time.Now()) },
			nil, ReasonLightNotFound, `it has: "hallway", "kitchen"`},
		{"unknown bridgeRef", func() *huev1alpha1.HueLight {
			l := hueLight("ns", "x", "hallway", time.Now())
			l.Spec.BridgeRef = &huev1alpha1.BridgeReference{Name: "cottage"}
			return l
		}, nil, ReasonBridgeNotFound, "cottage"},
		{"two bridges and no bridgeRef", func() *huev1alpha1.HueLight { return hueLight("ns", "x", "hallway", time.Now()) },
			[]client.Object{&huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "cottage"}}}, ReasonBridgeAmbiguous, "cottage, home"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestLights(t, fakebridge.NewFakeBridge("hallway", "kitchen"), tc.extra...)
			_, err := observe(context.Background(), e, tc.light())
			reason := ""
			if ra, ok := providers.AsRetryAfter(err); ok {
				reason = ra.Reason
			} else if te, ok := providers.AsTerminal(err); ok {
				reason = te.Reason
			}
			if reason != tc.wantReason || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("got %v (reason %q), want %s mentioning %q", err, reason, tc.wantReason, tc.wantText)
			}
		})
	}
}

func TestFindLight(t *testing.T) {
	lights := bridge.Lights{
		"1": {ID: "1", Name: "hallway"},
		"7": {ID: "7", Name: "kitchen"},
	}
	cases := []struct {
		name, specName, specID, cachedID string
		wantID, wantReason               string
	}{
		{"by name", "kitchen", "", "", "7", ""},
		{"by cached id", "hallway", "", "1", "1", ""},
		{"cached id now another bulb: re-resolved by name", "kitchen", "", "1", "7", ""},
		{"cached id gone: re-resolved by name", "kitchen", "", "3", "7", ""},
		{"by id", "", "7", "", "7", ""},
		{"unknown id", "", "9", "", "", ReasonLightNotFound},
		{"name is exact", "Kitchen", "", "", "", ReasonLightNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := hueLight("ns", "x", tc.specName, time.Now())
			l.Spec.ID, l.Status.LightID = tc.specID, tc.cachedID
			got, err := findLight(lights, l, "home")
			if tc.wantReason != "" {
				if ra, ok := providers.AsRetryAfter(err); !ok || ra.Reason != tc.wantReason {
					t.Fatalf("want %s, got %v", tc.wantReason, err)
				}
				return
			}
			if err != nil || got.ID != tc.wantID {
				t.Fatalf("got %q, %v; want %q", got.ID, err, tc.wantID)
			}
		})
	}
}

// TestMovingToAnotherBridgeReleasesTheBulb: a HueLight whose bridgeRef
// changes lets go of its bulb on the old bridge, so another HueLight may
// take it (and group 0 there no longer counts it).
func TestMovingToAnotherBridgeReleasesTheBulb(t *testing.T) {
	f, elsewhere := fakebridge.NewFakeBridge("desk"), fakebridge.NewFakeBridge("desk")
	elsewhere.SetID("ELSEWHERE")
	office := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "office", UID: "u2", Generation: 1},
		Spec: huev1alpha1.HueBridgeSpec{Address: "bridge2", CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: "s", Name: "hue-office"}}}
	officeCredentials := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "hue-office"},
		Data: map[string][]byte{"username": []byte("u"), "bridgeid": []byte("ELSEWHERE")}}
	early := hueLight("b-room", "desk", "desk", time.Unix(100, 0))
	late := hueLight("a-room", "desk", "desk", time.Unix(200, 0))
	early.Spec.BridgeRef = &huev1alpha1.BridgeReference{Name: "home"}
	late.Spec.BridgeRef = &huev1alpha1.BridgeReference{Name: "home"}
	e := newTestLightsAt(t, map[string]*fakebridge.FakeBridge{"bridge": f, "bridge2": elsewhere}, office, officeCredentials, early.DeepCopy(), late.DeepCopy())
	ctx := context.Background()
	for _, l := range []*huev1alpha1.HueLight{early, late} {
		if _, err := observe(ctx, e, l); err != nil {
			t.Fatal(err)
		}
	}
	if obs, _ := observe(ctx, e, late); obs.Wait.Reason != providers.ReasonConflict {
		t.Fatalf("before the move the later HueLight should be in conflict: %+v", obs)
	}
	early.Spec.BridgeRef.Name = "office"
	if _, err := observe(ctx, e, early); err != nil {
		t.Fatal(err)
	}
	obs, err := observe(ctx, e, late)
	if err != nil || obs.Outcome == providers.OutcomeWait {
		t.Fatalf("after the holder moved to another bridge: %+v, %v", obs, err)
	}
}

// readNow makes bridge's session read it at once, as its next poll would.
func readNow(ctx context.Context, t *testing.T, reg *Registry, bridge string) {
	t.Helper()
	s, ok := reg.Running(bridge)
	if !ok {
		t.Fatalf("no session for bridge %s", bridge)
	}
	if err := s.Poll(ctx); err != nil {
		t.Fatal(err)
	}
}

// observe, update and remove run one step of a pass as the reconciler does:
// connect, then the step. remove marks the object deleted first.
func observe[O client.Object](ctx context.Context, c providers.Connector[O], obj O) (providers.Observation, error) {
	ext, err := c.Connect(ctx, obj)
	if err != nil {
		return providers.Observation{}, err
	}
	return ext.Observe(ctx, obj)
}

// update is Update, with a write the bridge accepted and has yet to show
// (the quiet wait for its read-back) as a success.
func update[O client.Object](ctx context.Context, c providers.Connector[O], obj O, diff providers.Difference) error {
	err := updateAndWait(ctx, c, obj, diff)
	if awaitsReadBack(err) {
		return nil
	}
	return err
}

func updateAndWait[O client.Object](ctx context.Context, c providers.Connector[O], obj O, diff providers.Difference) error {
	ext, err := c.Connect(ctx, obj)
	if err != nil {
		return err
	}
	return ext.Update(ctx, obj, diff)
}

// awaitsReadBack: err is the quiet wait of a write the bridge accepted, for
// the read that shows it.
func awaitsReadBack(err error) bool {
	h, ok := providers.AsHanded(err)
	return ok && h.Quiet && h.Reason == "" && h.For > 0
}

func remove[O client.Object](ctx context.Context, c providers.Connector[O], obj O) error {
	now := metav1.Now()
	obj.SetDeletionTimestamp(&now)
	ext, err := c.Connect(ctx, obj)
	if err != nil {
		return err
	}
	return ext.Delete(ctx, obj)
}

// TestAMatchNotYetReadBackWaitsQuietlyForTheRead: right after a command the
// bulb matches only by what the bridge accepted, while the status still
// shows the read from before the command. Update and Observe then wait
// quietly (no status write) for the read that shows it, which wakes the
// HueLight (bridge.TestAReadBackWakesWhatItConfirms); the look after that
// read is a confirmed match with status.observed from the read, so the
// change costs one status write (issue 28 item 1).
func TestAMatchNotYetReadBackWaitsQuietlyForTheRead(t *testing.T) {
	ctx := context.Background()
	f := fakebridge.NewFakeBridge("hallway")
	e := newTestLights(t, f) // polls once an hour: no read comes by itself
	l := hueLight("entrance", "hallway-light", "hallway", time.Now())
	obs, err := observe(ctx, e, l)
	if err != nil {
		t.Fatal(err)
	}
	if err := updateAndWait(ctx, e, l, obs.Diff); !awaitsReadBack(err) {
		t.Fatalf("update: %v; want a quiet wait for the read back", err)
	}
	obs, err = observe(ctx, e, l)
	if err != nil || obs.Outcome != providers.OutcomeWait || !obs.Wait.Quiet || obs.Wait.Reason != "" ||
		obs.Wait.For <= 0 || obs.Wait.For > time.Hour+eventBatch {
		t.Fatalf("after the command, before a read: %+v, %v; want a quiet wait of at most the poll interval (1h) and the event batching", obs, err)
	}
	if l.Status.Observed.On || l.Status.Observed.Brightness != 127 {
		t.Fatalf("status.observed %+v before a read, want the last read (off, 127)", *l.Status.Observed)
	}

	f.Set("1", func(st *model.LightState) { st.On, st.Bri = true, ptr.To(254) }) // the bulb shows the command
	readNow(ctx, t, e.Registry, "home")
	obs, err = observe(ctx, e, l)
	if err != nil || obs.Outcome != providers.OutcomeUpToDate || obs.Unconfirmed || obs.NextLook != 0 {
		t.Fatalf("after a read: %+v, %v; want a confirmed match at the resync interval", obs, err)
	}
	if !l.Status.Observed.On || l.Status.Observed.Brightness != 254 {
		t.Fatalf("status.observed %+v after a read, want on, 254", *l.Status.Observed)
	}
}

// TestACommandInLineShowsOnlyOnceItLasts: a HueLight whose command waits
// in the sender's line says nothing for quietQueue (a quiet wait: the reconciler
// leaves its status as it was, and the sender wakes it once the command
// goes), then says Throttled, so that a line that does not move (a bridge
// that does not answer, a long queue) still shows in the status.
func TestACommandInLineShowsOnlyOnceItLasts(t *testing.T) {
	ctx := context.Background()
	f := fakebridge.NewFakeBridge("hallway", "porch") // two bulbs: group 0 is not an option
	// One light slot an hour: once the porch's command took the slot the
	// bridge has, the line does not move.
	c, reg := newTestRegistryWith(t, Settings{CommandsPerSecond: 1.0 / 3600}, func(string) wire.Client { return f })
	e := &LightExternal{Reader: c, Registry: reg}
	porch := hueLight("entrance", "porch-light", "porch", time.Now())
	obs, err := observe(ctx, e, porch)
	if err == nil {
		err = update(ctx, e, porch, obs.Diff)
	}
	if _, puts := f.Calls(); err != nil || len(puts) != 1 {
		t.Fatalf("the porch's command: %v, %d sent; want it sent at once", err, len(puts))
	}

	l := hueLight("entrance", "hallway-light", "hallway", time.Now())
	obs, err = observe(ctx, e, l)
	if err != nil || obs.Diff == nil {
		t.Fatalf("first look: %+v, %v; want a difference", obs, err)
	}
	diff := obs.Diff
	err = update(ctx, e, l, diff)
	p, ok := providers.AsHanded(err)
	if !ok || !p.Quiet || p.For <= 0 || p.For > quietQueue {
		t.Fatalf("update with the line held: %v (%+v); want queued briefly, looked at again within %s", err, p, quietQueue)
	}
	obs, err = observe(ctx, e, l)
	if err != nil || obs.Outcome != providers.OutcomeWait || !obs.Wait.Quiet || obs.Wait.For <= 0 || obs.Wait.For > quietQueue {
		t.Fatalf("look while queued for a moment: %+v, %v; want a brief wait", obs, err)
	}

	// The command waits on; once it has waited quietQueue, a look says so.
	g := NewWithT(t)
	g.Eventually(func(g Gomega) {
		obs, err := observe(ctx, e, l)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(obs.Outcome == providers.OutcomeWait && !obs.Wait.Quiet && obs.Wait.Reason == providers.ReasonThrottled).To(BeTrue(), "a plain Throttled wait: %+v", obs)
	}, quietQueue+5*time.Second, 100*time.Millisecond).Should(Succeed(), "look once the command waited %s", quietQueue)
	err = update(ctx, e, l, diff)
	if p, ok := providers.AsHanded(err); !ok || p.Quiet || p.Reason != providers.ReasonThrottled {
		t.Fatalf("update once the command waited %s: %+v; want it reported plainly", quietQueue, p)
	}
}

// TestTheReadBackWaitCoversTheEventBatching: the quiet wait for the read
// that shows an accepted write lasts a poll interval and a CLIP v2
// bridge's event batching (at most one message a second), so that with a
// one-second poll interval an event held back by the batching still comes
// within it; past both, the status says what the bridge accepted.
func TestTheReadBackWaitCoversTheEventBatching(t *testing.T) {
	cases := []struct {
		name              string
		interval, elapsed time.Duration
		waiting           bool
	}{
		{"just accepted", time.Second, 0, true},
		{"a poll interval of 1 s gone, the batched event still due", time.Second, 1500 * time.Millisecond, true},
		{"past the interval and the batching", time.Second, 2100 * time.Millisecond, false},
		{"the default interval, its read long due", 5 * time.Second, 7 * time.Second, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := readBackWaitLeft(c.interval, c.elapsed) > 0; got != c.waiting {
				t.Fatalf("waiting %v after %v with a %v interval, want %v", got, c.elapsed, c.interval, c.waiting)
			}
		})
	}
}
