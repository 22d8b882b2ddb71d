package ddbgap

import (
	"strings"
	"time"
)

// Contributor insights of a table and its indexes: ENABLING, ENABLED,
// DISABLING, DISABLED, FAILED (API UpdateContributorInsights), each
// transient status for Options.Transition. The rules below are AWS's as
// ACK's live probes found them (aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-subresources.md): an ENABLE without a mode is
// ACCESSED_AND_THROTTLED_KEYS; ListContributorInsights leaves out what is
// DISABLED; DescribeContributorInsights of what was never configured is
// only the table name and DISABLED; over the Region's quota of
// Contributor Insights rules an ENABLE goes ENABLING, then FAILED with a
// LimitExceededException in FailureException, and stays FAILED until
// disabled or enabled again.

// Contributor Insights rules: "100 rules per Region" is CloudWatch's
// default quota (Options.InsightsRules overrides it for tests); a table or
// index takes two (ACCESSED_AND_THROTTLED_KEYS: the most accessed and the
// most throttled keys), doubled for a key with a sort key (a rule for the
// partition key and one for the whole key), and THROTTLED_KEYS half that
// (developerguide/contributorinsights_HowItWorks.html; ACK, ibid.).
const (
	defaultInsightsRules    = 100
	insightsModeBoth        = "ACCESSED_AND_THROTTLED_KEYS"
	insightsModeThrottled   = "THROTTLED_KEYS"
	insightsFailureName     = "LimitExceededException"
	insightsFailureMessages = "Contributor Insights rules limit exceeded for this account and Region"
)

func init() {
	register(atInsights, &feature{
		ops: map[string]handler{
			"DescribeContributorInsights": (*Server).describeContributorInsights,
			"ListContributorInsights":     (*Server).listContributorInsights,
			"UpdateContributorInsights":   (*Server).updateContributorInsights,
		},
		defaults: func(o *Options) {
			if o.InsightsRules <= 0 {
				o.InsightsRules = defaultInsightsRules
			}
		},
		advance: func(st *tableState, now time.Time) {
			for _, in := range insightsOf(st).of {
				in.advance(now)
			}
		},
	})
}

// insights are a table's contributor insights: "" for the table, else the
// index name.
type insights struct{ of map[string]*insight }

var insightsOf = perTable(func(in *insights) { in.of = map[string]*insight{} })

// insight is the contributor insights of the table or an index.
type insight struct {
	status, mode string
	until        time.Time
	next         string
	// configured: an UpdateContributorInsights named it once.
	configured bool
	// rules it takes while ENABLING or ENABLED; failure is AWS's reason
	// once FAILED ("" otherwise), failing the one it will have.
	rules            int
	failure, failing string
}

func (in *insight) advance(now time.Time) {
	if !in.until.IsZero() && !now.Before(in.until) {
		in.status, in.until = in.next, time.Time{}
		in.failure = in.failing
		if in.status == "FAILED" {
			in.rules = 0
		}
	}
}

// holdsRules says whether the insight counts against the quota.
func (in *insight) holdsRules() bool { return in.status == "ENABLING" || in.status == "ENABLED" }

// insightRules is how many rules contributor insights of a key schema in
// a mode take.
func insightRules(keySchema []any, mode string) int {
	n := 2
	for _, k := range keySchema {
		if str(k.(map[string]any), "KeyType") == "RANGE" {
			n = 4
		}
	}
	if mode == insightsModeThrottled {
		n /= 2
	}
	return n
}

func (s *Server) insightFor(st *tableState, index string) *insight {
	in, ok := insightsOf(st).of[index]
	if !ok {
		in = &insight{status: "DISABLED"}
		insightsOf(st).of[index] = in
	}
	return in
}

// rulesInUse counts the rules of every table of the caller's database
// (its account and Region), but one insight's.
func (s *Server) rulesInUse(db string, except *insight, now time.Time) int {
	n := 0
	for key, st := range s.tables {
		if !strings.HasPrefix(key, db+"|") {
			continue
		}
		st.advance(now)
		for _, in := range insightsOf(st).of {
			if in != except && in.holdsRules() {
				n += in.rules
			}
		}
	}
	return n
}

