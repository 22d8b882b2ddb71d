package soak

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/internal/bench"
)

// process is one run of the manager binary: the soak restarts it.
type process struct {
	op *bench.Operator
	// n counts the processes from 1; started is when its metrics answered.
	n       int
	started time.Time
	// stopping is set before the soak stops it, so that its end is not
	// taken for a crash.
	stopping bool
}

// operator is the manager process of the moment.
func (s *soak) operator() *bench.Operator {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc.op
}

// current is the manager process of the moment and whether a restart is
// under way (the process is then not to be sampled).
func (s *soak) current() (process, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.proc, s.restarting
}

// startManager starts the manager's process n, logging to a file of its
// own, and reports on s.crashed if it ends without being stopped.
func (s *soak) startManager(ctx context.Context, n int) error {
	logPath := filepath.Join(s.opts.WorkDir, fmt.Sprintf("manager-%d.log", n))
	op, err := bench.StartOperatorWithEnv(ctx, s.bin, s.w.Kubeconfig, s.w.Proxy.URL(), s.managerEnv, logPath, s.opts.managerFlags()...)
	if err != nil {
		return err
	}
	p := &process{op: op, n: n, started: time.Now()}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	go func() {
		<-op.Exited()
		s.mu.Lock()
		stopped := p.stopping
		s.mu.Unlock()
		if !stopped {
			select {
			case s.crashed <- n:
			default:
			}
		}
	}()
	return nil
}

// restartManager stops the manager (SIGKILL when kill, else SIGTERM and
// the grace it gives) and starts the next process; the log watch moves to
// the new process's log once the old one's is read to its end.
func (s *soak) restartManager(ctx context.Context, kill bool) error {
	s.mu.Lock()
	old := s.proc
	old.stopping = true
	s.restarting = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.restarting = false
		s.mu.Unlock()
	}()
	if kill {
		old.op.Kill()
	} else {
		old.op.Stop()
	}
	if err := s.log.read(time.Now()); err != nil {
		return err
	}
	if err := s.startManager(ctx, old.n+1); err != nil {
		return err
	}
	s.log.follow(s.operator().LogPath)
	return nil
}
