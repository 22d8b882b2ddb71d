package soak

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// logWatch reads the manager's JSON log as it grows and keeps the
// error-level lines: when (the line's own "ts", else the time it was read)
// and what.
type logWatch struct {
	mu     sync.Mutex
	path   string
	offset int64
	rest   string // an unfinished last line
	// errors holds each error-level line: when, and what (see key).
	errors []errorLine
	// panics counts lines that are not JSON and mention a panic.
	panics int
	// byMessage counts error lines by message and error text (shortened).
	byMessage map[string]int
	// levels counts every JSON line by level.
	levels map[string]int
}

// errorLine is one error-level line of the manager's log.
type errorLine struct {
	At  time.Time
	Key string
}

func newLogWatch(path string) *logWatch {
	return &logWatch{path: path, byMessage: map[string]int{}, levels: map[string]int{}}
}

// follow moves to another file (a restarted manager's log), from its start;
// read the old one to its end first.
func (lw *logWatch) follow(path string) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.path, lw.offset, lw.rest = path, 0, ""
}

// logLine is the part of a zap JSON line the soak reads.
type logLine struct {
	Level      string          `json:"level"`
	Msg        string          `json:"msg"`
	Error      string          `json:"error"`
	Controller string          `json:"controller"`
	TS         json.RawMessage `json:"ts"`
}

// when is the line's timestamp, RFC 3339 (the manager's encoder) or epoch
// seconds (zap's default); without either, the time the line was read.
func (l logLine) when(read time.Time) time.Time {
	var text string
	if err := json.Unmarshal(l.TS, &text); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, text); err == nil {
			return t
		}
		return read
	}
	var secs float64
	if err := json.Unmarshal(l.TS, &secs); err != nil || secs <= 0 {
		return read
	}
	return time.Unix(0, int64(secs*1e9))
}

// read takes in what the manager wrote since the last read.
func (lw *logWatch) read(now time.Time) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	f, err := os.Open(lw.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(lw.offset, io.SeekStart); err != nil {
		return err
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	lw.offset += int64(len(raw))
	text := lw.rest + string(raw)
	cut := strings.LastIndexByte(text, '\n')
	if cut < 0 {
		lw.rest = text
		return nil
	}
	lw.rest = text[cut+1:]
	sc := bufio.NewScanner(strings.NewReader(text[:cut]))
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		lw.take(sc.Text(), now)
	}
	return sc.Err()
}

func (lw *logWatch) take(line string, now time.Time) {
	var l logLine
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		if strings.Contains(strings.ToLower(line), "panic") {
			lw.panics++
		}
		return
	}
	lw.levels[l.Level]++
	switch l.Level {
	case "error", "dpanic", "panic", "fatal":
	default:
		return
	}
	key := l.Msg
	if l.Controller != "" {
		key = l.Controller + ": " + key
	}
	if l.Error != "" {
		key += ": " + shorten(l.Error, 140)
	}
	lw.errors = append(lw.errors, errorLine{At: l.when(now), Key: key})
	lw.byMessage[key]++
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// perMinute counts the error lines in each minute from start to end.
func (lw *logWatch) perMinute(start, end time.Time) []int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	n := int(end.Sub(start)/time.Minute) + 1
	out := make([]int, max(n, 1))
	for _, e := range lw.errors {
		t := e.At
		if t.Before(start) || t.After(end) {
			continue
		}
		out[min(int(t.Sub(start)/time.Minute), len(out)-1)]++
	}
	return out
}

// countBetween counts the error lines read in [from, to].
func (lw *logWatch) countBetween(from, to time.Time) int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	n := 0
	for _, e := range lw.errors {
		if !e.At.Before(from) && !e.At.After(to) {
			n++
		}
	}
	return n
}

// top returns the n most frequent error messages with their counts.
func (lw *logWatch) top(n int) []MessageCount {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	out := make([]MessageCount, 0, len(lw.byMessage))
	for m, c := range lw.byMessage {
		out = append(out, MessageCount{Message: m, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Message < out[j].Message
	})
	return out[:min(n, len(out))]
}

// MessageCount is one error message and how often it was logged.
type MessageCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// lines returns the error lines so far, and the count of lines that were
// not JSON and mentioned a panic.
func (lw *logWatch) lines() ([]errorLine, int) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return append([]errorLine(nil), lw.errors...), lw.panics
}

// count is the number of error lines so far.
func (lw *logWatch) count() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return len(lw.errors)
}
