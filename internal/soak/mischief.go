package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/huesim"
)

// Kinds of injected change, as counted in the report.
const (
	faultBulbDimmed     = "bulb dimmed (Hue app)"
	faultBulbOff        = "bulb switched off (Hue app)"
	faultBulbRecoloured = "bulb recoloured (Hue app)"
	faultTableCapacity  = "table capacity changed (UpdateTable at DynamoDB Local)"
	faultTableBilling   = "table billing switched (UpdateTable at DynamoDB Local)"
	faultTableRefused   = "out-of-band UpdateTable refused by DynamoDB Local"
	faultSpecLight      = "HueLight spec edited (API server)"
	faultSpecTable      = "DynamoDBTable spec edited (API server)"
	faultBurst          = "HueLights of one bridge given states of their own at once (API server)"
	faultGroupEdit      = "HueGroup switched between its scene and a brightness (API server)"
	faultFlap           = "bridge offline"
	faultStreamCut      = "v2 bridge's connections cut, event stream included"
	faultThrottle       = "DynamoDB throttling half the calls"
	faultRestartTerm    = "manager restarted (SIGTERM)"
	faultRestartKill    = "manager restarted (SIGKILL)"
)

// mischief counts what was done behind Tether's back.
type mischief struct {
	mu     sync.Mutex
	counts map[string]int
	// offline is set while the flapping bridges are off the network.
	offline bool
	flaps   []flap
	// windows are when each fault lasted, for the error lines' attribution.
	windows []window
	// lastRefusal is DynamoDB Local's answer to the last refused change.
	lastRefusal string
	// restarts counts the manager's restarts.
	restarts int
}

type flap struct {
	Start string `json:"start"` // offset from the start of the mischief
	For   string `json:"for"`
	Mode  string `json:"mode"`
}

// window is a fault's time span.
type window struct {
	Kind     string    `json:"kind"`
	From, To time.Time `json:"-"`
}

func (m *mischief) count(kind string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[kind]++
}

// fault records a fault that lasted from from to now.
func (m *mischief) fault(kind string, from time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[kind]++
	m.windows = append(m.windows, window{Kind: kind, From: from, To: time.Now()})
}

func (m *mischief) isOffline() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.offline
}

// makeMischief changes things behind Tether's back until ctx ends: bulbs and
// tables every ChangeEvery (on average), specs every SpecEditEvery, bursts
// of distinct states every BurstEvery, a group every GroupEditEvery, the
// flapping bridges off the network FlapFor every FlapEvery, the first v2
// bridge's connections cut every StreamCutEvery, DynamoDB throttling
// ThrottleFor every ThrottleEvery and the manager restarted every
// RestartEvery. It returns once the bridges are back online, the
// throttling off and the manager running.
func (s *soak) makeMischief(ctx context.Context, m *mischief, rng *rand.Rand) {
	o := s.opts
	var wg sync.WaitGroup
	// Each loop has its own generator: rand.Rand is not safe for
	// concurrent use.
	loops := []func(r *rand.Rand){
		func(r *rand.Rand) {
			every(ctx, r, o.ChangeEvery, func() {
				if r.IntN(2) == 0 {
					s.changeBulb(m, r)
				} else {
					s.changeTable(ctx, m, r)
				}
			})
		},
		func(r *rand.Rand) { every(ctx, r, o.SpecEditEvery, func() { s.editSpec(ctx, m, r) }) },
		func(r *rand.Rand) { every(ctx, r, o.BurstEvery, func() { s.burst(ctx, m, r) }) },
		func(r *rand.Rand) { every(ctx, r, o.GroupEditEvery, func() { s.editGroup(ctx, m, r) }) },
		func(*rand.Rand) { s.flapBridges(ctx, m, time.Now()) },
		func(*rand.Rand) { periodically(ctx, o.StreamCutEvery, func() { s.cutStreams(m) }) },
		func(*rand.Rand) { periodically(ctx, o.ThrottleEvery, func() { s.throttle(ctx, m) }) },
		func(*rand.Rand) {
			periodically(ctx, o.RestartEvery, func() { s.restart(ctx, m) })
		},
	}
	for i, loop := range loops {
		seed := rng.Uint64()
		wg.Add(1)
		go func() {
			defer wg.Done()
			loop(rand.New(rand.NewPCG(seed, uint64(i+1))))
		}()
	}
	wg.Wait()
}

