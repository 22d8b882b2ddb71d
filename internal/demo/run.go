package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// Run is `make demo`: it starts everything, writes the pid file that `make
// demo-down` signals, calls ready, and on ctx's end stops everything and
// removes every file it wrote in the state folder, and the folder when it
// made it. The operator's log goes to operator.log there, or to stderr when
// verbose.
func Run(ctx context.Context, opts Options, verbose bool, ready func(*Demo)) (err error) {
	opts = withDefaults(opts)
	state, err := openState(opts.StateDir)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, state.remove()) }()

	if verbose {
		ctrl.SetLogger(zap.New())
	} else {
		f, err := os.Create(state.file(OperatorLog))
		if err != nil {
			return err
		}
		defer f.Close()
		ctrl.SetLogger(zap.New(zap.WriteTo(f)))
	}

	d, err := Start(ctx, opts)
	if err != nil {
		return err
	}
	defer d.Stop()
	if err := os.WriteFile(state.file(PidFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return err
	}
	ready(d)
	<-ctx.Done()
	fmt.Fprintln(opts.Progress, "\nStopping: operator, simulator, DynamoDB Local, API server")
	return nil
}

// Files Run keeps in the state folder (Start adds the kubeconfig and
// demo.env, and removes them itself).
const (
	OperatorLog = "operator.log"
	PidFile     = "demo.pid"
)

// state is the demo's folder. Every file Run writes there is recorded so
// that remove leaves nothing behind; the folder goes too when Run made it
// and nothing else is in it.
type state struct {
	dir   string
	made  bool
	files []string
}

func openState(dir string) (*state, error) {
	_, err := os.Stat(dir)
	made := errors.Is(err, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &state{dir: dir, made: made}, nil
}

// file is the path of name in the folder, to be removed at the end.
func (s *state) file(name string) string {
	path := filepath.Join(s.dir, name)
	s.files = append(s.files, path)
	return path
}

func (s *state) remove() error {
	var errs []error
	for _, f := range s.files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if s.made {
		if err := os.Remove(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("removing the demo's folder: %w", err))
		}
	}
	return errors.Join(errs...)
}
