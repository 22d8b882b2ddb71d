package huesim

import (
	"crypto/sha1"
	"fmt"
	"math"
)

// The CLIP v2 view's building blocks (v2resources.go): resource ids,
// references, and brightness in v2's percent.

// resource is one v2 resource as JSON fields.
type resource = map[string]any

// v2ID is a stable resource id (a name-based UUID) for one resource of the
// bridge: the same bulb keeps its ids across restarts of the simulator.
func (b *Bridge) v2ID(kind, key string) string {
	h := sha1.Sum([]byte(b.opts.BridgeID + "/" + kind + "/" + key))
	h[6] = h[6]&0x0f | 0x50 // version 5
	h[8] = h[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func ref(rid, rtype string) map[string]string { return map[string]string{"rid": rid, "rtype": rtype} }

// brightnessOf is v1 bri (1-254) as v2 brightness (0-100 %): what real
// bridges report fits (bri-1)/253*100 at two decimals (docs/hue-behaviour.md,
// "Brightness and colour temperature"; derived, not documented).
func brightnessOf(bri int) float64 {
	return math.Round(float64(clampInt(bri, 1, 254)-1)/253*100*100) / 100
}

// briOf is the inverse: a v2 brightness as v1 bri. 0 sets the lowest level
// (API reference text kept in aiohue's feature.py).
func briOf(brightness float64) int {
	return clampInt(int(math.Round(brightness/100*253))+1, 1, 254)
}
