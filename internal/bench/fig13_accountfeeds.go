package bench

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

func init() {
	registerAlone(13, "Scale per account and region with change feeds", false, (*run).accountScaleWithFeeds)
}

// Figure 13 (issue 26): figure 8's tables and accounts, each account with a
// healthy change feed. Polled, 5,000 tables an account every 2 minutes ask
// for more than the account's 25 calls/s and each is looked at every 200 s
// (figure 8); covered by a feed, they are read every safety interval and
// ask for a tenth of it. Every table must be looked at within its safety
// interval, with no stretch reported.
func (r *run) accountScaleWithFeeds(ctx context.Context, bin string) error {
	sc := r.sc
	w, err := r.startFeedWorld(ctx, bin, "--dynamodbtable-poll-interval="+sc.AccountPoll.String(),
		fmt.Sprintf("--dynamodb-requests-per-second=%g", sc.AccountRate))
	if err != nil {
		return err
	}
	perAccount := sc.AccountTables / len(benchAccounts)
	tablesOf := map[string][]*awsv1alpha1.DynamoDBTable{}
	var all []client.Object
	for _, a := range benchAccounts {
		if _, err := r.declareFeedAccount(ctx, w, a, sc.AccountFeedSafety); err != nil {
			return err
		}
		for i := range perAccount {
			t := newTable(fmt.Sprintf("%s-%05d", a.name, i+1), false)
			t.Namespace, t.Labels = a.namespace, nil
			tablesOf[a.name] = append(tablesOf[a.name], t)
			all = append(all, t)
		}
	}
	start := time.Now()
	if err := r.createAll(ctx, all); err != nil {
		return err
	}
	create := time.Duration(float64(3*perAccount)/sc.AccountRate*float64(time.Second)) + 10*time.Minute
	if _, err := r.waitReadyEvery(ctx, 2*time.Second, true, wantAll(all), create, nil); err != nil {
		return err
	}
	created := time.Since(start)
	for _, a := range benchAccounts {
		if err := r.waitFeedHealthy(ctx, a.name); err != nil {
			return fmt.Errorf("account %s's change feed did not become healthy: %w", a.name, err)
		}
	}
	// Until every table had its first look since its feed became healthy,
	// which gives it the safety interval: one poll interval, stretched as
	// figure 8 measures while polled.
	polled := time.Duration(float64(sc.AccountPoll) * max(1, float64(perAccount)/sc.AccountPoll.Seconds()/sc.AccountRate))
	if err := r.sleep(ctx, polled*11/10+5*time.Second); err != nil {
		return err
	}
	r.proxy.ResetCounts()
	// Every table is looked at again within its safety interval (plus its
	// jitter of up to 10%) of its last look, which was before the window.
	window := sc.AccountFeedSafety*11/10 + sc.AccountFeedSafety/20
	if err := r.sleep(ctx, window); err != nil {
		return err
	}
	stretch, err := r.op.Counter("tether_dynamodb_poll_stretch", "account")
	if err != nil {
		return err
	}
	f := r.fig(13)
	f.add("created", fmt.Sprintf("all %d tables Ready, after creation started", len(all)), "s", created.Seconds(), nil)
	for _, a := range benchAccounts {
		unseen, stretched, reported := 0, 0, []float64{}
		for _, t := range tablesOf[a.name] {
			if r.proxy.CallsFor(t.Name)["DescribeTable"] == 0 {
				unseen++
			}
			var cur awsv1alpha1.DynamoDBTable
			if err := r.cache.Get(ctx, client.ObjectKeyFromObject(t), &cur); err != nil {
				return err
			}
			if cur.Status.EffectivePollInterval != "" {
				stretched++
				if d, err := time.ParseDuration(cur.Status.EffectivePollInterval); err == nil {
					reported = append(reported, d.Seconds())
				}
			}
		}
		f.add("unseen_"+a.name, fmt.Sprintf("account %s: tables not looked at within %s (their safety interval %s, +10%% jitter)", a.name, window.Round(time.Second), sc.AccountFeedSafety),
			"tables", float64(unseen), &goal{Op: "<=", Limit: 0})
		f.add("stretched_"+a.name, fmt.Sprintf("account %s: tables whose status reports a stretched interval", a.name), "tables", float64(stretched), &goal{Op: "<=", Limit: 0})
		f.add("stretch_"+a.name, fmt.Sprintf("account %s: tether_dynamodb_poll_stretch", a.name), "x", stretch[a.id], &goal{Op: "<=", Limit: 1})
		if len(reported) > 0 {
			f.note("account %s: %d tables report an effective interval, median %.0f s", a.name, len(reported), median(reported))
		}
	}
	asked := float64(perAccount) / sc.AccountFeedSafety.Seconds()
	f.note("%d tables, %d in each of two accounts, each account with a healthy change feed (goaws; safetyInterval %s), --dynamodbtable-poll-interval=%s, "+
		"--dynamodb-requests-per-second=%g per account and region: %.2f DescribeTable/s asked per account, against %.1f when polled. "+
		"All Ready %s after creation started; window %s. Calls in the window: %s.",
		len(all), perAccount, sc.AccountFeedSafety, sc.AccountPoll, sc.AccountRate, asked, float64(perAccount)/sc.AccountPoll.Seconds(),
		created.Round(time.Second), window.Round(time.Second), FormatCounts(r.proxy.Calls()))
	if u, err := r.op.Usage(); err == nil {
		f.add("peak_rss", fmt.Sprintf("operator peak RSS (%d tables)", len(all)), "MB", float64(u.PeakRSS)/1e6, nil)
	}
	return nil
}
