package hue

import (
	"testing"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// TestAPINamesAreTheStatusValues: the HueBridge's status.api is the API a
// client names (recordBinding writes one as the other), so the two spell
// each API the same.
func TestAPINamesAreTheStatusValues(t *testing.T) {
	if wire.APIV1 != string(huev1alpha1.APIV1) || wire.APIV2 != string(huev1alpha1.APIV2) {
		t.Fatalf("wire's %q/%q, the API's %q/%q", wire.APIV1, wire.APIV2, huev1alpha1.APIV1, huev1alpha1.APIV2)
	}
}
