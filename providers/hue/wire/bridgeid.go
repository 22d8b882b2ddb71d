package wire

import "strings"

// A bridge id comes in several spellings: the bridge's /api/config and the
// Hue app show 16 upper-case hex characters, CLIP v2's bridge resource and
// the certificate's common name lower case, mDNS (zeroconf) 17 characters
// with colons (Hue developer documentation, "Using HTTPS" and "Hue Bridge
// Discovery"; aiohue's util.normalize_bridge_id). An id compared in one
// spelling and looked up in another is two bridges, so every id is put in
// one form where it enters this package (a bridge's answer) and where it
// enters the adapters (spec.bridgeID, a Secret, a status): NormalizeBridgeID.
// Everything keyed by a bridge id (sessions, the registry's maps, mDNS
// results) is keyed by that form.

// NormalizeBridgeID is the one form of a bridge id: upper case, without
// colons or surrounding space, as /api/config and the Hue app show it.
func NormalizeBridgeID(id string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(id), ":", ""))
}

// SameBridgeID compares two bridge ids in any of their spellings.
func SameBridgeID(a, b string) bool { return NormalizeBridgeID(a) == NormalizeBridgeID(b) }
