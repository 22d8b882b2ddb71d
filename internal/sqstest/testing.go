package sqstest

import "testing"

// SQS starts the emulator for one test and stops it after.
func SQS(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("goaws output:\n%s", s.Output())
		}
	})
	return s
}
