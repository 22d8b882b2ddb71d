package bench

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/ststest"
)

// benchAccount is one of figure 8's two AWS accounts: a role in the STS
// model whose sessions sign with their own access key id, so that DynamoDB
// Local keeps its tables in a database of their own.
type benchAccount struct {
	name, namespace, roleARN, accessKey, id string
}

var benchAccounts = []benchAccount{
	{name: "team-a", namespace: "team-a", roleARN: "arn:aws:iam::111111111111:role/tether", accessKey: "benchakey", id: "111111111111"},
	{name: "team-b", namespace: "team-b", roleARN: "arn:aws:iam::222222222222:role/tether", accessKey: "benchbkey", id: "222222222222"},
}

// startAccountEndpoints starts DynamoDB Local and the STS model with a role
// for each of benchAccounts that the operator's own credentials may
// assume, both stopped with the run. It returns DynamoDB Local's URL and
// the operator's environment that points STS at the model.
func (r *run) startAccountEndpoints() (dynamoDB string, stsEnv map[string]string, err error) {
	srv, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return "", nil, err
	}
	r.onStop(srv.Stop)
	var roles []ststest.Role
	for _, a := range benchAccounts {
		roles = append(roles, ststest.Role{ARN: a.roleARN, Trusts: []string{ddbtest.AccessKeyID}, AccessKeyID: a.accessKey})
	}
	sts, err := ststest.Start(ststest.Options{Roles: roles})
	if err != nil {
		return "", nil, err
	}
	r.onStop(sts.Close)
	return srv.URL, map[string]string{"AWS_ENDPOINT_URL_STS": sts.URL}, nil
}

func init() {
	registerAlone(8, "Scale per account and region", false, (*run).accountScale)
}

// Figure 8 (issue 14): many tables over two accounts, each account with
// its own limiter. An account's limiter in a region holds a poll interval
// only up to rate x interval tables (3,000 at the defaults); beyond, every
// table is looked at less often. Tether cannot hold the interval then (one
// DescribeTable per table per look, and no batch read), so it must say so:
// this figure measures how often each table is really described and
// compares it with what Tether reports (status.effectivePollInterval, or
// the poll interval when it reports none) and with its metric.
func (r *run) accountScale(ctx context.Context, bin string) error {
	sc := r.sc
	dynamoDB, stsEnv, err := r.startAccountEndpoints()
	if err != nil {
		return err
	}
	if err := r.startTablesWorld(ctx, bin, dynamoDB, stsEnv,
		"--dynamodbtable-poll-interval="+sc.AccountPoll.String(),
		fmt.Sprintf("--dynamodb-requests-per-second=%g", sc.AccountRate)); err != nil {
		return err
	}
	perAccount := sc.AccountTables / len(benchAccounts)
	var all []client.Object
	tablesOf := map[string][]*awsv1alpha1.DynamoDBTable{}
	for _, a := range benchAccounts {
		if err := r.declareAccount(ctx, a); err != nil {
			return err
		}
		for i := range perAccount {
			t := newTable(fmt.Sprintf("%s-%05d", a.name, i+1), false)
			t.Namespace = a.namespace
			t.Labels = nil
			tablesOf[a.name] = append(tablesOf[a.name], t)
			all = append(all, t)
		}
	}
	before, err := r.kubeClientCounts()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := r.createAll(ctx, all); err != nil {
		return err
	}
	// Three calls to create each table, at the account's rate, and time for
	// the operator's Kubernetes writes (a finalizer per table first).
	create := time.Duration(float64(3*perAccount)/sc.AccountRate*float64(time.Second)) + 10*time.Minute
	ready := map[string]*readySpan{}
	if _, err := r.waitReadyEvery(ctx, 2*time.Second, true, wantAll(all), create, func(key string) {
		ns, _, _ := strings.Cut(key, "/")
		ready[ns] = ready[ns].add(time.Since(start))
	}); err != nil {
		return fmt.Errorf("%w (Ready by namespace: %s)", err, formatSpans(ready))
	}
	created := time.Since(start)
	after, err := r.kubeClientCounts()
	if err != nil {
		return err
	}

	asked := float64(perAccount) / sc.AccountPoll.Seconds()
	expected := time.Duration(float64(sc.AccountPoll) * max(1, asked/sc.AccountRate))
	// Let the creation's burst settle into the steady round.
	if err := r.sleep(ctx, expected); err != nil {
		return err
	}
	r.proxy.ResetCounts()
	window := time.Duration(sc.AccountWindows) * expected
	if err := r.sleep(ctx, window); err != nil {
		return err
	}
	stretch, err := r.op.Counter("tether_dynamodb_poll_stretch", "account")
	if err != nil {
		return err
	}
	f := r.fig(8)
	// Creation, per account: both accounts' limiters serve their own tables
	// at once; one account's backlog does not hold the other's back.
	for _, a := range benchAccounts {
		span := ready[a.namespace]
		f.add("first_ready_"+a.name, fmt.Sprintf("account %s: its first table Ready, after creation started", a.name), "s", span.first.Seconds(), nil)
		f.add("all_ready_"+a.name, fmt.Sprintf("account %s: all %d tables Ready, after creation started", a.name, perAccount), "s", span.last.Seconds(), nil)
		f.add("create_rate_"+a.name, fmt.Sprintf("account %s: tables made Ready per second (its limiter allows %.1f at three calls a table)", a.name, sc.AccountRate/3), "tables/s",
			float64(perAccount)/span.last.Seconds(), nil)
	}
	writes := after.writes - before.writes
	f.add("kube_writes_per_table", "operator's Kubernetes API writes (POST, PUT, PATCH) per table while creating", "requests", writes/float64(len(all)), nil)
	f.add("kube_throttled", "operator's time waiting for its client-side Kubernetes API limit while creating (sum over requests)", "s", after.throttled-before.throttled, nil)
	deferred, err := r.op.Counter("tether_deferred_passes_total", "reason")
	if err != nil {
		return err
	}
	f.add("deferred_passes", "passes that gave their worker back to wait for their account's limiter (all of the figure)", "passes", deferred["AccountBudget"], nil)
	worst := 0.0
	for _, a := range benchAccounts {
		measured, reported, silent, err := r.pollIntervals(ctx, tablesOf[a.name], window, sc.AccountPoll)
		if err != nil {
			return err
		}
		errRatio := math.Abs(reported-measured) / measured
		worst = max(worst, errRatio)
		f.add("measured_"+a.name, fmt.Sprintf("account %s: seconds between two looks at a table (median)", a.name), "s", measured, nil)
		f.add("reported_"+a.name, fmt.Sprintf("account %s: interval Tether reports (median of status.effectivePollInterval, or the poll interval)", a.name), "s", reported, nil)
		f.add("stretch_"+a.name, fmt.Sprintf("account %s: tether_dynamodb_poll_stretch", a.name), "x", stretch[a.id], nil)
		f.add("silent_"+a.name, fmt.Sprintf("account %s: tables looked at over 25%% less often than asked whose status says nothing", a.name), "tables", float64(silent), &goal{Op: "<=", Limit: 0})
	}
	f.add("report_error", "worst gap between the reported and the measured interval, relative to the measured", "ratio", worst, &goal{Op: "<=", Limit: 0.25,
		Text: "<= 0.25: the interval held, or the stretch reported within 25%"})
	u, err := r.op.Usage()
	if err != nil {
		return err
	}
	f.add("peak_rss", fmt.Sprintf("operator peak RSS (%d tables)", len(all)), "MB", float64(u.PeakRSS)/1e6, nil)
	f.note("%d tables, %d in each of two accounts (AWSAccounts whose roles the STS model issues per-account credentials for; DynamoDB Local keeps each account's tables apart), "+
		"--dynamodbtable-poll-interval=%s, --dynamodb-requests-per-second=%g per account and region: %.1f DescribeTable/s asked per account, so each table is expected every %s. "+
		"All Ready %s after creation started; window %s. Calls in the window: %s.",
		len(all), perAccount, sc.AccountPoll, sc.AccountRate, asked, expected.Round(time.Second), created.Round(time.Second), window, FormatCounts(r.proxy.Calls()))
	return nil
}