// periodically calls f every period until ctx ends (never when period is
// not positive).
func periodically(ctx context.Context, period time.Duration, f func()) {
	if period <= 0 {
		return
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f()
	}
}

// every calls f at random pauses averaging mean (uniform in 0..2*mean).
func every(ctx context.Context, r *rand.Rand, mean time.Duration, f func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(r.Int64N(int64(2*mean) + 1))):
		}
		f()
	}
}

func (s *soak) changeBulb(m *mischief, r *rand.Rand) {
	if len(s.lights) == 0 {
		return
	}
	l := s.lights[r.IntN(len(s.lights))]
	sim := s.bulbs[l.Spec.Name].sim
	bulb, ok := sim.LightByName(l.Spec.Name)
	if !ok {
		return
	}
	kind := []string{faultBulbDimmed, faultBulbOff, faultBulbRecoloured}[r.IntN(3)]
	err := sim.ChangeLight(bulb.ID, func(st *huesim.LightState) {
		switch kind {
		case faultBulbDimmed:
			st.Bri = 1 + r.IntN(60)
		case faultBulbOff:
			st.On = false
		case faultBulbRecoloured:
			if r.IntN(2) == 0 {
				st.CT, st.ColorMode = 153+r.IntN(348), "ct"
			} else {
				st.Hue, st.Sat, st.ColorMode = r.IntN(65536), r.IntN(255), "hs"
			}
		}
	})
	if err == nil {
		m.count(kind)
	}
}

// changeTable changes a table straight at DynamoDB Local: a PROVISIONED
// table's capacity or its index's, or the billing mode (a switch to
// PROVISIONED of a table with an index carries the index's capacity too, as
// AWS requires).
func (s *soak) changeTable(ctx context.Context, m *mischief, r *rand.Rand) {
	if len(s.tables) == 0 {
		return
	}
	t := s.tables[r.IntN(len(s.tables))]
	name := aws.String(t.Name)
	out, err := s.w.Raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: name})
	if err != nil {
		return
	}
	capacity := func(lo int) *ddbtypes.ProvisionedThroughput {
		return &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(int64(lo + r.IntN(30))), WriteCapacityUnits: aws.Int64(int64(lo + r.IntN(30)))}
	}
	indexCapacity := func(pt *ddbtypes.ProvisionedThroughput) []ddbtypes.GlobalSecondaryIndexUpdate {
		var out []ddbtypes.GlobalSecondaryIndexUpdate
		for _, g := range t.Spec.GlobalSecondaryIndexes {
			out = append(out, ddbtypes.GlobalSecondaryIndexUpdate{Update: &ddbtypes.UpdateGlobalSecondaryIndexAction{
				IndexName: aws.String(g.IndexName), ProvisionedThroughput: pt}})
		}
		return out
	}
	in := &awsdynamodb.UpdateTableInput{TableName: name}
	kind := faultTableCapacity
	switch billing := billingOf(out.Table); {
	case billing == awsv1alpha1.BillingModeProvisioned && r.IntN(3) > 0:
		if hasGSI(t) && r.IntN(2) == 0 {
			in.GlobalSecondaryIndexUpdates = indexCapacity(capacity(20))
		} else {
			in.ProvisionedThroughput = capacity(20)
		}
	case billing == awsv1alpha1.BillingModeProvisioned:
		kind = faultTableBilling
		in.BillingMode = ddbtypes.BillingModePayPerRequest
	default:
		kind = faultTableBilling
		in.BillingMode = ddbtypes.BillingModeProvisioned
		in.ProvisionedThroughput = capacity(6)
		if hasGSI(t) {
			in.GlobalSecondaryIndexUpdates = indexCapacity(capacity(6))
		}
	}
	if _, err := s.w.Raw.UpdateTable(ctx, in); err != nil {
		if ctx.Err() == nil {
			m.count(faultTableRefused)
			m.mu.Lock()
			m.lastRefusal = err.Error()
			m.mu.Unlock()
		}
		return
	}
	m.count(kind)
}

