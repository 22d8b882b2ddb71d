package bridge

import (
	"sync"

	"github.com/tether-dev/tether/providers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// claims records which HueLights want which bulb of one bridge. Two
// HueLights on one bulb would fight on every poll; the earlier one holds
// it (earliest) and the others wait. Claims belong to the bridge session,
// so HueLights reaching one bridge through two HueBridge objects still see
// each other.
type claims struct {
	mu sync.Mutex
	m  map[string]map[types.NamespacedName]metav1.Time // light id -> claimants
}

func newClaims() *claims {
	return &claims{m: map[string]map[types.NamespacedName]metav1.Time{}}
}

// claim moves key's claim to lightID and returns the holder of lightID.
func (c *claims) claim(key types.NamespacedName, lightID string, created metav1.Time) types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, holders := range c.m {
		if id != lightID {
			delete(holders, key)
			if len(holders) == 0 {
				delete(c.m, id)
			}
		}
	}
	if c.m[lightID] == nil {
		c.m[lightID] = map[types.NamespacedName]metav1.Time{}
	}
	c.m[lightID][key] = created
	return earliest(c.m[lightID])
}

// holders returns the HueLight holding each of the bulbs one holds.
func (c *claims) holders(lightIDs []string) map[string]types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]types.NamespacedName{}
	for _, id := range lightIDs {
		if len(c.m[id]) > 0 {
			out[id] = earliest(c.m[id])
		}
	}
	return out
}

// heldBy lists the bulbs key claims.
func (c *claims) heldBy(key types.NamespacedName) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for id, holders := range c.m {
		if _, ok := holders[key]; ok {
			out = append(out, id)
		}
	}
	return out
}

// release drops key's claims and returns the others that wanted the same
// bulb, so they can take it over.
func (c *claims) release(key types.NamespacedName) []types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	var others []types.NamespacedName
	for id, holders := range c.m {
		if _, ok := holders[key]; !ok {
			continue
		}
		delete(holders, key)
		for k := range holders {
			others = append(others, k)
		}
		if len(holders) == 0 {
			delete(c.m, id)
		}
	}
	return others
}

// earliest is the claimant that holds a bulb, by the one ownership rule
// (providers.Claim.Precedes; a bulb's claims say nothing of holding it, so
// the earliest by creationTimestamp, then by namespace/name). HueLights'
// claims and HueGroups' (rooms.go) follow it.
func earliest(claimants map[types.NamespacedName]metav1.Time) types.NamespacedName {
	var best providers.Claim
	first := true
	for k, t := range claimants {
		if c := (providers.Claim{Key: k, Created: t}); first || c.Precedes(best) {
			best, first = c, false
		}
	}
	return best.Key
}