// readySpan is when the first and the last of a group became Ready.
type readySpan struct{ first, last time.Duration }

func (s *readySpan) add(at time.Duration) *readySpan {
	if s == nil {
		return &readySpan{first: at, last: at}
	}
	s.last = max(s.last, at)
	return s
}

func formatSpans(m map[string]*readySpan) string {
	var out []string
	for ns, s := range m {
		out = append(out, fmt.Sprintf("%s first %s last %s", ns, s.first.Round(time.Second), s.last.Round(time.Second)))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// kubeClient is what the operator's Kubernetes client has done so far:
// its writes, and the seconds its requests waited for its client-side
// limit (--kube-api-qps).
type kubeClient struct{ writes, throttled float64 }

func (r *run) kubeClientCounts() (kubeClient, error) {
	byMethod, err := r.op.apiRequests()
	if err != nil {
		return kubeClient{}, err
	}
	waited, err := r.op.Counter("rest_client_rate_limiter_duration_seconds_sum", "verb")
	if err != nil {
		return kubeClient{}, err
	}
	k := kubeClient{writes: byMethod["POST"] + byMethod["PUT"] + byMethod["PATCH"]}
	for _, v := range waited {
		k.throttled += v
	}
	return k, nil
}

// declareAccount creates the account's namespace (whose default account it
// is) and its AWSAccount, admitting that namespace.
func (e *env) declareAccount(ctx context.Context, a benchAccount) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.namespace,
		Annotations: map[string]string{awsv1alpha1.AnnotationNamespaceAccount: a.name}}}
	if err := e.c.Create(ctx, ns); err != nil {
		return err
	}
	return e.c.Create(ctx, &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: a.name},
		Spec: awsv1alpha1.AWSAccountSpec{AssumeRole: awsv1alpha1.AssumeRole{RoleARN: a.roleARN},
			NamespaceSelector: awsv1alpha1.NamespaceSelector{Names: []string{a.namespace}}}})
}

// pollIntervals returns, for one account's tables over the window, the
// median seconds between two DescribeTables (from the first and the last
// in the window; a table described less than twice counts the whole
// window), the median interval Tether reports, and how many tables were
// looked at over 25% less often than poll while their status reported
// nothing.
func (r *run) pollIntervals(ctx context.Context, tables []*awsv1alpha1.DynamoDBTable, window, poll time.Duration) (measured, reported float64, silent int, err error) {
	var ms, rs []float64
	for _, t := range tables {
		var cur awsv1alpha1.DynamoDBTable
		if err := r.cache.Get(ctx, client.ObjectKeyFromObject(t), &cur); err != nil {
			return 0, 0, 0, err
		}
		m := window.Seconds()
		if iv := r.proxy.SpanFor(t.Name, "DescribeTable").Interval(); iv > 0 {
			m = iv.Seconds()
		}
		rep := poll.Seconds()
		if cur.Status.EffectivePollInterval != "" {
			d, err := time.ParseDuration(cur.Status.EffectivePollInterval)
			if err != nil {
				return 0, 0, 0, err
			}
			rep = d.Seconds()
		} else if m > 1.25*poll.Seconds() {
			silent++
		}
		ms, rs = append(ms, m), append(rs, rep)
	}
	return median(ms), median(rs), silent, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
