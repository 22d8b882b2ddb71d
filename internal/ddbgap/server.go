// Package ddbgap is a narrow HTTP endpoint in front of DynamoDB Local that
// answers the APIs DynamoDB Local lacks, so that the real aws-sdk-go-v2
// client code of Tether runs against them in tests: global table replicas
// (UpdateTable ReplicaUpdates), multi-Region strong consistency and its
// witnesses (mrsc.go), on-demand and warm throughput, continuous
// backups, resource-based policies, contributor insights, on-demand backups
// (CreateBackup, DescribeBackup) and restores, Kinesis streaming
// destinations, vector indexes, imports from S3 (from Options.S3), tagging when asked
// (Options.Tagging), and the Application Auto Scaling calls for DynamoDB.
// Every other call, and the
// parts of a call DynamoDB Local does implement, go to DynamoDB Local.
//
// It is a MODEL, not a peer: what it answers comes from AWS's documentation
// (each rule cites its source), including the awkward parts: transitions
// that take time, one replica change at a time and no update while the
// table is UPDATING, warm throughput that only goes up, on-demand limits
// dropped by a switch to PROVISIONED, a GetResourcePolicy that answers the
// previous policy for a while after a change, and autoscaling that moves
// the capacity itself; with Options.Pace, AWS's pace too: tables CREATING,
// UPDATING and DELETING for a while, indexes backfilling, a new table not
// found for a moment and reads that still show the table before the last
// change. Tests that use it say so.
package ddbgap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune the model.
type Options struct {
	// Transition is how long a replica, warm throughput, contributor
	// insights or a restore stays in its transient status. Default 300 ms.
	Transition time.Duration
	// StaleReads is how many GetResourcePolicy calls after a Put or Delete
	// still answer the previous state. Default 2.
	StaleReads int
	// Tagging answers TagResource, UntagResource and ListTagsOfResource
	// (DynamoDB Local has none); without it they go to DynamoDB Local,
	// which answers UnknownOperationException.
	Tagging bool
	// Pace makes tables as slow to change and reads as late as AWS says
	// they may be (pace.go); its zero value answers at once.
	Pace Pace
	// S3 is what the model's imports read (imports.go): by bucket, the
	// objects by key. A bucket not listed does not exist.
	S3 map[string]map[string]string
	// ImportDuration is how long an import takes from ImportTable to
	// COMPLETED, AWS's phases in proportion (imports.go). Default ten
	// Transitions.
	ImportDuration time.Duration
	// InsightsRules is the quota of Contributor Insights rules of one
	// account and Region (insights.go). Default CloudWatch's, 100.
	InsightsRules int
	// Accounts are the AWS account ids of the callers, by access key id,
	// for multi-account global tables (multiaccount.go).
	Accounts map[string]string
	// WithoutVectorIndexes answers vector indexes as DynamoDB Local 3.3.1
	// does (vector.go): CreateTable's VectorIndexes go to it, which drops
	// them, and so do VectorIndexUpdates, which it answers "Nothing to
	// update".
	WithoutVectorIndexes bool
}

// Server is the model endpoint.
type Server struct {
	target string
	http   *http.Client
	opts   Options

	mu sync.Mutex
	// Everything is kept per database, as DynamoDB Local keeps its tables:
	// one per access key id and Region (see database).
	tables   map[string]*tableState // database|table name
	revision int64
	// parts are the features' own states (registry.go): backups
	// (features.go), scalable targets and policies (autoscaling.go),
	// imports (imports.go).
	parts map[*int]any
	// calls counts the requests by operation (Calls).
	calls map[string]int
	// replicasHeld: HoldReplicas.
	replicasHeld atomic.Bool
	srv          *http.Server
	url          string
}

// New returns a model in front of DynamoDB Local at target.
func New(target string, opts Options) *Server {
	if opts.Transition <= 0 {
		opts.Transition = 300 * time.Millisecond
	}
	if opts.StaleReads == 0 {
		opts.StaleReads = 2
	}
	each(func(f *feature) {
		if f.defaults != nil {
			f.defaults(&opts)
		}
	})
	s := &Server{target: strings.TrimSuffix(target, "/"), http: &http.Client{Timeout: 30 * time.Second}, opts: opts,
		tables: map[string]*tableState{}, parts: map[*int]any{}, calls: map[string]int{}}
	for _, make := range serverParts {
		make(s)
	}
	return s
}

// Calls is how many requests of the operation (EnableKinesisStreamingDestination,
// say) the model received, answered or refused: what a test counts to
// prove a call was not sent again.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// Listen serves on a free local port and returns the base URL.
func (s *Server) Listen() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.srv = &http.Server{Handler: s}
	go func() { _ = s.srv.Serve(ln) }()
	s.url = "http://" + ln.Addr().String()
	return s.url, nil
}

// URL is the base URL Listen returned.
func (s *Server) URL() string { return s.url }

// Close stops serving.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// call is one request as the model sees it.
type call struct {
	r    *http.Request
	op   string
	body map[string]any
	raw  []byte
}

// apiError is an AWS-shaped error answer.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func validation(format string, args ...any) *apiError {
	return &apiError{status: 400, code: "ValidationException", msg: fmt.Sprintf(format, args...)}
}

func inUse(format string, args ...any) *apiError {
	return &apiError{status: 400, code: "ResourceInUseException", msg: fmt.Sprintf(format, args...)}
}

