package hue

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
)

// What deleting a Hue object did on the bridge, for the Deleted event
// (providers.DeleteDescriber): a bulb is never removed, and a room the Hue
// app made stays.
var (
	_ providers.DeleteDescriber[*huev1alpha1.HueLight] = (*LightExternal)(nil)
	_ providers.DeleteDescriber[*huev1alpha1.HueGroup] = (*GroupExternal)(nil)
	_ providers.DeleteDescriber[*huev1alpha1.HueScene] = (*SceneExternal)(nil)
)

// DescribeDelete: the bulb switched off, or left as it was.
func (e *LightExternal) DescribeDelete(l *huev1alpha1.HueLight) string {
	switch {
	case l.Status.LightID == "":
		return fmt.Sprintf("let go; it never drove a bulb (%q)", l.Spec.Name)
	case conflicted(l.Status.Conditions):
		return fmt.Sprintf("let go; bulb %q is driven by another HueLight", l.Spec.Name)
	case readyReasonIn(l.Status.Conditions, ReasonLightNotFound, ReasonBridgeNotFound, ReasonNotPaired, ReasonNamespaceNotAllowed):
		return fmt.Sprintf("let go; there was no bulb %q to switch off", l.Spec.Name)
	case l.Spec.OnDelete == huev1alpha1.DeletionKeep:
		return fmt.Sprintf("let go of bulb %q, left as it was (onDelete: Keep)", l.Spec.Name)
	}
	return fmt.Sprintf("switched bulb %q off and let go of it", l.Spec.Name)
}

// DescribeDelete: a room or zone Tether created is removed; one it adopted
// stays on the bridge. Its lights are switched off unless onDelete Keep.
func (e *GroupExternal) DescribeDelete(g *huev1alpha1.HueGroup) string {
	kind := strings.ToLower(g.Status.Type)
	if kind == "" {
		kind = "group"
	}
	lights := "switched its lights off"
	if g.Spec.OnDelete == huev1alpha1.DeletionKeep || conflicted(g.Status.Conditions) {
		lights = "left its lights as they were"
	}
	switch {
	case g.Status.GroupID == "":
		return fmt.Sprintf("let go; it never drove a %s (%q)", kind, g.Spec.Name)
	case created(g):
		return fmt.Sprintf("%s and removed %s %q from the bridge", lights, kind, g.Spec.Name)
	}
	return fmt.Sprintf("%s; %s %q stays on the bridge, as the Hue app made it", lights, kind, g.Spec.Name)
}

// DescribeDelete: the scene is removed from the bridge.
func (e *SceneExternal) DescribeDelete(sc *huev1alpha1.HueScene) string {
	if sc.Status.SceneID == "" {
		return "let go; it never stored a scene"
	}
	return fmt.Sprintf("removed scene %q from the bridge", sceneName(sc))
}

// conflicted: Ready said another object drives the same lights, so deleting
// this one sent nothing to them.
func conflicted(conditions []metav1.Condition) bool {
	return readyReasonIn(conditions, providers.ReasonConflict)
}

// readyReasonIn: Ready's reason is one of reasons.
func readyReasonIn(conditions []metav1.Condition, reasons ...string) bool {
	ready := meta.FindStatusCondition(conditions, commonv1alpha1.Ready)
	return ready != nil && slices.Contains(reasons, ready.Reason)
}
