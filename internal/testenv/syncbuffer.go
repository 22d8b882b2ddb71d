package testenv

import (
	"bytes"
	"sync"
)

// SyncBuffer collects the output of processes and loggers written from
// several goroutines (a manager's workers, a child process's pipes), for a
// test to read at any time.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
