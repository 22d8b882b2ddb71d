package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

// Figure 15 (issue 28 item 5): memory at scale with event streams open.
// MemTables tables over figure 8's two AWS accounts and MemLights
// HueLights over MemBridges CLIP v2 bridges, each bridge's event stream
// open, the operator at its defaults; once everything is Ready and a poll
// interval of each has passed, the operator's peak RSS. A world of its own;
// not in the default set (creating 10,000 tables takes about ten minutes at
// the accounts' limiters): `-figures=15`.
func init() {
	registerAlone(15, "Memory at scale with event streams open", false, (*run).memory)
}

// memoryRSSGoal is issue 28's bound, in MB.
const memoryRSSGoal = 300

const memoryNS = "bench-memory"

func (r *run) memory(ctx context.Context, bin string) error {
	sc := r.sc
	dynamoDB, stsEnv, err := r.startAccountEndpoints()
	if err != nil {
		return err
	}
	// The operator's defaults: a 2 minute table poll, 25 DynamoDB calls/s per
	// account and region, a 5 s Hue poll, the v2 safety read and silence.
	if err := r.startTablesWorld(ctx, bin, dynamoDB, stsEnv); err != nil {
		return err
	}
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: memoryNS}}); err != nil {
		return err
	}
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretsNS}}); client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	lights, err := r.startMemoryBridges(ctx)
	if err != nil {
		return err
	}
	perAccount := sc.MemTables / len(benchAccounts)
	var tables []client.Object
	for _, a := range benchAccounts {
		if err := r.declareAccount(ctx, a); err != nil {
			return err
		}
		for i := range perAccount {
			t := newTable(fmt.Sprintf("%s-%05d", a.name, i+1), false)
			t.Namespace, t.Labels = a.namespace, nil
			tables = append(tables, t)
		}
	}
	start := time.Now()
	if err := r.createAll(ctx, append(objects(lights), tables...)); err != nil {
		return err
	}
	if _, err := r.waitReadyEvery(ctx, 2*time.Second, false, wantAll(objects(lights)), 10*time.Minute, nil); err != nil {
		return fmt.Errorf("the HueLights: %w", err)
	}
	create := time.Duration(float64(3*perAccount)/limiterRate*float64(time.Second)) + 10*time.Minute
	if _, err := r.waitReadyEvery(ctx, 5*time.Second, true, wantAll(tables), create, nil); err != nil {
		return fmt.Errorf("the tables: %w", err)
	}
	ready := time.Since(start)
	// A whole table poll interval (2 minutes, the default) with every
	// table looked at and every stream open.
	if err := r.sleep(ctx, sc.MemWindow); err != nil {
		return err
	}
	u, err := r.op.Usage()
	if err != nil {
		return err
	}
	g, err := r.op.Gauges("go_goroutines", "go_memstats_heap_inuse_bytes", "go_memstats_sys_bytes")
	if err != nil {
		return err
	}
	f := r.fig(15)
	objs := len(lights) + len(tables)
	f.add("peak_rss", fmt.Sprintf("operator peak RSS (%d tables over %d accounts, %d HueLights over %d CLIP v2 bridges)", len(tables), len(benchAccounts), len(lights), sc.MemBridges),
		"MB", float64(u.PeakRSS)/1e6, &goal{Op: "<=", Limit: memoryRSSGoal})
	f.why("RSS now %.0f MB, Go heap in use %.0f MB, memory the Go runtime holds from the OS %.0f MB, %.0f goroutines",
		float64(u.RSS)/1e6, g["go_memstats_heap_inuse_bytes"]/1e6, g["go_memstats_sys_bytes"]/1e6, g["go_goroutines"])
	f.add("rss", "operator RSS at the end", "MB", float64(u.RSS)/1e6, nil)
	f.add("heap_inuse", "Go heap in use at the end", "MB", g["go_memstats_heap_inuse_bytes"]/1e6, nil)
	f.add("per_object", "peak RSS per object", "KB", float64(u.PeakRSS)/1e3/float64(objs), nil)
	f.add("goroutines", "goroutines at the end", "goroutines", g["go_goroutines"], nil)
	f.add("ready", "time until every object was Ready", "s", ready.Seconds(), nil)
	f.note("%d DynamoDBTables, %d in each of two AWSAccounts (figure 8's, roles in the STS model), and %d HueLights, %d on each of %d simulated CLIP v2 bridges (HTTPS, one event stream each); "+
		"the operator at its defaults. All Ready %s after creation started, then %s more before the reading. RSS from /proc/<pid>/status (VmHWM: the peak since the process started).",
		len(tables), perAccount, len(lights), sc.MemLights/sc.MemBridges, sc.MemBridges, ready.Round(time.Second), sc.MemWindow)
	return nil
}

// startMemoryBridges starts MemBridges CLIP v2 bridges with their
// HueBridges and returns a HueLight for each of their bulbs, each wanting a
// brightness of its own.
func (r *run) startMemoryBridges(ctx context.Context) ([]*huev1alpha1.HueLight, error) {
	sc := r.sc
	per := max(1, sc.MemLights/sc.MemBridges)
	var lights []*huev1alpha1.HueLight
	for b := range sc.MemBridges {
		name := fmt.Sprintf("memory-%02d", b+1)
		opts := huesim.Options{Usernames: []string{benchUser}, BridgeID: fmt.Sprintf("001788FFFE%06X", rand.N(1<<24)), Lights: bulbNames(name, per)}
		sim, err := huesim.Start(opts, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		r.onStop(sim.Close)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: name + "-credentials"},
			Data: map[string][]byte{huev1alpha1.CredentialsKey: []byte(benchUser), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())}}
		if err := r.c.Create(ctx, secret); err != nil {
			return nil, err
		}
		if err := r.c.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: huev1alpha1.HueBridgeSpec{
			Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundle: string(sim.CACertPEM()), BridgeID: sim.BridgeID(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name}}}); err != nil {
			return nil, err
		}
		for i, bulb := range bulbNames(name, per) {
			lights = append(lights, newLight(memoryNS, bulb, name, name, bulb, int32(1+i*5%254)))
		}
	}
	return lights, nil
}
