// Package faultproxy is an HTTP reverse proxy for DynamoDB-style JSON APIs
// that answers a chosen share of calls with AWS-shaped errors and counts the
// calls per operation. Neither DynamoDB Local nor dynalite ever throttles, so
// tests, the demo and the benchmark put this in front of them to see how
// Tether behaves when AWS pushes back; the counts are what tests assert on.
package faultproxy

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is an error the proxy answers instead of forwarding a call.
type Fault struct {
	// Status is the HTTP status code (400 for throttling, 5xx for outages).
	Status int
	// Type is the short AWS error code, e.g. ThrottlingException.
	Type string
	// Message is what AWS would say.
	Message string
}

// Faults as DynamoDB sends them.
var (
	Throttling = Fault{Status: http.StatusBadRequest, Type: "ThrottlingException",
		Message: "Rate of requests exceeds the allowed throughput."}
	LimitExceeded = Fault{Status: http.StatusBadRequest, Type: "LimitExceededException",
		Message: "Too many operations for a given subscriber."}
	RequestLimitExceeded = Fault{Status: http.StatusBadRequest, Type: "RequestLimitExceeded",
		Message: "Throughput exceeds the current throughput limit for your account."}
	InternalServerError = Fault{Status: http.StatusInternalServerError, Type: "InternalServerError",
		Message: "Internal server error"}
	ServiceUnavailable = Fault{Status: http.StatusServiceUnavailable, Type: "ServiceUnavailable",
		Message: "Service unavailable"}
)

// Rule says which calls fail and how.
type Rule struct {
	// Operation limits the rule to one operation (DescribeTable); empty
	// means every operation.
	Operation string
	// Share is the fraction of matching calls that fail, from 0 to 1.
	Share float64
	// Limit, when above zero, is how many calls the rule fails in total;
	// after that it lets everything through. Share 1 with Limit 2 fails
	// exactly the next two matching calls.
	Limit int
	Fault Fault
}

// Proxy forwards calls to a target endpoint, injecting faults by its rules.
type Proxy struct {
	target  *httputil.ReverseProxy
	mu      sync.Mutex
	rules   []ruleState
	rnd     *rand.Rand
	calls   map[string]int
	faults  map[string]int
	byTable map[string]map[string]int  // table -> operation -> calls
	spans   map[string]map[string]Span // table -> operation -> first and last call
	server  *http.Server
	baseURL string
	hooks   []hook
	// answered, when set, is told of each call the target answered.
	answered func(Answered)
}

// Answered is a call the target answered, as OnAnswered reports it.
type Answered struct {
	Operation, Table string
	// AccessKeyID is the key the call was signed with (the Credential of
	// its Authorization header): whose call it was.
	AccessKeyID string
	// Status is the target's HTTP status code.
	Status int
	// Body is the request's body (up to maxBodyPeek), and At when the
	// target answered: a test tells the same call sent again by them.
	Body []byte
	At   time.Time
}

// Span is when the first and the last call of an operation about a table
// arrived, and how many there were in between (both included).
type Span struct {
	First, Last time.Time
	Calls       int
}

// Interval is the mean time between two calls, 0 with fewer than two.
func (s Span) Interval() time.Duration {
	if s.Calls < 2 {
		return 0
	}
	return s.Last.Sub(s.First) / time.Duration(s.Calls-1)
}

// hook is an action to run before forwarding one call.
type hook struct {
	op, table string
	act       func()
}

type ruleState struct {
	Rule
	used int
}

// New returns a proxy in front of target (http://host:port). seed makes the
// choice of failing calls reproducible.
func New(target string, seed uint64) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	forward := httputil.NewSingleHostReverseProxy(u)
	// A dead target is an expected test condition, not news for the log.
	forward.ErrorLog = log.New(io.Discard, "", 0)
	return &Proxy{
		target:  forward,
		rnd:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		calls:   map[string]int{},
		faults:  map[string]int{},
		byTable: map[string]map[string]int{},
		spans:   map[string]map[string]Span{},
	}, nil
}

// SetRules replaces the rules; with none, every call is forwarded.
func (p *Proxy) SetRules(rules ...Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = make([]ruleState, len(rules))
	for i, r := range rules {
		p.rules[i] = ruleState{Rule: r}
	}
}

// Calls returns how many calls of each operation arrived (forwarded or not).
func (p *Proxy) Calls() map[string]int { return p.snapshot(p.calls) }

// Faults returns how many calls of each operation were answered with a fault.
func (p *Proxy) Faults() map[string]int { return p.snapshot(p.faults) }

// Total returns the number of calls that arrived.
func (p *Proxy) Total() int {
	n := 0
	for _, c := range p.Calls() {
		n += c
	}
	return n
}

// ResetCounts zeroes the call and fault counters.
func (p *Proxy) ResetCounts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = map[string]int{}
	p.faults = map[string]int{}
	p.byTable = map[string]map[string]int{}
	p.spans = map[string]map[string]Span{}
}

// SpanFor returns when the calls of one operation about one table came
// since the counts were last reset, so that a benchmark can tell how often
// a table is really looked at, to the second.
func (p *Proxy) SpanFor(table, op string) Span {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.spans[table][op]
}

// CallsFor returns how many calls of each operation named one table, so a
// test can assert the cost of one table while others are busy too.
func (p *Proxy) CallsFor(table string) map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.byTable[table] {
		out[k] = v
	}
	return out
}