func notFound(code, format string, args ...any) *apiError {
	return &apiError{status: 400, code: code, msg: fmt.Sprintf(format, args...)}
}

// ServeHTTP dispatches on X-Amz-Target: DynamoDB_20120810.<Op> or, for
// Application Auto Scaling, AnyScaleFrontendService.<Op>, to the feature
// that answers it (registry.go); DynamoDB Local answers the rest.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	target := r.Header.Get("X-Amz-Target")
	service, op, _ := strings.Cut(target, ".")
	s.mu.Lock()
	s.calls[op]++
	s.mu.Unlock()
	c := &call{r: r, op: op, raw: raw}
	_ = json.Unmarshal(raw, &c.body)
	if c.body == nil {
		c.body = map[string]any{}
	}
	if service == "AnyScaleFrontendService" {
		handler := s.handlerOf(op, true)
		if handler == nil {
			writeError(w, true, &apiError{status: 400, code: "InvalidAction", msg: "the model does not implement " + op})
			return
		}
		out, err := handler(c)
		s.answer(w, true, out, err)
		return
	}
	handler := s.handlerOf(op, false)
	if handler == nil {
		s.proxy(w, r, raw)
		return
	}
	out, err := handler(c)
	s.answer(w, false, out, err)
}

func (s *Server) answer(w http.ResponseWriter, scaling bool, out any, err error) {
	if err != nil {
		if e, ok := err.(*apiError); ok {
			writeError(w, scaling, e)
			return
		}
		writeError(w, scaling, &apiError{status: 500, code: "InternalServerError", msg: err.Error()})
		return
	}
	body, _ := json.Marshal(out)
	writeBody(w, scaling, 200, body)
}

func writeError(w http.ResponseWriter, scaling bool, e *apiError) {
	typ := "com.amazonaws.dynamodb.v20120810#" + e.code
	if scaling {
		typ = e.code
	}
	body, _ := json.Marshal(map[string]string{"__type": typ, "message": e.msg})
	writeBody(w, scaling, e.status, body)
}

func writeBody(w http.ResponseWriter, scaling bool, status int, body []byte) {
	if scaling {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	} else {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		// The SDK checks DynamoDB's CRC32 of every response body.
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// proxy forwards a call unchanged.
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, raw []byte) {
	status, body, err := s.send(r, r.Header.Get("X-Amz-Target"), raw)
	if err != nil {
		writeError(w, false, &apiError{status: 502, code: "InternalServerError", msg: err.Error()})
		return
	}
	writeBody(w, false, status, body)
}

// local calls DynamoDB Local with the caller's credentials (DynamoDB Local
// keeps one database per access key and Region) and decodes the answer;
// an error answer comes back as an *apiError.
func (s *Server) local(r *http.Request, op string, in any) (map[string]any, error) {
	raw, _ := json.Marshal(in)
	status, body, err := s.send(r, "DynamoDB_20120810."+op, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	_ = json.Unmarshal(body, &out)
	if status != 200 {
		code, _ := out["__type"].(string)
		if i := strings.LastIndexByte(code, '#'); i >= 0 {
			code = code[i+1:]
		}
		msg, _ := out["message"].(string)
		if msg == "" {
			msg, _ = out["Message"].(string)
		}
		return nil, &apiError{status: status, code: code, msg: msg}
	}
	return out, nil
}

func (s *Server) send(r *http.Request, target string, raw []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.target+"/", bytes.NewReader(raw))
	if err != nil {
		return 0, nil, err
	}
	for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", target)
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// credentialScope is the caller's signature's credential scope: access key
// id, date, Region, service.
func credentialScope(r *http.Request) []string {
	auth := r.Header.Get("Authorization")
	if i := strings.Index(auth, "Credential="); i >= 0 {
		scope, _, _ := strings.Cut(auth[i+len("Credential="):], ",")
		return strings.Split(scope, "/")
	}
	return nil
}

// region is the caller's Region.
func region(r *http.Request) string {
	if scope := credentialScope(r); len(scope) > 2 {
		return scope[2]
	}
	return ""
}

// database is where the caller's tables are: DynamoDB Local keeps "one
// database per access key id and Region" without -sharedDb
// (developerguide/DynamoDBLocal.UsageNotes.html), so the model keeps what
// it adds the same way, and two accounts (two access keys) reached through
// it never see each other's tables, targets or policies.
func database(r *http.Request) string {
	var key string
	if scope := credentialScope(r); len(scope) > 0 {
		key = scope[0]
	}
	return key + "|" + region(r)
}

// tableKey names a table in the caller's database.
func tableKey(r *http.Request, name string) string { return database(r) + "|" + name }

// str, num, obj and list read decoded JSON without panicking.
func str(m map[string]any, k string) string { v, _ := m[k].(string); return v }

func num(m map[string]any, k string) (int64, bool) {
	switch v := m[k].(type) {
	case float64: // decoded JSON
		return int64(v), true
	case int64: // built by the model
		return v, true
	}
	return 0, false
}

func obj(m map[string]any, k string) map[string]any { v, _ := m[k].(map[string]any); return v }

func list(m map[string]any, k string) []any { v, _ := m[k].([]any); return v }

// tableFromArn is the table name in a table (or stream, backup) ARN.
func tableFromArn(arn string) string {
	_, rest, ok := strings.Cut(arn, ":table/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }
