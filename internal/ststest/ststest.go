// Package ststest is a model of AWS STS's AssumeRole and GetCallerIdentity,
// served over HTTP with STS's own Query protocol, for tests of
// cross-account access through aws-sdk-go-v2's real stscreds provider and
// of the operator learning its own account. No STS runs here, so this is a
// model: its rules and answers follow AWS's API reference
// (docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html,
// API_GetCallerIdentity.html and CommonErrors.html; the XML shapes are the
// ones service/sts v1.51.8 deserializes), and tests that use it say so.
//
// What it models: roles that trust given callers (by access key id, which
// the SDK's SigV4 Authorization header names; signatures are not checked),
// an external ID a role may require, AWS's limits on the session name,
// external ID, duration and session tags, and per-role credentials with an
// expiry. Each role's sessions get their own access key id, made of letters
// and digits, so that DynamoDB Local, which keeps a separate database per
// access key id and region, shows each role its own tables: an account.
// GetCallerIdentity names the account of the credentials that sign it: a
// role's sessions are in the role's account, any other access key id in
// the account Options.Accounts gives it (DefaultAccount by default).
package ststest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Role is a role the model can issue sessions for.
type Role struct {
	ARN string
	// Trusts are the access key ids allowed to assume the role: the
	// operator's own, or the AccessKeyID of another role (a chain).
	Trusts []string
	// ExternalID, when set, must be sent (the trust policy's sts:ExternalId
	// condition).
	ExternalID string
	// AccessKeyID is what the role's sessions sign with.
	AccessKeyID string
}

// Options configure the server.
type Options struct {
	Roles []Role
	// Lifetime is how long issued credentials last. Real STS honours
	// DurationSeconds (at least 15 minutes); tests shorten it to see the
	// SDK refresh. Default: the requested duration.
	Lifetime time.Duration
	// Accounts are the accounts of access key ids that are no role's
	// sessions (an operator's own credentials), by access key id; the
	// others are in DefaultAccount.
	Accounts map[string]string
}

// DefaultAccount is the account of an access key id that Options.Accounts
// does not name: the account DynamoDB Local writes in every ARN.
const DefaultAccount = "000000000000"

// Call is one AssumeRole request as the model saw it.
type Call struct {
	RoleARN, SessionName, ExternalID, Caller string
	Tags                                     map[string]string
	Code                                     string // "" when it succeeded, else the error code
}

// Server serves the model.
type Server struct {
	URL string

	opts   Options
	srv    *http.Server
	mu     sync.Mutex
	calls  []Call
	denied map[string]bool
	// whoAmI are the access key ids that asked GetCallerIdentity, in order.
	whoAmI []string
	// sessions is the last session name issued per role access key id.
	sessions map[string]string
}

// Start serves the model on a free port of 127.0.0.1.
func Start(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, denied: map[string]bool{}, sessions: map[string]string{}}
	s.srv = &http.Server{Handler: s}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops serving.
func (s *Server) Close() { _ = s.srv.Close() }

// roles are the roles the model knows, now.
func (s *Server) roles() []Role {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.opts.Roles)
}

// AddRole adds a role the model issues sessions for, while it serves (a
// test that needs one more account than its suite's).
func (s *Server) AddRole(r Role) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Roles = append(s.opts.Roles, r)
}

// Deny makes the role refuse every caller (a trust policy changed), or
// trust them again.
func (s *Server) Deny(roleARN string, denied bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[roleARN] = denied
}

// CallerIdentityCalls are the access key ids that asked GetCallerIdentity
// so far, in order.
func (s *Server) CallerIdentityCalls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.whoAmI...)
}

// Calls returns the AssumeRole calls so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsFor counts the AssumeRole calls for one role.
func (s *Server) CallsFor(roleARN string) int {
	n := 0
	for _, c := range s.Calls() {
		if c.RoleARN == roleARN {
			n++
		}
	}
	return n
}

// Limits from the AssumeRole API reference.
var (
	sessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
	externalIDPattern  = regexp.MustCompile(`^[\w+=,.@:/-]+$`)
	credentialPattern  = regexp.MustCompile(`Credential=([^/]+)/`)
)

const (
	minDuration     = 900
	maxDuration     = 3600 // a role's default MaxSessionDuration
	defaultDuration = 3600
	maxSessionTags  = 50
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "MalformedQueryString", err.Error())
		return
	}
	switch action := r.Form.Get("Action"); action {
	case "AssumeRole":
	case "GetCallerIdentity":
		s.callerIdentity(w, caller(r))
		return
	default:
		writeError(w, http.StatusBadRequest, "InvalidAction", fmt.Sprintf("Could not find operation %s for version %s", action, r.Form.Get("Version")))
		return
	}
	call := Call{RoleARN: r.Form.Get("RoleArn"), SessionName: r.Form.Get("RoleSessionName"),
		ExternalID: r.Form.Get("ExternalId"), Caller: caller(r), Tags: sessionTags(r.Form)}
	status, code, message, creds := s.assume(call, r.Form.Get("DurationSeconds"))
	call.Code = code
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
	if code != "" {
		writeError(w, status, code, message)
		return
	}
	writeResult(w, call, creds)
}

type issued struct {
	AccessKeyID, SecretAccessKey, SessionToken string
	Expiration                                 time.Time
}

// assume applies AWS's rules, in the order AWS checks them: the request's
// values, then whether the caller may assume the role.
func (s *Server) assume(c Call, durationParam string) (int, string, string, issued) {
	duration := defaultDuration
	if durationParam != "" {
		d, err := strconv.Atoi(durationParam)
		if err != nil || d < minDuration {
			return http.StatusBadRequest, "ValidationError", fmt.Sprintf("1 validation error detected: Value '%s' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to %d", durationParam, minDuration), issued{}
		}
		if d > maxDuration {
			return http.StatusBadRequest, "ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.", issued{}
		}
		duration = d
	}
	switch {
	case len(c.RoleARN) < 20 || len(c.RoleARN) > 2048:
		return http.StatusBadRequest, "ValidationError", "1 validation error detected: Value at 'roleArn' failed to satisfy constraint: Member must have length between 20 and 2048", issued{}
	case !sessionNamePattern.MatchString(c.SessionName):
		return http.StatusBadRequest, "ValidationError", fmt.Sprintf("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", c.SessionName), issued{}
	case c.ExternalID != "" && (len(c.ExternalID) < 2 || len(c.ExternalID) > 1224 || !externalIDPattern.MatchString(c.ExternalID)):
		return http.StatusBadRequest, "ValidationError", "1 validation error detected: Value at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]*", issued{}
	case len(c.Tags) > maxSessionTags:
		return http.StatusBadRequest, "ValidationError", "1 validation error detected: Value at 'tags' failed to satisfy constraint: Member must have length less than or equal to 50", issued{}
	}
	role, ok := s.role(c.RoleARN)
	s.mu.Lock()
	denied := s.denied[c.RoleARN]
	s.mu.Unlock()
	// AWS says the same for a role that does not exist, one that does not
	// trust the caller and a wrong external ID.
	if !ok || denied || !trusts(role, c.Caller) || role.ExternalID != c.ExternalID {
		return http.StatusForbidden, "AccessDenied", fmt.Sprintf("User: %s is not authorized to perform: sts:AssumeRole on resource: %s", callerARN(c.Caller), c.RoleARN), issued{}
	}
	lifetime := time.Duration(duration) * time.Second
	if s.opts.Lifetime > 0 {
		lifetime = s.opts.Lifetime
	}
	s.mu.Lock()
	s.sessions[role.AccessKeyID] = c.SessionName
	s.mu.Unlock()
	return http.StatusOK, "", "", issued{AccessKeyID: role.AccessKeyID, SecretAccessKey: randomHex(20),
		SessionToken: randomHex(32), Expiration: time.Now().Add(lifetime).UTC()}
}

