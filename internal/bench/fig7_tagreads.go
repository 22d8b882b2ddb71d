package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
)

func init() {
	registerAlone(7, "Tag reads on an endpoint with tagging", true, (*run).tagReads)
}

// Figure 7 (issue 17 item 7): what tags cost to watch on an endpoint that
// has tagging. DynamoDB Local, which figures 1 to 6 use, has none, so there
// a tag read can never show. Here dynalite (which has tagging) sits behind
// the counting proxy, half the tables have spec tags and half none, and the
// operator reads secondary features back every TagReadInterval. A table
// whose spec has no tags must cost no ListTagsOfResource at all: Tether's
// owner tags are given to CreateTable and are no reason to read.
func (r *run) tagReads(ctx context.Context, bin string) error {
	sc := r.sc
	srv, err := ddbtest.StartDynalite(ddbtest.DynaliteOptions{})
	if err != nil {
		return err
	}
	r.onStop(srv.Stop)
	if err := r.startTablesWorld(ctx, bin, srv.URL, nil,
		"--dynamodbtable-poll-interval="+sc.TagReadInterval.String(),
		"--dynamodb-secondary-read-interval="+sc.TagReadInterval.String()); err != nil {
		return err
	}
	var tagged, plain []*awsv1alpha1.DynamoDBTable
	for i := range sc.TagTables {
		plain = append(plain, newTable(fmt.Sprintf("plain-%04d", i+1), false))
		t := newTable(fmt.Sprintf("tagged-%04d", i+1), false)
		t.Spec.Tags = map[string]string{"team": "orders"}
		tagged = append(tagged, t)
	}
	all := append(objects(plain), objects(tagged)...)
	if err := r.createAll(ctx, all); err != nil {
		return err
	}
	if _, err := r.waitReady(ctx, true, wantAll(all), 3*time.Minute+time.Duration(3*len(all)/limiterRate)*time.Second, nil); err != nil {
		return err
	}

	r.proxy.ResetCounts()
	window := time.Duration(sc.TagWatchIntervals) * sc.TagReadInterval
	if err := r.sleep(ctx, window); err != nil {
		return err
	}
	perTable := func(tables []*awsv1alpha1.DynamoDBTable, op string) float64 {
		n := 0
		for _, t := range tables {
			n += r.proxy.CallsFor(t.Name)[op]
		}
		return float64(n) / float64(len(tables)) / float64(sc.TagWatchIntervals)
	}
	f := r.fig(7)
	f.add("tag_reads_untagged", "ListTagsOfResource per table without spec tags per read interval", "calls",
		perTable(plain, "ListTagsOfResource"), &goal{Op: "<=", Limit: 0})
	f.add("tag_reads_tagged", "ListTagsOfResource per table with spec tags per read interval", "calls",
		perTable(tagged, "ListTagsOfResource"), nil)
	f.add("describes", "DescribeTable per table per poll interval", "calls",
		perTable(append(plain, tagged...), "DescribeTable"), nil)
	f.note("dynalite (which has tagging) behind the counting proxy; %d tables without spec tags and %d with; "+
		"--dynamodbtable-poll-interval and --dynamodb-secondary-read-interval both %s (the default read interval is 10m); window %s. Calls by operation: %s.",
		len(plain), len(tagged), sc.TagReadInterval, window, FormatCounts(r.proxy.Calls()))
	return nil
}

// startTablesWorld brings up a world of DynamoDBTables only: the API
// server, the endpoint at url behind the counting proxy, the tables
// namespace, and the operator with flags (and extraEnv).
func (e *env) startTablesWorld(ctx context.Context, bin, url string, extraEnv map[string]string, flags ...string) error {
	kubeconfig, err := e.startControlPlane(e.runDir)
	if err != nil {
		return err
	}
	if e.proxy, err = faultproxy.New(url, 7); err != nil {
		return err
	}
	if _, err := e.proxy.Listen("127.0.0.1:0"); err != nil {
		return err
	}
	e.onStop(func() { _ = e.proxy.Close() })
	if err := e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tablesNS}}); client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	e.op, err = StartOperatorWithEnv(ctx, bin, kubeconfig, e.proxy.URL(), extraEnv, filepath.Join(e.runDir, "operator.log"), flags...)
	if err != nil {
		return err
	}
	e.onStop(e.op.Stop)
	return nil
}
