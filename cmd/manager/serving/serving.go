// Package serving is what the manager serves besides reconciling: its
// metrics, over HTTPS to authenticated and authorised scrapers only, and its
// health probes, where readiness means the caches have synced.
package serving

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"net/http"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Metrics are the metrics endpoint's flags, as kubebuilder v4 scaffolds them.
type Metrics struct {
	// BindAddress is where the endpoint listens; "0" turns it off.
	BindAddress string
	// Secure serves HTTPS and lets through only requests whose bearer token
	// the API server authenticates (TokenReview) and authorises for GET
	// /metrics (SubjectAccessReview). Off, it is plain HTTP for anyone.
	Secure bool
	// CertDir holds CertName and KeyName (e.g. a cert-manager Secret);
	// without them the server makes itself a self-signed certificate.
	CertDir, CertName, KeyName string
	// EnableHTTP2 is off by default: HTTP/2 Rapid Reset and Stream
	// Cancellation (CVE-2023-44487, CVE-2023-39325) need only a TLS
	// connection, before any authentication.
	EnableHTTP2 bool
}

// DefaultMetricsPort is the HTTPS port of the metrics endpoint, the one the
// install manifest's Service and the Helm chart use.
const DefaultMetricsPort = "8443"

// DefaultMetrics is the endpoint a deployed manager serves.
func DefaultMetrics() Metrics {
	return Metrics{BindAddress: ":" + DefaultMetricsPort, Secure: true, CertName: "tls.crt", KeyName: "tls.key"}
}

// BindFlags registers the metrics flags, with m's values as defaults.
func (m *Metrics) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&m.BindAddress, "metrics-bind-address", m.BindAddress,
		"Address the metrics endpoint binds to; 0 turns it off.")
	fs.BoolVar(&m.Secure, "metrics-secure", m.Secure,
		"Serve metrics over HTTPS to clients whose token the API server authenticates and authorises for GET /metrics; false serves plain HTTP to anyone.")
	fs.StringVar(&m.CertDir, "metrics-cert-path", m.CertDir,
		"Folder holding the metrics certificate and key (watched for renewals); empty: a self-signed certificate.")
	fs.StringVar(&m.CertName, "metrics-cert-name", m.CertName, "File name of the metrics certificate in --metrics-cert-path.")
	fs.StringVar(&m.KeyName, "metrics-cert-key", m.KeyName, "File name of the metrics key in --metrics-cert-path.")
	fs.BoolVar(&m.EnableHTTP2, "enable-http2", m.EnableHTTP2,
		"Allow HTTP/2 on the metrics endpoint (off: HTTP/1.1 only, against HTTP/2 stream-reset floods).")
}

// ServerOptions are controller-runtime's metrics server options for m.
func (m Metrics) ServerOptions() metricsserver.Options {
	o := metricsserver.Options{
		BindAddress:   m.BindAddress,
		SecureServing: m.Secure,
		CertDir:       m.CertDir,
		CertName:      m.CertName,
		KeyName:       m.KeyName,
	}
	if !m.EnableHTTP2 {
		o.TLSOpts = append(o.TLSOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	if m.Secure {
		o.FilterProvider = WithTokenAndAccessReview
	}
	return o
}

// cacheSyncWait bounds how long one readiness probe waits for the caches;
// kubelet's default probe timeout is 1 s.
const cacheSyncWait = 500 * time.Millisecond

// AddHealthChecks registers liveness (the process answers) and readiness
// (every informer the manager started has synced its cache).
//
// A standby replica (leader election on, not the leader) has started no
// informers, so it is ready as soon as its manager runs: it can take over.
// The leader is ready once the caches its controllers read are filled, so a
// rollout does not count a replica that still lists everything as ready.
func AddHealthChecks(mgr ctrl.Manager) error {
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("caches", cachesSynced(mgr))
}

func cachesSynced(mgr ctrl.Manager) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), cacheSyncWait)
		defer cancel()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errNotSynced
		}
		return nil
	}
}

var errNotSynced = errors.New("the informer caches have not synced yet")
