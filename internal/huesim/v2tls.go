package huesim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"strings"
	"time"
)

// A real bridge serves HTTPS with a certificate whose common name is its
// bridge id (16 hex characters), issued by a Hue root CA; clients verify the
// chain and check the name against the bridge id, not the IP (Hue developer
// documentation, "Using HTTPS"; docs/hue-behaviour.md, "HTTPS certificate"). The
// simulator does the same with a test CA of its own, made when it starts:
// point a client at the CA (CACertPEM, the control API's /ca.pem) as it would
// point at a Hue root.

// certs is the simulator's test CA and the bridge's certificate.
type certs struct {
	caPEM  []byte
	leaf   tls.Certificate
	leafCN string
}

// newCerts makes a test CA and a bridge certificate issued by it, for the
// name cn. The certificate also carries cn as a DNS name and 127.0.0.1, so
// that ordinary clients (curl --cacert --resolve, Go's default checks with
// ServerName) verify it too. A Bridge Pro's (pro) has the shape of the Pro
// certificate openhab-addons ships (huebridge3_cacert.pem, issue #19337):
// OU=BSB003, issued by a CA named root-bridge as the Hue root is.
//
// With chain set (a Pro's, Options.ProChain), the leaf is issued by an
// intermediate CA below the test CA, sent after the leaf (ProIntermediate)
// or not (ProIncompleteChain).
func newCerts(cn string, pro bool, chain ProChain) (*certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               caSubject(pro),
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      leafSubject(cn, pro),
		DNSNames:     []string{cn},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	issuer, issuerKey, sent := ca, caKey, caDER
	if chain != ProDirect {
		if issuer, issuerKey, err = newIntermediate(ca, caKey); err != nil {
			return nil, err
		}
		sent = issuer.Raw
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, issuer, &key.PublicKey, issuerKey)
	if err != nil {
		return nil, err
	}
	sentChain := [][]byte{leafDER, sent}
	if chain == ProIncompleteChain {
		sentChain = sentChain[:1]
	}
	return &certs{
		caPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		leaf:   tls.Certificate{Certificate: sentChain, PrivateKey: key},
		leafCN: cn,
	}, nil
}

// newIntermediate is a CA issued by ca, for a Pro's chain with an
// intermediate (its name is the simulator's: no Pro's is on record).
func newIntermediate(ca *x509.Certificate, caKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Country: []string{"NL"}, Organization: []string{"Philips Hue"}, CommonName: "huesim intermediate"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	inter, err := x509.ParseCertificate(der)
	return inter, key, err
}

// caSubject is the test CA's name: on a Pro the Hue root's, root-bridge
// (the issuer of the certificate openhab-addons ships).
func caSubject(pro bool) pkix.Name {
	if pro {
		return pkix.Name{Country: []string{"NL"}, Organization: []string{"Philips Hue"}, CommonName: "root-bridge"}
	}
	return pkix.Name{Country: []string{"NL"}, Organization: []string{"Tether Hue Simulator"}, CommonName: "huesim test CA"}
}

// leafSubject is the bridge certificate's name; a Pro's names its model
// in OU.
func leafSubject(cn string, pro bool) pkix.Name {
	n := pkix.Name{Country: []string{"NL"}, Organization: []string{"Philips Hue"}, CommonName: cn}
	if pro {
		n.OrganizationalUnit = []string{"BSB003"}
	}
	return n
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// certificateName is the common name of the bridge's certificate: its
// bridge id in lower case (mDNS gives it in lower case and certificates
// were seen in either case), on a Pro in upper case (CN=C42996FFFEC4E2D8
// in the certificate openhab-addons ships), unless
// Options.CertificateName says otherwise.
func (o Options) certificateName() string {
	if o.CertificateName != "" {
		return o.CertificateName
	}
	if o.Pro {
		return strings.ToUpper(o.BridgeID)
	}
	return strings.ToLower(o.BridgeID)
}

// CACertPEM is the simulator's test CA, PEM-encoded: what a HueBridge's
// spec.caBundle holds for this bridge.
func (s *Server) CACertPEM() []byte { return s.certs.caPEM }

// CertificateName is the common name of the certificate the bridge serves.
func (s *Server) CertificateName() string { return s.certs.leafCN }

// Certificate is the certificate the bridge serves on HTTPS, with its key:
// for a test proxy that stands in for the bridge, as clients see it (its
// name is the bridge id and it chains to CACertPEM).
func (s *Server) Certificate() tls.Certificate { return s.certs.leaf }
