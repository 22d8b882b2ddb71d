package bench

import (
	"context"
	"fmt"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
)

// Figure 17 (issue 37): tables created, changed and deleted while DynamoDB
// is as slow and as late as AWS documents it (internal/ddbgap's Pace: a
// table CREATING, not found for a moment after CreateTable, UPDATING, an
// index backfilling, DELETING, reads that still show the table before the
// last change), with a fifth of the calls throttled. DynamoDB Local alone
// answers at once; on AWS a reconciler that takes every read for the truth
// sends its calls twice and reports failures that are not there.
func init() {
	registerAlone(17, "AWS as it is: tables at AWS's pace, reads late, a fifth of the calls throttled", true, (*run).awsPace)
}

// paceShare is the share of calls the proxy throttles.
const paceShare = 0.2

// paceWarnings are the event reasons that would be false at AWS's pace:
// a table that is there, an accepted change taken for a bad spec.
var paceWarnings = []string{"TableDeleted", "TableExists", "InvalidSpec", "Stalled"}

func (r *run) awsPace(ctx context.Context, bin string) error {
	sc := r.sc
	srv, err := ddbtest.StartDynamoDBLocal(ddbtest.LocalOptions{})
	if err != nil {
		return err
	}
	r.onStop(srv.Stop)
	gap := ddbgap.New(srv.URL, ddbgap.Options{Pace: sc.Pace, Transition: sc.Pace.Update})
	url, err := gap.Listen()
	if err != nil {
		return err
	}
	r.onStop(func() { _ = gap.Close() })
	if err := r.startTablesWorld(ctx, bin, url, nil); err != nil {
		return err
	}
	ledger := r.proxy.Keep()
	r.proxy.SetRules(faultproxy.Rule{Share: paceShare, Fault: faultproxy.Throttling})
	f := r.fig(17)

	tables := make([]*awsv1alpha1.DynamoDBTable, sc.PaceTables)
	for i := range tables {
		tables[i] = newTable(fmt.Sprintf("pace-%03d", i+1), i%2 == 1)
	}
	objs := objects(tables)
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	last, err := r.waitReady(ctx, true, wantAll(objs), 10*time.Minute, nil)
	if err != nil {
		return fmt.Errorf("created: %w", err)
	}
	created := last.Sub(start)
	createCalls := ledger.TotalAll()

	// Changed: the on-demand half switches to PROVISIONED (seen once the
	// reads stop being stale), the provisioned half gains an index
	// (allocated, then backfilled).
	var switched, indexed []client.Object
	for i, o := range objs {
		if i%2 == 0 {
			switched = append(switched, o)
		} else {
			indexed = append(indexed, o)
		}
	}
	start = time.Now()
	w1, err := r.patchAll(ctx, switched, `{"spec":{"billingMode":"PROVISIONED","provisionedThroughput":{"readCapacityUnits":5,"writeCapacityUnits":5}}}`)
	if err != nil {
		return err
	}
	w2, err := r.patchAll(ctx, indexed, `{"spec":{"attributeDefinitions":[{"attributeName":"pk","attributeType":"S"},{"attributeName":"owner","attributeType":"S"}],`+
		`"globalSecondaryIndexes":[{"indexName":"by-owner","keySchema":[{"attributeName":"owner","keyType":"HASH"}],"projection":{"projectionType":"ALL"},`+
		`"provisionedThroughput":{"readCapacityUnits":1,"writeCapacityUnits":1}}]}}`)
	if err != nil {
		return err
	}
	for k, v := range w2 {
		w1[k] = v
	}
	if last, err = r.waitReady(ctx, true, w1, 10*time.Minute, nil); err != nil {
		return fmt.Errorf("changed: %w", err)
	}
	changed := last.Sub(start)

	start = time.Now()
	if err := Parallel(len(objs), 16, func(i int) error { return client.IgnoreNotFound(r.c.Delete(ctx, objs[i])) }); err != nil {
		return err
	}
	if err := r.waitGone(ctx, objs, 10*time.Minute); err != nil {
		return fmt.Errorf("deleted: %w", err)
	}
	deleted := time.Since(start)

	n := float64(len(tables))
	var creates, deletes, resends int
	for _, t := range tables {
		creates += ledger.Count(t.Name, "CreateTable")
		deletes += ledger.Count(t.Name, "DeleteTable")
		resends += len(ledger.Resends(t.Name, time.Minute))
	}
	warnings, err := r.eventsOf(ctx, tablesNS, paceWarnings)
	if err != nil {
		return err
	}
	pace := sc.Pace
	f.add("create_calls", fmt.Sprintf("calls per table to Ready (%d tables created at once)", len(tables)), "calls", float64(createCalls)/n, nil)
	f.add("creates", "CreateTable per table", "calls", float64(creates)/n, &goal{Op: "<=", Limit: 1})
	f.add("resends", "identical writes sent again after AWS accepted them", "calls", float64(resends), &goal{Op: "<=", Limit: 0})
	f.add("false_warnings", "warnings that are not so ("+fmt.Sprint(paceWarnings)+")", "events", float64(warnings), &goal{Op: "<=", Limit: 0})
	f.add("deletes", "DeleteTable per table", "calls", float64(deletes)/n, &goal{Op: "<=", Limit: 1})
	f.add("created", "time to all Ready", "s", secs(created), nil)
	f.add("created_floor", "its floor: a table CREATING", "s", secs(pace.Create), nil)
	f.add("changed", "time to all Ready after a billing switch (half) or an index (half)", "s", secs(changed), nil)
	f.add("changed_floor", "its floor: an index allocated and backfilled, or the reads stale", "s", secs(max(pace.Update+pace.Backfill, pace.Stale)), nil)
	f.add("deleted", "time to all objects gone", "s", secs(deleted), nil)
	f.add("deleted_floor", "its floor: a table DELETING", "s", secs(pace.Delete), nil)
	f.add("calls", "calls per table, created, changed and deleted", "calls", float64(ledger.TotalAll())/n, nil)
	f.note("DynamoDB Local behind internal/ddbgap with Pace %+v, behind a proxy throttling %.0f%% of the calls; the operator at its defaults "+
		"(a look every 5 s while a table changes, a one-minute settle window). Calls by operation, throttled ones included: %s.",
		pace, paceShare*100, FormatCounts(r.proxy.Calls()))
	return nil
}

// waitGone waits until none of objs is left in the API server.
func (e *env) waitGone(ctx context.Context, objs []client.Object, timeout time.Duration) error {
	return WaitUntil(ctx, timeout, 200*time.Millisecond, func() (bool, error) {
		var list awsv1alpha1.DynamoDBTableList
		if err := e.cache.List(ctx, &list); err != nil {
			return false, err
		}
		names := map[string]bool{}
		for _, o := range objs {
			names[keyOf(o)] = true
		}
		for i := range list.Items {
			if names[keyOf(&list.Items[i])] {
				return false, nil
			}
		}
		return true, nil
	})
}

// eventsOf counts the events of namespace with one of reasons.
func (e *env) eventsOf(ctx context.Context, namespace string, reasons []string) (int, error) {
	var list eventsv1.EventList
	if err := e.c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	n := 0
	for _, ev := range list.Items {
		for _, r := range reasons {
			if ev.Reason == r {
				n++
			}
		}
	}
	return n, nil
}
