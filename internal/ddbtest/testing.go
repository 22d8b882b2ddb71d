package ddbtest

import (
	"testing"

	"github.com/tether-dev/tether/internal/faultproxy"
)

// DynamoDBLocal starts DynamoDB Local for one test and stops it after.
func DynamoDBLocal(t testing.TB, opts LocalOptions) *Server {
	t.Helper()
	s, err := StartDynamoDBLocal(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopAndReport(t, s) })
	return s
}

// Dynalite starts dynalite for one test and stops it after.
func Dynalite(t testing.TB, opts DynaliteOptions) *Server {
	t.Helper()
	s, err := StartDynalite(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopAndReport(t, s) })
	return s
}

// FaultProxy puts a fault-injecting proxy in front of url for one test.
func FaultProxy(t testing.TB, url string, seed uint64) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(url, seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// UseEndpoint points the AWS SDK's default chain at url for one test
// (through t.Setenv, so the test cannot run in parallel).
func UseEndpoint(t testing.TB, url string) {
	t.Helper()
	for k, v := range EnvFor(url) {
		t.Setenv(k, v)
	}
}

func stopAndReport(t testing.TB, s *Server) {
	s.Stop()
	if t.Failed() {
		t.Logf("%s output:\n%s", s.Name, s.Output())
	}
}
