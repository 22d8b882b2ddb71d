package hue

import (
	"fmt"
	"time"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// A bridge's identity, and who may share its session. Sessions are keyed
// by bridge id, but an id is only a claim: what proves it is the
// transport. Four proofs, weakest first (wire/proof.go):
//   - plain v1: whoever answers at the address says which bridge it is,
//     and anyone on the path can say anything;
//   - CLIP v2 with insecureSkipVerify: encrypted, but any certificate is
//     taken, so again only the address vouches;
//   - CLIP v2 with a certificate that names the id, verified against the
//     HueBridge's caBundle: as good as whoever wrote the HueBridge, who
//     chose that CA;
//   - CLIP v2 with a certificate that names the id, chained to a Hue root:
//     the bridge itself, whatever the address.
//
// A HueBridge shares the session of its bridge id only when its client
// proves the id in the same way as the session's: the same certificate
// (by fingerprint; a certificate of the same name from another CA, given
// in another HueBridge's caBundle, is another bridge; any two chained to a
// Hue root are the bridge), or, below a verified certificate, the same
// address at the same proof. Anything else could take over a session its
// owner verified (point a v1 HueBridge at any server that reports the
// victim's id, or add a duplicate with insecureSkipVerify or a caBundle of
// its own), so:
//   - a newcomer that does not prove the id in the same way is refused
//     with BridgeIdentityConflict before it sends a username, and the
//     session keeps its client;
//   - a newcomer whose certificate chains to a Hue root, where the session
//     has anything less, takes the session over, and the HueBridges bound
//     to it are refused in turn: otherwise whoever bound first, which after
//     a restart is chance, would lock the real bridge out.
//
// The session is what is bound now; what the credentials Secret records
// (connect.go, checkRecordedProof) decides also when nothing is bound.

// identityConflictDelay spaces the retries of a refused newcomer: only a
// spec change (or the other HueBridge's deletion) resolves it.
const identityConflictDelay = time.Minute

// admit decides whether HueBridge b, proving id for bridge bridgeID, may
// share the session whose client came from HueBridge holder, proving held
// (holder "": none): nil to share; evict when b proves more and takes the
// session over; otherwise the conflict.
func admit(b *huev1alpha1.HueBridge, bridgeID string, id wire.Identity, holder string, held wire.Identity) (evict bool, err error) {
	switch {
	case holder == "" || id.Same(held):
		return false, nil
	case id.StrongerThan(held):
		return true, nil
	}
	return false, providers.RetryAfter(identityConflictDelay, ReasonBridgeIdentityConflict, fmt.Errorf(
		"HueBridge %s reaches bridge %s over %s, but HueBridge %s holds that bridge's session over %s: a HueBridge shares a bridge only when it proves the id as strongly and in the same way (the same certificate, or the same address), so this one is not bound and sends nothing; point it at the bridge as %s does, or delete one of the two",
		b.Name, bridgeID, id, holder, held, holder))
}
