package bridge

import (
	"slices"
	"sync"

	"github.com/tether-dev/tether/providers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// claims records which objects want which bulb of one bridge: HueLights
// (one bulb each) in the session's claims, HueGroups (their members) in
// rooms'. Two objects on one bulb would fight on every poll; the earlier
// one holds it (earliest) and the others wait. Claims belong to the bridge
// session, so objects reaching one bridge through two HueBridge objects
// still see each other.
type claims struct {
	mu sync.Mutex
	m  map[string]map[types.NamespacedName]metav1.Time // light id -> claimants
}

func newClaims() *claims {
	return &claims{m: map[string]map[types.NamespacedName]metav1.Time{}}
}

// claim moves key's claim to lightID and returns the holder of lightID.
func (c *claims) claim(key types.NamespacedName, lightID string, created metav1.Time) types.NamespacedName {
	return c.claimAll(key, []string{lightID}, created)[lightID]
}

// claimAll records that key wants the bulbs lightIDs and no others, and
// returns the holder of each.
func (c *claims) claimAll(key types.NamespacedName, lightIDs []string, created metav1.Time) map[string]types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, holders := range c.m {
		if !slices.Contains(lightIDs, id) {
			delete(holders, key)
			if len(holders) == 0 {
				delete(c.m, id)
			}
		}
	}
	out := make(map[string]types.NamespacedName, len(lightIDs))
	for _, id := range lightIDs {
		if c.m[id] == nil {
			c.m[id] = map[types.NamespacedName]metav1.Time{}
		}
		c.m[id][key] = created
		out[id] = earliest(c.m[id])
	}
	return out
}

// claimants lists the objects that want one of the bulbs.
func (c *claims) claimants(lightIDs []string) []types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []types.NamespacedName
	for _, id := range lightIDs {
		for k := range c.m[id] {
			out = append(out, k)
		}
	}
	return out
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
