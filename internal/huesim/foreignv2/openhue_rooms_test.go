package foreignv2

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	openhue "github.com/openhue/openhue-go"
)

// TestOpenhueGoMakesAZoneAndCommandsIt: openhue-go v0.4.0's generated
// client, written from Signify's API description by other people, creates
// a zone (RoomPut with light children, answered data [{rid, rtype}] as
// its CreateZoneResponse decodes it), lists the rooms (a room made as the
// Hue app makes one, with device children and its grouped_light in
// services, decoded as RoomGet), finds the zone's grouped_light owned by
// the zone with the zone's v1 id, and switches the zone on at 50 % through
// it: its two lights show it, the others do not. This proves the room,
// zone and grouped_light shapes and the create answer are those of the
// API description as openhue transcribes it, and that a group command
// reaches exactly the group's lights. Then it renames the zone and the
// room with a name alone (UpdateZone, UpdateRoom), which keeps their
// children and archetype: the simulator takes the partial RoomPut the
// description allows. It does not prove what a real
// bridge does with a device another room holds (not documented).
func TestOpenhueGoMakesAZoneAndCommandsIt(t *testing.T) {
	sim := startBridge(t)
	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	colour, ambiance, plug := v1ID(t, sim, "LCT015"), v1ID(t, sim, "LTW001"), v1ID(t, sim, "LOM001")
	roomID := sim.AddGroup("Living room", plug) // as the Hue app makes one

	lightRef := openhue.ResourceIdentifierRtypeLight
	ids := []string{sim.LightIDV2(colour), sim.LightIDV2(ambiance)}
	kids := []openhue.ResourceIdentifier{{Rid: &ids[0], Rtype: &lightRef}, {Rid: &ids[1], Rtype: &lightRef}}
	name, archetype := "Reading", openhue.RoomArchetypeReading
	body := openhue.RoomPut{Children: &kids}
	body.Metadata = &struct {
		Archetype *openhue.RoomArchetype `json:"archetype,omitempty"`
		Name      *string                `json:"name,omitempty"`
	}{Archetype: &archetype, Name: &name}
	created, err := c.CreateZoneWithResponse(ctx, body)
	if err != nil || created.JSON200 == nil || created.JSON200.Data == nil || len(*created.JSON200.Data) != 1 {
		t.Fatalf("CreateZone: %v %s", err, created.Body)
	}
	zone := *(*created.JSON200.Data)[0].Rid
	zoneV1 := ""
	for id, g := range sim.Groups() {
		if g.Name == "Reading" {
			zoneV1 = id
			if g.Type != "Zone" || g.Class != "Reading" || len(g.Lights) != 2 {
				t.Errorf("the zone openhue-go made, in v1: %+v", g)
			}
		}
	}
	if sim.RoomIDV2(zoneV1) != zone {
		t.Fatalf("the zone's rid %s is not the v1 group %s's", zone, zoneV1)
	}

	rooms, err := home.GetRooms()
	if err != nil {
		t.Fatal(err)
	}
	room, ok := rooms[sim.RoomIDV2(roomID)]
	if !ok || room.Children == nil || len(*room.Children) != 1 || *(*room.Children)[0].Rid != sim.DeviceIDV2(plug) ||
		room.Services == nil || len(*room.Services) != 1 || *(*room.Services)[0].Rid != sim.GroupedLightIDV2(roomID) {
		t.Fatalf("the Hue app's room as openhue-go decodes it: %+v", room)
	}
	zones, err := c.GetZonesWithResponse(ctx)
	if err != nil || zones.JSON200 == nil || zones.JSON200.Data == nil || len(*zones.JSON200.Data) != 1 ||
		*(*zones.JSON200.Data)[0].IdV1 != "/groups/"+zoneV1 {
		t.Fatalf("zones: %v %s", err, zones.Body)
	}

	grouped, err := home.GetGroupedLights()
	if err != nil || len(grouped) != 3 {
		t.Fatalf("grouped lights (bridge_home's, the room's, the zone's): %d %v", len(grouped), err)
	}
	gl := grouped[sim.GroupedLightIDV2(zoneV1)]
	if gl.Owner == nil || *gl.Owner.Rid != zone || string(*gl.Owner.Rtype) != "zone" || *gl.IdV1 != "/groups/"+zoneV1 {
		t.Fatalf("the zone's grouped_light: %+v", gl)
	}
	on, bri := true, float32(50)
	if err := home.UpdateGroupedLight(sim.GroupedLightIDV2(zoneV1), openhue.GroupedLightPut{On: &openhue.On{On: &on},
		Dimming: &openhue.Dimming{Brightness: &bri}}); err != nil {
		t.Fatal(err)
	}
	members := []string{colour, ambiance}
	for id, l := range sim.Lights() {
		member := slices.Contains(members, id)
		if l.State.On != member || (member && l.State.Bri != 128) {
			t.Errorf("light %s (%s) after the zone's command: on %v bri %d", id, l.Model, l.State.On, l.State.Bri)
		}
	}

	// A rename is metadata.name alone (RoomPut's fields are all optional),
	// the shape Tether sends when it names a room or zone back: the name
	// changes, the children and the archetype stay.
	rename := func(to string) openhue.RoomPut {
		var put openhue.RoomPut
		put.Metadata = &struct {
			Archetype *openhue.RoomArchetype `json:"archetype,omitempty"`
			Name      *string                `json:"name,omitempty"`
		}{Name: &to}
		return put
	}
	// Each write takes a slot of the bridge's group budget (about one a
	// second), which answers 429 before: tried until it has one.
	g := NewWithT(t)
	g.Eventually(func() int {
		res, err := c.UpdateZoneWithResponse(ctx, zone, rename("Nook"))
		g.Expect(err).NotTo(HaveOccurred())
		return res.StatusCode()
	}, 5*time.Second, 100*time.Millisecond).Should(Equal(http.StatusOK), "UpdateZone with a name alone")
	g.Eventually(func() int {
		res, err := c.UpdateRoomWithResponse(ctx, sim.RoomIDV2(roomID), rename("Lounge"))
		g.Expect(err).NotTo(HaveOccurred())
		return res.StatusCode()
	}, 5*time.Second, 100*time.Millisecond).Should(Equal(http.StatusOK), "UpdateRoom with a name alone")
	groups := sim.Groups()
	if g := groups[zoneV1]; g.Name != "Nook" || g.Class != "Reading" || len(g.Lights) != 2 {
		t.Errorf("the zone after its rename: %+v", g)
	}
	if g := groups[roomID]; g.Name != "Lounge" || len(g.Lights) != 1 || g.Lights[0] != plug {
		t.Errorf("the room after its rename: %+v", g)
	}
	read, err := c.GetZoneWithResponse(ctx, zone)
	if err != nil || read.JSON200 == nil || read.JSON200.Data == nil || len(*read.JSON200.Data) != 1 {
		t.Fatalf("GetZone: %v %s", err, read.Body)
	}
	if z := (*read.JSON200.Data)[0]; z.Metadata == nil || *z.Metadata.Name != "Nook" || string(*z.Metadata.Archetype) != string(archetype) ||
		z.Children == nil || len(*z.Children) != 2 {
		t.Errorf("the renamed zone as openhue-go reads it: %s", mustJSON(z))
	}
}
