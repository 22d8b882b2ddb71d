package wire

import (
	"fmt"
	"strings"
)

// What a client proves of the bridge it speaks to: the API it speaks, the
// certificate it checked, and so how strongly it proves the bridge's id.
// The registry decides by it who may share a session, and the credentials
// Secret keeps it (Record) so that a username goes only over the proof it
// was first sent over, whether or not a session exists.

// proof is how strongly a client's transport proves the bridge's id,
// weakest first.
type proof int

const (
	// proofAddress: plain v1; whoever answers at the address says which
	// bridge it is.
	proofAddress proof = iota
	// proofUnverifiedTLS: HTTPS with insecureSkipVerify; again only the
	// address vouches.
	proofUnverifiedTLS
	// proofCABundle: a certificate that names the id, verified against a
	// CA the HueBridge supplied (caBundle): whoever writes the HueBridge
	// chooses that CA, so it proves the id only as far as that writer is
	// trusted.
	proofCABundle
	// proofHueRoot: a certificate that names the id, chained to a Hue root:
	// only the bridge that id belongs to holds one (Hue developer
	// documentation, "Using HTTPS").
	proofHueRoot
)

// Identity is what a client proves: how, and of what (the certificate's
// fingerprint, or the address).
type Identity struct {
	proof proof
	key   string
}

// StrongerThan reports whether i proves the id more strongly than o: only
// a certificate chained to a Hue root outranks anything, and only what is
// not one. A caBundle the HueBridge supplies and insecureSkipVerify are
// choices of whoever wrote the HueBridge, so they outrank nothing.
func (i Identity) StrongerThan(o Identity) bool {
	return i.proof == proofHueRoot && o.proof != proofHueRoot
}

// Same reports whether i proves the id in the same way as o: the same
// certificate, or the same address at the same proof. Two certificates
// chained to a Hue root that name the id prove the same bridge (its
// certificate may be renewed).
func (i Identity) Same(o Identity) bool {
	return i == o || (i.proof == proofHueRoot && o.proof == proofHueRoot)
}

// Meets reports whether a username recorded as proven by rec may go over
// i: the same proof, or a stronger one.
func (i Identity) Meets(rec Identity) bool { return i.Same(rec) || i.StrongerThan(rec) }

// Verified reports whether i is a verified certificate (CLIP v2): a bridge
// once proven so is never spoken to over plain v1 unless asked by hand.
func (i Identity) Verified() bool { return i.proof >= proofCABundle }

// PlainV1 reports whether i is plain v1, with no TLS at all.
func (i Identity) PlainV1() bool { return i.proof == proofAddress }

// IdentityOf is what the client, reached at address, proves.
func IdentityOf(c Client, address string) Identity {
	info := CertificateOf(c)
	switch {
	case info.Check == CertificateVerified && info.Fingerprint != "" && info.HueRoot:
		return Identity{proof: proofHueRoot, key: info.Fingerprint}
	case info.Check == CertificateVerified && info.Fingerprint != "":
		return Identity{proof: proofCABundle, key: info.Fingerprint}
	case info.Check == CertificateSkipped:
		return Identity{proof: proofUnverifiedTLS, key: addressKey(address)}
	}
	return Identity{proof: proofAddress, key: addressKey(address)}
}

// addressKey compares addresses without their scheme, case or trailing
// slash.
func addressKey(address string) string {
	a := strings.ToLower(strings.TrimSpace(address))
	a = strings.TrimPrefix(strings.TrimPrefix(a, "https://"), "http://")
	return strings.TrimSuffix(a, "/")
}

func (i Identity) String() string {
	switch i.proof {
	case proofHueRoot:
		return fmt.Sprintf("a certificate chained to a Hue root (SHA-256 %.16s...)", i.key)
	case proofCABundle:
		return fmt.Sprintf("a certificate verified against the HueBridge's caBundle (SHA-256 %.16s...)", i.key)
	case proofUnverifiedTLS:
		return fmt.Sprintf("HTTPS without a certificate check at %s", i.key)
	}
	return fmt.Sprintf("plain v1 at %s", i.key)
}

// The words of a recorded proof: "<kind> <key>", the key a certificate's
// SHA-256 (hex) or an address.
var proofWords = map[proof]string{
	proofAddress:       "plain-v1",
	proofUnverifiedTLS: "unverified-tls",
	proofCABundle:      "ca-bundle-sha256",
	proofHueRoot:       "hue-root-sha256",
}

// Record is i as the credentials Secret keeps it (ParseIdentity reads it).
func (i Identity) Record() string { return proofWords[i.proof] + " " + i.key }

// ParseIdentity reads a recorded proof. Anything else is an error: a record
// Tether cannot read proves nothing.
func ParseIdentity(s string) (Identity, error) {
	word, key, ok := strings.Cut(strings.TrimSpace(s), " ")
	for p, w := range proofWords {
		if ok && word == w && key != "" && !strings.ContainsAny(key, " \t\n") {
			return Identity{proof: p, key: key}, nil
		}
	}
	return Identity{}, fmt.Errorf("%.80q is not a recorded proof (%q, %q, %q or %q, then the certificate's SHA-256 or the address)",
		s, proofWords[proofHueRoot], proofWords[proofCABundle], proofWords[proofUnverifiedTLS], proofWords[proofAddress])
}

// APIs as the port's clients name them. The HueBridge's status.api shows
// them as they are (the adapters' TestAPINamesAreTheStatusValues holds the
// two to one spelling).
const (
	APIV1 = "V1"
	APIV2 = "V2"
)

// versioned is a Client that names its API.
type versioned interface{ APIVersion() string }

// APIVersion names the API the v1 client speaks.
func (c *v1Client) APIVersion() string { return APIV1 }

// certified is a Client over HTTPS.
type certified interface{ Certificate() CertificateInfo }

// APIOf is the API a client speaks.
func APIOf(c Client) string {
	if v, ok := c.(versioned); ok {
		return v.APIVersion()
	}
	return APIV1
}

// CertificateOf is what the client checked of the bridge's certificate.
func CertificateOf(c Client) CertificateInfo {
	if cc, ok := c.(certified); ok {
		return cc.Certificate()
	}
	return CertificateInfo{Check: CertificateNone}
}
