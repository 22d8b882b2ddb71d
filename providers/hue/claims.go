package hue

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// claims records which HueLights want which bulb of one bridge. Two
// HueLights on one bulb would fight on every poll; the earlier one (by
// creationTimestamp, then namespace/name) holds it and the others wait.
// Claims belong to the bridge session, so HueLights reaching one bridge
// through two HueBridge objects still see each other.
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
	return c.holderLocked(lightID)
}

// holderLocked is the earliest claimant of lightID.
func (c *claims) holderLocked(lightID string) types.NamespacedName {
	var best types.NamespacedName
	var bestTime metav1.Time
	first := true
	for k, t := range c.m[lightID] {
		if first || t.Before(&bestTime) || (t.Equal(&bestTime) && k.String() < best.String()) {
			best, bestTime, first = k, t, false
		}
	}
	return best
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
