package hue

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// A bridge's identity, and who may share its session. Sessions are keyed
// by bridge id, but an id is only a claim: what proves it is the
// transport. Three proofs, weakest first:
//   - plain v1 (proofAddress): whoever answers at the address says which
//     bridge it is, and anyone on the path can say anything;
//   - CLIP v2 with insecureSkipVerify (proofUnverifiedTLS): encrypted, but
//     any certificate is taken, so again only the address vouches;
//   - CLIP v2 with a verified certificate that names the id
//     (proofCertificate): the certificate itself, whatever the address.
//
// A HueBridge shares the session of its bridge id only when its client
// proves the id in the same way as the session's: the same certificate
// (by fingerprint; a certificate of the same name from another CA, given
// in another HueBridge's caBundle, is another bridge), or, below a
// verified certificate, the same address at the same proof. Anything else
// could take over a session its owner verified (point a v1 HueBridge at
// any server that reports the victim's id, or add a duplicate with
// insecureSkipVerify), so:
//   - a newcomer that proves less, or proves as much but differently, is
//     refused with BridgeIdentityConflict before it sends a username, and
//     the session keeps its client;
//   - a newcomer that proves more (a verified certificate where the
//     session had an address) takes the session over, and the HueBridges
//     bound to it are refused in turn: otherwise whoever bound first,
//     which after a restart is chance, would lock the verified bridge out.

// identityConflictDelay spaces the retries of a refused newcomer: only a
// spec change (or the other HueBridge's deletion) resolves it.
const identityConflictDelay = time.Minute

// holderLocked is the HueBridge whose client the session speaks through,
// and what that client proves. Callers hold r.mu.
func (r *Registry) holderLocked(run *running) (string, wire.Identity) {
	for name, bd := range r.bindings {
		if bd.run == run && bd.client == run.client {
			return name, wire.IdentityOf(bd.client, bd.address)
		}
	}
	return "", wire.Identity{}
}

// admitLocked decides whether HueBridge b, proving id for the bridge, may
// share a session: nil to share; evict when b proves more and takes the
// session over; otherwise the conflict. Callers hold r.mu.
func (r *Registry) admitLocked(b *huev1alpha1.HueBridge, run *running, id wire.Identity) (evict bool, err error) {
	holder, held := r.holderLocked(run)
	switch {
	case holder == "" || id == held:
		return false, nil
	case id.StrongerThan(held):
		return true, nil
	}
	return false, providers.RetryAfter(identityConflictDelay, ReasonBridgeIdentityConflict, fmt.Errorf(
		"HueBridge %s reaches bridge %s over %s, but HueBridge %s holds that bridge's session over %s: a HueBridge shares a bridge only when it proves the id as strongly and in the same way (the same certificate, or the same address), so this one is not bound and sends nothing; point it at the bridge as %s does, or delete one of the two",
		b.Name, run.id, id, holder, held, holder))
}

// checkIdentity is admitLocked before any credentials go out: a newcomer
// that would be refused learns it before it sends a username.
func (r *Registry) checkIdentity(b *huev1alpha1.HueBridge, bridgeID string, id wire.Identity) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	run, ok := r.sessions[bridgeID]
	if !ok || r.onlyUserLocked(b.Name, run) {
		return nil
	}
	_, err := r.admitLocked(b, run, id)
	return err
}

// evictLocked unbinds every HueBridge of a session and stops it, for a
// newcomer that proves more; they are woken, and refused when they bind
// again. Callers hold r.mu.
func (r *Registry) evictLocked(run *running) {
	for name, bd := range r.bindings {
		if bd.run != run {
			continue
		}
		delete(r.bindings, name)
		r.log.Info("a HueBridge that proves the bridge's identity more strongly takes the session over", "hueBridge", name, "bridgeID", run.id)
		select {
		case r.bridges <- Wake{Object: types.NamespacedName{Name: name}}:
		default:
		}
	}
	r.stopLocked(run)
}