func (s *Server) summary(name, index string, in *insight) map[string]any {
	out := map[string]any{"TableName": name, "ContributorInsightsStatus": in.status}
	if index != "" {
		out["IndexName"] = index
	}
	if in.mode != "" && in.configured {
		out["ContributorInsightsMode"] = in.mode
	}
	return out
}

// insightTarget is the table and index (or "") a contributor insights call
// names, both of which must exist, and the key schema of what it names.
func (s *Server) insightTarget(c *call) (name, index string, keys []any, err error) {
	name, index = str(c.body, "TableName"), str(c.body, "IndexName")
	t, err := s.tableExists(c, name, "ResourceNotFoundException")
	if err != nil {
		return "", "", nil, err
	}
	if index == "" {
		return name, "", list(t, "KeySchema"), nil
	}
	g := indexOf(t, index)
	if g == nil {
		return "", "", nil, notFound("ResourceNotFoundException", "Requested resource not found: index %s", index)
	}
	return name, index, list(g, "KeySchema"), nil
}

func (s *Server) describeContributorInsights(c *call) (any, error) {
	name, index, _, err := s.insightTarget(c)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	st.advance(time.Now())
	in := s.insightFor(st, index)
	if !in.configured {
		return map[string]any{"TableName": name, "ContributorInsightsStatus": "DISABLED"}, nil
	}
	out := s.summary(name, index, in)
	if in.failure != "" {
		out["FailureException"] = map[string]any{"ExceptionName": insightsFailureName, "ExceptionDescription": in.failure}
	}
	return out, nil
}

// listContributorInsights "Returns a list of ContributorInsightsSummary for
// a table and all its global secondary indexes" (API
// ListContributorInsights), leaving out those DISABLED.
func (s *Server) listContributorInsights(c *call) (any, error) {
	name := str(c.body, "TableName")
	t, err := s.tableExists(c, name, "ResourceNotFoundException")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	st.advance(time.Now())
	out := []any{}
	for _, index := range append([]string{""}, indexNames(t)...) {
		if in := s.insightFor(st, index); in.status != "DISABLED" {
			out = append(out, s.summary(name, index, in))
		}
	}
	return map[string]any{"ContributorInsightsSummaries": out}, nil
}

func indexNames(t map[string]any) []string {
	var out []string
	for _, g := range list(t, "GlobalSecondaryIndexes") {
		out = append(out, str(g.(map[string]any), "IndexName"))
	}
	return out
}

func (s *Server) updateContributorInsights(c *call) (any, error) {
	name, index, keys, err := s.insightTarget(c)
	if err != nil {
		return nil, err
	}
	action := str(c.body, "ContributorInsightsAction")
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	now := time.Now()
	st.advance(now)
	in := s.insightFor(st, index)
	mode := str(c.body, "ContributorInsightsMode")
	if mode == "" {
		mode = insightsModeBoth
	}
	switch {
	case action == "ENABLE" && in.status == "ENABLED" && in.mode == mode, action == "DISABLE" && in.status == "DISABLED":
		// A repeat in the settled state changes nothing (ACK, ibid.).
	case action == "ENABLE":
		in.mode = mode
		in.status, in.until, in.next = "ENABLING", now.Add(s.opts.Transition), "ENABLED"
		in.failure, in.failing = "", ""
		in.rules = insightRules(keys, in.mode)
		if s.rulesInUse(database(c.r), in, now)+in.rules > s.opts.InsightsRules {
			in.next, in.failing = "FAILED", insightsFailureMessages
		}
	case action == "DISABLE":
		in.status, in.until, in.next = "DISABLING", now.Add(s.opts.Transition), "DISABLED"
		in.failure, in.failing, in.rules = "", "", 0
	default:
		return nil, validation("ContributorInsightsAction must be ENABLE or DISABLE")
	}
	in.configured = true
	out := s.summary(name, index, in)
	delete(out, "ContributorInsightsMode")
	return out, nil
}
