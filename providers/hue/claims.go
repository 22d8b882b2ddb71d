package hue

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// claims records which HueLights want which bulb of one bridge. Two
// HueLights on one bulb would fight on every poll; the earlier one (by
// creationTimestamp, then namespace/name) holds it and the others wait.
type claims map[string]map[types.NamespacedName]metav1.Time

// claim moves key's claim to lightID and returns the holder of lightID.
func (c claims) claim(key types.NamespacedName, lightID string, created metav1.Time) types.NamespacedName {
	for id, holders := range c {
		if id != lightID {
			delete(holders, key)
			if len(holders) == 0 {
				delete(c, id)
			}
		}
	}
	if c[lightID] == nil {
		c[lightID] = map[types.NamespacedName]metav1.Time{}
	}
	c[lightID][key] = created
	return c.holder(lightID)
}

// holder is the earliest claimant of lightID.
func (c claims) holder(lightID string) types.NamespacedName {
	var best types.NamespacedName
	var bestTime metav1.Time
	first := true
	for k, t := range c[lightID] {
		if first || t.Before(&bestTime) || (t.Equal(&bestTime) && k.String() < best.String()) {
			best, bestTime, first = k, t, false
		}
	}
	return best
}

// release drops key's claims and returns the others that wanted the same
// bulb, so they can take it over.
func (c claims) release(key types.NamespacedName) []types.NamespacedName {
	var others []types.NamespacedName
	for id, holders := range c {
		if _, ok := holders[key]; !ok {
			continue
		}
		delete(holders, key)
		for k := range holders {
			others = append(others, k)
		}
		if len(holders) == 0 {
			delete(c, id)
		}
	}
	return others
}