// billingOf reads the billing mode as AWS reports it: tables that were
// always PROVISIONED have no BillingModeSummary.
func billingOf(d *ddbtypes.TableDescription) string {
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		return string(d.BillingModeSummary.BillingMode)
	}
	return awsv1alpha1.BillingModeProvisioned
}

// editSpec changes a HueLight's or a PROVISIONED DynamoDBTable's spec through
// the API server, as a person with kubectl would.
func (s *soak) editSpec(ctx context.Context, m *mischief, r *rand.Rand) {
	var (
		obj   client.Object
		patch string
		kind  string
	)
	if r.IntN(2) == 0 && len(s.lights) > 0 {
		l := s.lights[r.IntN(len(s.lights))]
		on := r.IntN(6) > 0 // now and then a light is switched off in the spec
		patch = fmt.Sprintf(`{"spec":{"on":%t,"brightness":%d`, on, 1+r.IntN(254))
		switch c := l.Spec.Color; {
		case c != nil && c.ColorTemperature != nil:
			patch += fmt.Sprintf(`,"color":{"colorTemperature":%d}`, 153+r.IntN(348))
		case c != nil && c.Hue != nil:
			patch += fmt.Sprintf(`,"color":{"hue":%d,"saturation":%d}`, r.IntN(65536), r.IntN(255))
		}
		patch += "}}"
		obj, kind = &huev1alpha1.HueLight{}, faultSpecLight
		obj.SetNamespace(l.Namespace)
		obj.SetName(l.Name)
	} else {
		var provisioned []*awsv1alpha1.DynamoDBTable
		for _, t := range s.tables {
			if t.Spec.BillingMode == awsv1alpha1.BillingModeProvisioned {
				provisioned = append(provisioned, t)
			}
		}
		if len(provisioned) == 0 {
			return
		}
		t := provisioned[r.IntN(len(provisioned))]
		patch = fmt.Sprintf(`{"spec":{"provisionedThroughput":{"readCapacityUnits":%d,"writeCapacityUnits":%d}}}`, 1+r.IntN(10), 1+r.IntN(10))
		obj, kind = &awsv1alpha1.DynamoDBTable{}, faultSpecTable
		obj.SetNamespace(t.Namespace)
		obj.SetName(t.Name)
	}
	if err := s.w.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err == nil {
		m.count(kind)
	}
}

// burst gives BurstLights HueLights of one bridge a brightness of their
// own each, at once: the bridge's floor light by light, a temporary scene's
// work.
func (s *soak) burst(ctx context.Context, m *mischief, r *rand.Rand) {
	b := s.bridges[r.IntN(len(s.bridges))]
	var on []*huev1alpha1.HueLight
	for _, l := range s.lights {
		if s.bulbs[l.Spec.Name] == b {
			on = append(on, l)
		}
	}
	r.Shuffle(len(on), func(i, j int) { on[i], on[j] = on[j], on[i] })
	on = on[:min(len(on), s.opts.BurstLights)]
	base := r.IntN(200)
	err := bench.Parallel(len(on), len(on), func(i int) error {
		obj := &huev1alpha1.HueLight{}
		obj.SetNamespace(on[i].Namespace)
		obj.SetName(on[i].Name)
		patch := fmt.Sprintf(`{"spec":{"on":true,"brightness":%d}}`, 1+(base+i*7)%254)
		return s.w.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)))
	})
	if err == nil && len(on) > 0 {
		m.count(faultBurst)
	}
}

