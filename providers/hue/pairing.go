package hue

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// The pace of pairing: how long a HueBridge waits between asking its bridge
// for a username, and what it asks the person to do meanwhile.

// Pairing asks an unpaired bridge for a username PairingInterval after the
// first try, then twice as long after each, up to PairingMaxInterval: a
// link button pressed soon after the HueBridge is created is caught within
// seconds, and one nobody presses costs the bridge a request every 15 s,
// not every 3 s for ever. The cap is half the link button's 30 s window,
// so a press is always caught while the window is open.
const (
	PairingInterval    = 3 * time.Second
	PairingMaxInterval = 15 * time.Second
)

// pairingDelay is how long to wait before asking again: as long as the
// HueBridge has been waiting (since Paired became False), within the two
// bounds.
func pairingDelay(b *huev1alpha1.HueBridge, now time.Time) time.Duration {
	waited := time.Duration(0)
	if c := meta.FindStatusCondition(b.Status.Conditions, huev1alpha1.ConditionPaired); c != nil && c.Status == metav1.ConditionFalse {
		waited = now.Sub(c.LastTransitionTime.Time)
	}
	return min(max(waited, PairingInterval), PairingMaxInterval)
}

// linkButtonMessage is what a person must do; it is the condition message.
const linkButtonMessage = "press the link button on the bridge"
