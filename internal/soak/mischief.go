package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
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
	faultFlap           = "bridge offline"
)

// mischief counts what was done behind Tether's back.
type mischief struct {
	mu     sync.Mutex
	counts map[string]int
	// offline is set while the flapping bridge is off the network.
	offline bool
	flaps   []flap
	// lastRefusal is DynamoDB Local's answer to the last refused change.
	lastRefusal string
}

type flap struct {
	Start string `json:"start"` // offset from the start of the mischief
	For   string `json:"for"`
	Mode  string `json:"mode"`
}

func (m *mischief) count(kind string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[kind]++
}

func (m *mischief) isOffline() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.offline
}

// makeMischief changes things behind Tether's back until ctx ends: bulbs and
// tables every ChangeEvery (on average), specs every SpecEditEvery, and the
// flapping bridge off the network FlapFor every FlapEvery. It returns once
// the bridge is back online.
func (s *soak) makeMischief(ctx context.Context, m *mischief, rng *rand.Rand) {
	var wg sync.WaitGroup
	// Each loop has its own generator: rand.Rand is not safe for
	// concurrent use.
	seeds := [3]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64()}
	wg.Add(3)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(seeds[0], 1))
		every(ctx, r, s.opts.ChangeEvery, func() {
			if r.IntN(2) == 0 {
				s.changeBulb(m, r)
			} else {
				s.changeTable(ctx, m, r)
			}
		})
	}()
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(seeds[1], 2))
		every(ctx, r, s.opts.SpecEditEvery, func() { s.editSpec(ctx, m, r) })
	}()
	go func() {
		defer wg.Done()
		s.flapBridge(ctx, m, time.Now())
	}()
	wg.Wait()
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
	l := s.lights[r.IntN(len(s.lights))]
	sim := s.bulbs[l.Spec.Name]
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
	if r.IntN(2) == 0 {
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

// flapBridge takes the flapping bridge off the network FlapFor at the start
// of every FlapEvery, alternating a refused connection (unplugged) with a
// hanging one (unreachable network), and leaves it online when ctx ends.
func (s *soak) flapBridge(ctx context.Context, m *mischief, start time.Time) {
	modes := []huesim.OfflineMode{huesim.Refuse, huesim.Hang}
	for i := 0; ; i++ {
		// The first flap comes after a quarter period, the bridge's lights
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
		m.mu.Lock()
		m.offline = true
		m.flaps = append(m.flaps, flap{Start: time.Since(start).Round(time.Second).String(), For: s.opts.FlapFor.String(), Mode: string(mode)})
		m.counts[faultFlap]++
		m.mu.Unlock()
		s.flap.Offline(mode)
		select {
		case <-ctx.Done():
		case <-time.After(s.opts.FlapFor):
		}
		_ = s.flap.Online()
		m.mu.Lock()
		m.offline = false
		m.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
	}
}

// formatCounts lists counts as "kind 3, other 1", sorted by kind.
func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "nothing yet"
	}
	return strings.Join(parts, ", ")
}
