package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestAnOperatorThatExitsAtStart stands in for the manager with a script
// that notes its --metrics-bind-address, prints a last log line and exits.
// One that could not bind its metrics port (another process took the port
// between its release and the manager's bind, and Go's net package says
// "address already in use") is started again, on a port picked afresh each
// time, and the failure says why; any other exit at startup is final, with
// the manager's log.
func TestAnOperatorThatExitsAtStart(t *testing.T) {
	cases := []struct {
		name       string
		lastLine   string
		starts     int
		portTaken  bool
		wantInLogs string
	}{
		{"its metrics port taken", "listen tcp 127.0.0.1:9: bind: address already in use", testenv.PortAttempts, true, "address already in use"},
		{"another failure", "no kubeconfig", 1, false, "no kubeconfig"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tried := filepath.Join(dir, "tried")
			bin := filepath.Join(dir, "manager")
			script := "#!/bin/sh\nfor a in \"$@\"; do case $a in --metrics-bind-address=*) echo \"${a#*=}\" >> '" + tried + "';; esac; done\necho '" + tc.lastLine + "'\nexit 1\n"
			if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := StartOperator(ctx, bin, "kubeconfig", "http://127.0.0.1:1", filepath.Join(dir, "log"))
			if err == nil || errors.Is(err, testenv.ErrPortTaken) != tc.portTaken || !strings.Contains(err.Error(), tc.wantInLogs) {
				t.Fatalf("the start failed with %v; want the manager's log, and port taken %v", err, tc.portTaken)
			}
			out, err := os.ReadFile(tried)
			if err != nil {
				t.Fatal(err)
			}
			if addrs := strings.Fields(string(out)); len(addrs) != tc.starts {
				t.Fatalf("the manager was started on %v; want %d starts", addrs, tc.starts)
			}
		})
	}
}

// TestTheManagerServesProfilesOnlyWhenAsked stands in for the manager with
// a script that writes down its arguments and exits: figures 1 to 6 pass
// --pprof-bind-address only when the options name an address, so that no
// figure pays for a profile server it was not asked for.
func TestTheManagerServesProfilesOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		name, pprof, want string
	}{
		{"not asked", "", ""},
		{"asked", "127.0.0.1:6061", "--pprof-bind-address=127.0.0.1:6061"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := filepath.Join(dir, "args")
			bin := filepath.Join(dir, "manager")
			script := "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\" >> '" + args + "'; done\necho 'no kubeconfig'\nexit 1\n"
			if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			opts := Options{Scale: QuickScale(), OperatorPprof: tc.pprof}
			if _, err := startOperator(ctx, bin, "kubeconfig", "http://127.0.0.1:1", opts, filepath.Join(dir, "log")); err == nil {
				t.Fatal("a manager that exits at start was taken as started")
			}
			out, err := os.ReadFile(args)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range strings.Fields(string(out)) {
				if strings.HasPrefix(a, "--pprof-bind-address") {
					got = append(got, a)
				}
			}
			if want := strings.Fields(tc.want); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("the manager was given %q; want %q", got, want)
			}
		})
	}
}
