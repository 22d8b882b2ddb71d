package wire

import (
	"fmt"
	"strings"
)

// What a client proves of the bridge it speaks to: the API it speaks, the
// certificate it checked, and so how strongly it proves the bridge's id
// (the registry decides by it who may share a session).

// proof is how strongly a client's transport proves the bridge's id.
type proof int

const (
	proofAddress proof = iota
	proofUnverifiedTLS
	proofCertificate
)

// Identity is what a client proves: how, and of what (the certificate's
// fingerprint, or the address).
type Identity struct {
	proof proof
	key   string
}

// StrongerThan reports whether i proves the id more strongly than o.
func (i Identity) StrongerThan(o Identity) bool { return i.proof > o.proof }

// IdentityOf is what the client, reached at address, proves.
func IdentityOf(c Client, address string) Identity {
	info := CertificateOf(c)
	switch {
	case info.Check == CertificateVerified && info.Fingerprint != "":
		return Identity{proof: proofCertificate, key: info.Fingerprint}
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
	case proofCertificate:
		return fmt.Sprintf("a verified certificate (SHA-256 %.16s...)", i.key)
	case proofUnverifiedTLS:
		return fmt.Sprintf("HTTPS without a certificate check at %s", i.key)
	}
	return fmt.Sprintf("plain v1 at %s", i.key)
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