// editGroup switches a HueGroup from its scene to a brightness for all its
// lights, or back.
func (s *soak) editGroup(ctx context.Context, m *mischief, r *rand.Rand) {
	if len(s.groups) == 0 {
		return
	}
	g := s.groups[r.IntN(len(s.groups))]
	var cur huev1alpha1.HueGroup
	if err := s.w.Client.Get(ctx, client.ObjectKeyFromObject(g), &cur); err != nil {
		return
	}
	patch := fmt.Sprintf(`{"spec":{"scene":%q,"brightness":null}}`, g.Spec.Scene)
	if cur.Spec.Scene != "" {
		patch = fmt.Sprintf(`{"spec":{"scene":null,"brightness":%d}}`, 1+r.IntN(254))
	}
	if err := s.w.Client.Patch(ctx, &cur, client.RawPatch(types.MergePatchType, []byte(patch))); err == nil {
		m.count(faultGroupEdit)
	}
}

// flapBridges takes the flapping bridges off the network FlapFor at the
// start of every FlapEvery, alternating a refused connection (unplugged)
// with a hanging one (unreachable network), and leaves them online when ctx
// ends.
func (s *soak) flapBridges(ctx context.Context, m *mischief, start time.Time) {
	var flapping []*bridge
	for _, b := range s.bridges {
		if b.flaps {
			flapping = append(flapping, b)
		}
	}
	if len(flapping) == 0 {
		return
	}
	modes := []huesim.OfflineMode{huesim.Refuse, huesim.Hang}
	for i := 0; ; i++ {
		// The first flap comes after a quarter period, the bridges' lights
		// settled by then.
		wait := s.opts.FlapEvery
		if i == 0 {
			wait = s.opts.FlapEvery / 4
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait - s.opts.FlapFor*time.Duration(min(i, 1))):
		}
		mode := modes[i%2]
		from := time.Now()
		m.mu.Lock()
		m.offline = true
		m.flaps = append(m.flaps, flap{Start: time.Since(start).Round(time.Second).String(), For: s.opts.FlapFor.String(), Mode: string(mode)})
		m.mu.Unlock()
		for _, b := range flapping {
			b.sim.Offline(mode)
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.opts.FlapFor):
		}
		for _, b := range flapping {
			_ = b.sim.Online()
		}
		m.mu.Lock()
		m.offline = false
		m.mu.Unlock()
		m.fault(faultFlap, from)
		if ctx.Err() != nil {
			return
		}
	}
}

// cutStreams closes every connection to the v2 bridges behind a cutting
// proxy (their event streams among them) and lets them reconnect at once.
func (s *soak) cutStreams(m *mischief) {
	for _, b := range s.bridges {
		if b.cut == nil {
			continue
		}
		from := time.Now()
		b.cut.SetOffline(true)
		b.cut.SetOffline(false)
		m.fault(faultStreamCut, from)
	}
}

// throttle makes both DynamoDB endpoints answer half the calls with
// ThrottlingException for ThrottleFor (less when ctx ends first).
func (s *soak) throttle(ctx context.Context, m *mischief) {
	proxies := []*faultproxy.Proxy{s.w.Proxy}
	if s.accountProxy != nil {
		proxies = append(proxies, s.accountProxy)
	}
	from := time.Now()
	for _, p := range proxies {
		p.SetRules(faultproxy.Rule{Share: 0.5, Fault: faultproxy.Throttling})
	}
	select {
	case <-ctx.Done():
	case <-time.After(s.opts.ThrottleFor):
	}
	for _, p := range proxies {
		p.SetRules()
	}
	m.fault(faultThrottle, from)
}

// restart stops the manager, with SIGTERM and SIGKILL in turn, and starts
// it again.
func (s *soak) restart(ctx context.Context, m *mischief) {
	m.mu.Lock()
	kill := m.restarts%2 == 1
	m.restarts++
	m.mu.Unlock()
	kind := faultRestartTerm
	if kill {
		kind = faultRestartKill
	}
	from := time.Now()
	// A restart that fails ends the soak (the run loop sees no manager);
	// the context of the whole soak, not the mischief's, so that a restart
	// under way as the mischief ends still completes.
	if err := s.restartManager(context.WithoutCancel(ctx), kill); err != nil {
		s.opts.logf("restarting the manager: %v", err)
		select {
		case s.crashed <- -1:
		default:
		}
		return
	}
	m.fault(kind, from)
}
