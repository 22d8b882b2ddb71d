package wire

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Trust in a bridge over HTTPS. A bridge's certificate names the bridge: its
// common name is the bridge id, and it is issued by a Hue root CA, not for an
// address (Hue developer documentation, "Using HTTPS"; docs/hue-behaviour.md,
// "HTTPS certificate"). So Tether verifies the chain against the Hue roots
// (plus spec.caBundle, for bridges and emulators with other certificates) AND
// that the name is the bridge's id, which neither Home Assistant (no
// verification) nor openhue-go (chain only) does: a certificate of another
// Hue bridge is refused too. The address is not checked (bridges are reached
// by IP). Skipping the check is an explicit opt-in, named in the HueBridge's
// status and by a Warning event.

// hueRootCAs are the roots Hue bridges' certificates chain to: "C=NL,
// O=Philips Hue, CN=root-bridge" (2017-2038) and "C=NL, O=Signify Hue,
// CN=Hue Root CA 01" (2025-2050), as Signify publishes them on the Hue
// developer site ("Using HTTPS") and openHAB and openhue-go embed them.
//
//go:embed hue_root_cas.pem
var hueRootCAs []byte

// Certificate checks, as the HueBridge's status.certificate.check names
// them.
const (
	// CertificateVerified: the chain and the bridge id were checked.
	CertificateVerified = "Verified"
	// CertificateSkipped: spec.insecureSkipVerify; nothing was checked.
	CertificateSkipped = "Skipped"
	// CertificateNone: plain HTTP (the v1 API), no certificate.
	CertificateNone = "None"
)

// Reasons of a refused certificate.
const (
	ReasonCertificateUntrusted = "CertificateUntrusted"
	ReasonCertificateMismatch  = "CertificateMismatch"
)

// Trust is what a bridge's certificate is checked against.
type Trust struct {
	// CABundle is PEM certificates trusted besides the Hue roots.
	CABundle []byte
	// BridgeID is the id the certificate must name ("" until known: then
	// the id the bridge's config reports, compared after the first call).
	BridgeID string
	// InsecureSkipVerify checks nothing.
	InsecureSkipVerify bool
	// PinSHA256, when set, is the only certificate (by fingerprint, hex)
	// taken below a Hue root: a bridge proven by a certificate the
	// caBundle verified stays that certificate on every connection (a
	// Hue root's certificate of the id proves the id by itself).
	PinSHA256 string
}

// CertificateError is a bridge certificate Tether refuses.
type CertificateError struct {
	Reason string // ReasonCertificateUntrusted or ReasonCertificateMismatch
	Detail string
}

func (e *CertificateError) Error() string { return e.Detail }

// CertificateInfo is what the last handshake showed of a bridge's
// certificate, for the HueBridge's status.
type CertificateInfo struct {
	Check    string // CertificateVerified, CertificateSkipped or CertificateNone
	Subject  string // its common name
	Issuer   string
	NotAfter time.Time
	// Fingerprint is the SHA-256 of the certificate (hex): what tells one
	// bridge's certificate from another that names the same id
	// (Identity).
	Fingerprint string
	// HueRoot is true when a verified certificate chains to one of the Hue
	// roots, false when it chains only to the HueBridge's caBundle: only
	// the first proves the id whoever wrote the HueBridge (proof.go).
	HueRoot bool
}

// peerRecord keeps the certificate of a client's last handshake.
type peerRecord struct {
	mu   sync.Mutex
	info CertificateInfo
}

func (p *peerRecord) set(info CertificateInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.info = info
}

func (p *peerRecord) get() CertificateInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}

// tlsConfig checks a bridge's certificate as Trust says, recording it in
// peer.
func (t Trust) tlsConfig(peer *peerRecord) (*tls.Config, error) {
	hueRoots := x509.NewCertPool()
	if !hueRoots.AppendCertsFromPEM(hueRootCAs) {
		return nil, errors.New("the embedded Hue root CAs do not parse")
	}
	pool := hueRoots.Clone()
	if len(t.CABundle) > 0 && !pool.AppendCertsFromPEM(t.CABundle) {
		return nil, &CertificateError{Reason: ReasonCertificateUntrusted, Detail: "caBundle holds no PEM certificate"}
	}
	want := NormalizeBridgeID(t.BridgeID)
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The standard check is for a host name; a bridge's certificate
		// names no host, so VerifyConnection checks chain and id instead.
		InsecureSkipVerify: true, //nolint:gosec // verified below unless the user opted out
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return &CertificateError{Reason: ReasonCertificateUntrusted, Detail: "the bridge presented no certificate"}
			}
			leaf := cs.PeerCertificates[0]
			sum := sha256.Sum256(leaf.Raw)
			info := CertificateInfo{Check: CertificateSkipped, Subject: leaf.Subject.CommonName,
				Issuer: leaf.Issuer.CommonName, NotAfter: leaf.NotAfter, Fingerprint: hex.EncodeToString(sum[:])}
			if t.InsecureSkipVerify {
				peer.set(info)
				return nil
			}
			if err := verifyChain(cs.PeerCertificates, pool); err != nil {
				return err
			}
			if got := NormalizeBridgeID(leaf.Subject.CommonName); want != "" && got != want {
				return &CertificateError{Reason: ReasonCertificateMismatch, Detail: fmt.Sprintf(
					"the bridge's certificate names bridge %q, not %q: another bridge answers at this address", leaf.Subject.CommonName, t.BridgeID)}
			}
			info.HueRoot = verifyChain(cs.PeerCertificates, hueRoots) == nil
			if t.PinSHA256 != "" && !info.HueRoot && info.Fingerprint != t.PinSHA256 {
				return &CertificateError{Reason: ReasonCertificateMismatch, Detail: fmt.Sprintf(
					"the bridge's certificate (SHA-256 %.16s...) is not the one it was proven by (SHA-256 %.16s...): another server answers at this address",
					info.Fingerprint, t.PinSHA256)}
			}
			info.Check = CertificateVerified
			peer.set(info)
			return nil
		},
	}, nil
}

// verifyChain checks the chain against the roots, for no host name.
func verifyChain(certs []*x509.Certificate, roots *x509.CertPool) error {
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		return &CertificateError{Reason: ReasonCertificateUntrusted, Detail: fmt.Sprintf(
			"the bridge's certificate (%q, issued by %q) is not trusted: %v; a bridge or emulator with a certificate of its own needs its CA in spec.caBundle",
			certs[0].Subject.CommonName, certs[0].Issuer.CommonName, err)}
	}
	return nil
}

// checkBridgeID checks, once the bridge's config is read, that the
// certificate names the bridge the config reports (when the HueBridge gave
// no id to check against before).
func checkBridgeID(info CertificateInfo, bridgeID string) error {
	if info.Check != CertificateVerified || NormalizeBridgeID(info.Subject) == NormalizeBridgeID(bridgeID) {
		return nil
	}
	return &CertificateError{Reason: ReasonCertificateMismatch, Detail: fmt.Sprintf(
		"the bridge's certificate names bridge %q, but the bridge says it is %q", info.Subject, bridgeID)}
}