// callerIdentity answers GetCallerIdentity, which any valid credentials
// may call ("No permissions are required to perform this operation", API
// GetCallerIdentity): the account, ARN and user id of the credentials that
// signed the request.
func (s *Server) callerIdentity(w http.ResponseWriter, key string) {
	if key == "" {
		writeError(w, http.StatusForbidden, "MissingAuthenticationToken", "Request is missing Authentication Token")
		return
	}
	s.mu.Lock()
	s.whoAmI = append(s.whoAmI, key)
	session := s.sessions[key]
	s.mu.Unlock()
	account, arn, userID := DefaultAccount, callerARN(key), "AIDA"+strings.ToUpper(key)
	if a, ok := s.opts.Accounts[key]; ok {
		account, arn = a, fmt.Sprintf("arn:aws:iam::%s:user/%s", a, key)
	}
	for _, r := range s.roles() {
		if r.AccessKeyID == key {
			roleName := r.ARN[strings.LastIndex(r.ARN, "/")+1:]
			account = strings.SplitN(r.ARN, ":", 6)[4]
			arn = fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, roleName, session)
			userID = "AROA" + strings.ToUpper(roleName) + ":" + session
		}
	}
	type result struct {
		XMLName   xml.Name `xml:"GetCallerIdentityResponse"`
		Xmlns     string   `xml:"xmlns,attr"`
		Arn       string   `xml:"GetCallerIdentityResult>Arn"`
		UserID    string   `xml:"GetCallerIdentityResult>UserId"`
		Account   string   `xml:"GetCallerIdentityResult>Account"`
		RequestID string   `xml:"ResponseMetadata>RequestId"`
	}
	body, _ := xml.Marshal(result{Xmlns: stsNamespace, Arn: arn, UserID: userID, Account: account, RequestID: randomHex(16)})
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write(body)
}

func (s *Server) role(arn string) (Role, bool) {
	for _, r := range s.roles() {
		if r.ARN == arn {
			return r, true
		}
	}
	return Role{}, false
}

func trusts(r Role, caller string) bool {
	for _, t := range r.Trusts {
		if t == caller {
			return true
		}
	}
	return false
}

// caller is the access key id the request was signed with.
func caller(r *http.Request) string {
	if m := credentialPattern.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
		return m[1]
	}
	return ""
}

func callerARN(accessKeyID string) string {
	return fmt.Sprintf("arn:aws:iam::%s:user/%s", DefaultAccount, accessKeyID)
}

// sessionTags reads Tags.member.N.Key / Tags.member.N.Value.
func sessionTags(form url.Values) map[string]string {
	tags := map[string]string{}
	for k, v := range form {
		if strings.HasPrefix(k, "Tags.member.") && strings.HasSuffix(k, ".Key") {
			n := strings.TrimSuffix(strings.TrimPrefix(k, "Tags.member."), ".Key")
			tags[v[0]] = form.Get("Tags.member." + n + ".Value")
		}
	}
	return tags
}

const stsNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"

func writeResult(w http.ResponseWriter, c Call, creds issued) {
	type result struct {
		XMLName         xml.Name `xml:"AssumeRoleResponse"`
		Xmlns           string   `xml:"xmlns,attr"`
		AccessKeyID     string   `xml:"AssumeRoleResult>Credentials>AccessKeyId"`
		SecretAccessKey string   `xml:"AssumeRoleResult>Credentials>SecretAccessKey"`
		SessionToken    string   `xml:"AssumeRoleResult>Credentials>SessionToken"`
		Expiration      string   `xml:"AssumeRoleResult>Credentials>Expiration"`
		AssumedRoleID   string   `xml:"AssumeRoleResult>AssumedRoleUser>AssumedRoleId"`
		Arn             string   `xml:"AssumeRoleResult>AssumedRoleUser>Arn"`
		RequestID       string   `xml:"ResponseMetadata>RequestId"`
	}
	roleName := c.RoleARN[strings.LastIndex(c.RoleARN, "/")+1:]
	account := strings.SplitN(c.RoleARN, ":", 6)[4]
	body, _ := xml.Marshal(result{Xmlns: stsNamespace, AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey,
		SessionToken: creds.SessionToken, Expiration: creds.Expiration.Format(time.RFC3339),
		AssumedRoleID: "AROA" + strings.ToUpper(randomHex(8)) + ":" + c.SessionName,
		Arn:           fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, roleName, c.SessionName),
		RequestID:     randomHex(16)})
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	type errorResponse struct {
		XMLName   xml.Name `xml:"ErrorResponse"`
		Xmlns     string   `xml:"xmlns,attr"`
		Type      string   `xml:"Error>Type"`
		Code      string   `xml:"Error>Code"`
		Message   string   `xml:"Error>Message"`
		RequestID string   `xml:"RequestId"`
	}
	body, _ := xml.Marshal(errorResponse{Xmlns: stsNamespace, Type: "Sender", Code: code, Message: message, RequestID: randomHex(16)})
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
