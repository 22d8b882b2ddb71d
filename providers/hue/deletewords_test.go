package hue

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

func readyReason(reason string) []metav1.Condition {
	return []metav1.Condition{{Type: commonv1alpha1.Ready, Status: metav1.ConditionFalse, Reason: reason}}
}

// TestDeleteIsDescribedAsItHappened: the Deleted event says what deleting
// did on the bridge; a bulb is never removed and an adopted room stays.
func TestDeleteIsDescribedAsItHappened(t *testing.T) {
	light := func(id string, onDelete huev1alpha1.DeletionPolicy, conds []metav1.Condition) *huev1alpha1.HueLight {
		l := &huev1alpha1.HueLight{Spec: huev1alpha1.HueLightSpec{Name: "hallway", OnDelete: onDelete}}
		l.Status.LightID, l.Status.Conditions = id, conds
		return l
	}
	group := func(id string, created bool, onDelete huev1alpha1.DeletionPolicy, typ string) *huev1alpha1.HueGroup {
		g := &huev1alpha1.HueGroup{Spec: huev1alpha1.HueGroupSpec{Name: "Living room", OnDelete: onDelete}}
		g.Status.GroupID, g.Status.Created, g.Status.Type = id, created, typ
		return g
	}
	scene := &huev1alpha1.HueScene{Spec: huev1alpha1.HueSceneSpec{Name: "Evening"}}
	scene.Status.SceneID = "abc"
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"a bulb switched off", (&LightExternal{}).DescribeDelete(light("1", "", nil)), `switched bulb "hallway" off and let go of it`},
		{"a bulb kept", (&LightExternal{}).DescribeDelete(light("1", huev1alpha1.DeletionKeep, nil)),
			`let go of bulb "hallway", left as it was (onDelete: Keep)`},
		{"a bulb another HueLight drives", (&LightExternal{}).DescribeDelete(light("1", "", readyReason(providers.ReasonConflict))),
			`let go; bulb "hallway" is driven by another HueLight`},
		{"no bulb", (&LightExternal{}).DescribeDelete(light("", "", nil)), `let go; it never drove a bulb ("hallway")`},
		{"a bulb gone from the bridge", (&LightExternal{}).DescribeDelete(light("1", "", readyReason(ReasonLightNotFound))),
			`let go; there was no bulb "hallway" to switch off`},
		{"an adopted room", (&GroupExternal{}).DescribeDelete(group("3", false, "", wire.GroupRoom)),
			`switched its lights off; room "Living room" stays on the bridge, as the Hue app made it`},
		{"a zone Tether created, lights kept", (&GroupExternal{}).DescribeDelete(group("4", true, huev1alpha1.DeletionKeep, wire.GroupZone)),
			`left its lights as they were and removed zone "Living room" from the bridge`},
		{"a scene", (&SceneExternal{}).DescribeDelete(scene), `removed scene "Evening" from the bridge`},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}
