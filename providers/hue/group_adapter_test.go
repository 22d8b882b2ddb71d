package hue

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huetest/fakebridge"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/model"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// fakeRoomsBridge is fakeBridge with rooms: its groups and the group
// commands it accepted. Like the fake's light commands, a group command
// changes no bulb until the test says the bulbs show it (set): reads are
// what the test lets them be.
type fakeRoomsBridge struct {
	*fakebridge.FakeBridge
	mu          sync.Mutex
	groups      []wire.Group
	groupPuts   []fakebridge.Put
	errNotFaked error
}

func newFakeRoomsBridge(f *fakebridge.FakeBridge, groups ...wire.Group) *fakeRoomsBridge {
	return &fakeRoomsBridge{FakeBridge: f, groups: groups, errNotFaked: errors.New("not in the fake rooms bridge")}
}

func (f *fakeRoomsBridge) ListGroups(context.Context) ([]wire.Group, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.groups), f.Err()
}

func (f *fakeRoomsBridge) SetGroupState(_ context.Context, id string, body model.StateBody) (wire.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.Err(); err != nil {
		return wire.Result{}, err
	}
	f.groupPuts = append(f.groupPuts, fakebridge.Put{ID: id, Body: body})
	return wire.Result{Accepted: body}, nil
}

func (f *fakeRoomsBridge) groupCommands() []fakebridge.Put {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.groupPuts)
}

func (f *fakeRoomsBridge) Scenes(context.Context) ([]wire.Scene, error) { return nil, nil }

func (f *fakeRoomsBridge) CreateRoom(context.Context, wire.GroupSpec) (string, error) {
	return "", f.errNotFaked
}
func (f *fakeRoomsBridge) SetGroupLights(context.Context, string, []string) error {
	return f.errNotFaked
}
func (f *fakeRoomsBridge) RenameGroup(context.Context, string, string) error {
	return f.errNotFaked
}
func (f *fakeRoomsBridge) Scene(context.Context, string) (wire.Scene, error) {
	return wire.Scene{}, f.errNotFaked
}
func (f *fakeRoomsBridge) CreateScene(context.Context, wire.SceneSpec) (string, error) {
	return "", f.errNotFaked
}
func (f *fakeRoomsBridge) UpdateScene(context.Context, string, wire.SceneSpec) error {
	return f.errNotFaked
}
func (f *fakeRoomsBridge) DeleteScene(context.Context, string) error { return f.errNotFaked }
func (f *fakeRoomsBridge) RecallScene(context.Context, string, string, *int) error {
	return f.errNotFaked
}

// TestAGroupMatchNotYetReadBackWaitsQuietlyForTheRead: right after a group
// command the members match only by what the bridge accepted, while
// status.members still shows the read from before the command (all off).
// As a HueLight's (TestAMatchNotYetReadBackWaitsQuietlyForTheRead), the
// HueGroup waits quietly for the read that shows the command; the look
// after it is a confirmed match with the members as read.
func TestAGroupMatchNotYetReadBackWaitsQuietlyForTheRead(t *testing.T) {
	ctx := context.Background()
	f := newFakeRoomsBridge(fakebridge.NewFakeBridge("sofa", "desk", "shelf"),
		wire.Group{ID: "4", Name: "Living room", Type: wire.GroupRoom, LightIDs: []string{"1", "2", "3"}})
	reader, reg := newTestRegistry(t, func(string) wire.Client { return f }) // polls once an hour: no read comes by itself
	e := &GroupExternal{Reader: reader, Registry: reg}
	g := &huev1alpha1.HueGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "home", Name: "living", CreationTimestamp: metav1.Now()},
		Spec:       huev1alpha1.HueGroupSpec{Name: "Living room", On: ptr.To(true), Brightness: ptr.To[int32](254)},
	}
	membersOn := func() []bool {
		var on []bool
		for _, m := range g.Status.Members {
			on = append(on, m.On)
		}
		return on
	}

	obs, err := observe(ctx, e, g)
	if err != nil || obs.Outcome == providers.OutcomeUpToDate || obs.Diff == nil {
		t.Fatalf("before the command: %+v, %v; want a difference", obs, err)
	}
	if err := updateAndWait(ctx, e, g, obs.Diff); !awaitsReadBack(err) {
		t.Fatalf("update: %v; want a quiet wait for the read back", err)
	}
	if sent := f.groupCommands(); len(sent) != 1 || sent[0].ID != "4" {
		t.Fatalf("group commands %+v, want one to group 4", sent)
	}
	obs, err = observe(ctx, e, g)
	if err != nil || obs.Outcome != providers.OutcomeWait || !obs.Wait.Quiet || obs.Wait.Reason != "" ||
		obs.Wait.For <= 0 || obs.Wait.For > time.Hour+eventBatch {
		t.Fatalf("after the command, before a read: %+v, %v; want a quiet wait of at most the poll interval (1h) and the event batching", obs, err)
	}
	if on := membersOn(); !slices.Equal(on, []bool{false, false, false}) {
		t.Fatalf("status.members on = %v before a read, want the last read (all off)", on)
	}

	for _, id := range []string{"1", "2", "3"} { // the bulbs show the command
		f.Set(id, func(st *model.LightState) { st.On, st.Bri = true, ptr.To(254) })
	}
	readNow(ctx, t, reg, "home")
	obs, err = observe(ctx, e, g)
	if err != nil || obs.Outcome != providers.OutcomeUpToDate || obs.Unconfirmed || obs.NextLook != 0 {
		t.Fatalf("after a read: %+v, %v; want a confirmed match at the resync interval", obs, err)
	}
	if on := membersOn(); !slices.Equal(on, []bool{true, true, true}) {
		t.Fatalf("status.members on = %v after a read, want all on", on)
	}
}