func (p *Proxy) snapshot(m map[string]int) map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// BeforeForwarding runs act once, right before the next call of operation op
// about table is forwarded, so that a test can change the world between a
// client's read and its write: someone else creating the table in the
// moment between Tether's DescribeTable and its CreateTable.
func (p *Proxy) BeforeForwarding(op, table string, act func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hooks = append(p.hooks, hook{op: op, table: table, act: act})
}

// takeHook removes and returns the first hook for op and table.
func (p *Proxy) takeHook(op, table string) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, h := range p.hooks {
		if h.op == op && h.table == table {
			p.hooks = append(p.hooks[:i], p.hooks[i+1:]...)
			return h.act
		}
	}
	return nil
}

// OnAnswered has fn told of each call the target answered, after it
// answered (not of a call the proxy failed itself): a test models with it
// what the outside world does with a call, such as CloudTrail recording
// it.
func (p *Proxy) OnAnswered(fn func(Answered)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered = fn
}

// ServeHTTP counts the call, then answers a fault or forwards it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := Operation(r)
	table, body := p.readTableName(r)
	if fault, ok := p.decide(op, table); ok {
		_, _ = io.Copy(io.Discard, r.Body)
		writeFault(w, fault)
		return
	}
	if act := p.takeHook(op, table); act != nil {
		act()
	}
	p.mu.Lock()
	answered := p.answered
	p.mu.Unlock()
	if answered == nil {
		p.target.ServeHTTP(w, r)
		return
	}
	status := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	p.target.ServeHTTP(status, r)
	answered(Answered{Operation: op, Table: table, AccessKeyID: accessKeyID(r), Status: status.status, Body: body, At: time.Now()})
}

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets the reverse proxy flush through it.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessKeyID reads the key of a SigV4 Authorization header
// ("AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, ...").
func accessKeyID(r *http.Request) string {
	_, credential, found := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if !found {
		return ""
	}
	key, _, _ := strings.Cut(credential, "/")
	return key
}

// decide records the call and picks the fault of the first rule that fires.
func (p *Proxy) decide(op, table string) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[op]++
	if table != "" {
		if p.byTable[table] == nil {
			p.byTable[table] = map[string]int{}
			p.spans[table] = map[string]Span{}
		}
		p.byTable[table][op]++
		s := p.spans[table][op]
		now := time.Now()
		if s.Calls == 0 {
			s.First = now
		}
		s.Last, s.Calls = now, s.Calls+1
		p.spans[table][op] = s
	}
	for i := range p.rules {
		r := &p.rules[i]
		if r.Operation != "" && r.Operation != op {
			continue
		}
		if r.Limit > 0 && r.used >= r.Limit {
			continue
		}
		if r.Share < 1 && p.rnd.Float64() >= r.Share {
			continue
		}
		r.used++
		p.faults[op]++
		return r.Fault, true
	}
	return Fault{}, false
}

// Operation is the DynamoDB operation of a call: the part of the
// X-Amz-Target header after the dot ("DynamoDB_20120810.DescribeTable").
func Operation(r *http.Request) string {
	target := r.Header.Get("X-Amz-Target")
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	if target == "" {
		return "unknown"
	}
	return target
}

// writeFault answers like DynamoDB's JSON protocol, so the SDK classifies
// the error (throttle, retryable 5xx) exactly as it would from AWS.
func writeFault(w http.ResponseWriter, f Fault) {
	body, _ := json.Marshal(map[string]string{
		"__type":  "com.amazonaws.dynamodb.v20120810#" + f.Type,
		"message": f.Message,
	})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-Errortype", f.Type)
	// The SDK checks DynamoDB's CRC32 of every response body.
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	w.WriteHeader(f.Status)
	_, _ = w.Write(body)
}

// Listen serves the proxy on addr ("127.0.0.1:0" for a free port) until
// Close, and returns its base URL.
func (p *Proxy) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	p.server = &http.Server{Handler: p}
	go func() { _ = p.server.Serve(ln) }()
	p.baseURL = "http://" + ln.Addr().String()
	return p.baseURL, nil
}

// URL is the base URL Listen returned.
func (p *Proxy) URL() string { return p.baseURL }

// Close stops serving.
func (p *Proxy) Close() error {
	if p.server == nil {
		return nil
	}
	return p.server.Close()
}

// maxBodyPeek bounds how much of a request body is read to find the table.
const maxBodyPeek = 1 << 20

// readTableName finds the table a call is about (TableName, or the table in
// ResourceArn for tagging calls) and puts the body back for forwarding; it
// returns the body too.
func (p *Proxy) readTableName(r *http.Request) (string, []byte) {
	if r.Body == nil {
		return "", nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyPeek))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", body
	}
	return tableNamed(body), body
}

// tableNamed is the table a call's body names.
func tableNamed(body []byte) string {
	var fields struct{ TableName, ResourceArn string }
	if json.Unmarshal(body, &fields) != nil {
		return ""
	}
	if fields.TableName != "" {
		return fields.TableName
	}
	if i := strings.Index(fields.ResourceArn, ":table/"); i >= 0 {
		name := fields.ResourceArn[i+len(":table/"):]
		if j := strings.IndexByte(name, '/'); j >= 0 {
			name = name[:j]
		}
		return name
	}
	return ""
}
