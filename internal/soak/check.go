package soak

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

// check is the end state: objects not Ready, and bulbs and tables that do
// not match their spec, each with a few examples.
type check struct {
	NotReady        []string `json:"notReady"`
	LightMismatches []string `json:"lightMismatches"`
	TableMismatches []string `json:"tableMismatches"`
	// TempScenes are the temporary scenes on the bridges.
	TempScenes []string `json:"temporaryScenes"`
	Objects    int      `json:"objects"`
	Lights     int      `json:"lights"`
	Tables     int      `json:"tables"`
}

func (c check) ok() bool {
	return len(c.NotReady) == 0 && len(c.LightMismatches) == 0 && len(c.TableMismatches) == 0 && len(c.TempScenes) == 0
}

// problems counts what is wrong (an object both not Ready and differing
// counts twice).
func (c check) problems() int {
	return len(c.NotReady) + len(c.LightMismatches) + len(c.TableMismatches) + len(c.TempScenes)
}

func (c check) summary() string {
	return fmt.Sprintf("%d of %d objects not Ready, %d of %d bulbs and %d of %d tables differ from their spec, %d temporary scenes on the bridges",
		len(c.NotReady), c.Objects, len(c.LightMismatches), c.Lights, len(c.TableMismatches), c.Tables, len(c.TempScenes))
}

// tempScenePrefix is how the operator names its temporary scenes
// (providers/hue).
const tempScenePrefix = "tether-temporary-"

// check reads every object from the API server (not the cache) and compares
// it with the simulator and DynamoDB Local.
func (s *soak) check(ctx context.Context) (check, error) {
	c := check{Objects: len(s.objects())}
	var err error
	if c.NotReady, err = s.notReadyKeys(ctx, s.w.Client); err != nil {
		return c, err
	}
	for _, b := range s.bridges {
		for _, sc := range b.sim.Scenes() {
			if strings.HasPrefix(sc.Name, tempScenePrefix) {
				c.TempScenes = append(c.TempScenes, b.name+": "+sc.Name)
			}
		}
	}
	// The bulbs of the HueLights the mischief changes, against their spec;
	// the model lights' bulbs cannot all show theirs (their verdict is the
	// commands they were sent).
	regular := map[string]bool{}
	for _, l := range s.lights {
		regular[l.Name] = true
	}
	var lights huev1alpha1.HueLightList
	if err := s.w.Client.List(ctx, &lights, client.InNamespace(lightsNS)); err != nil {
		return c, err
	}
	for i := range lights.Items {
		l := &lights.Items[i]
		if !regular[l.Name] {
			continue
		}
		c.Lights++
		b := s.bulbs[l.Spec.Name]
		if b == nil {
			c.LightMismatches = append(c.LightMismatches, l.Name+": no such bulb")
			continue
		}
		bulb, _ := b.sim.LightByName(l.Spec.Name)
		tolerance := 0.0
		if b.v2 {
			tolerance = v2ColourTolerance
		}
		if diff := lightDiff(l.Spec, bulb, tolerance); diff != "" {
			c.LightMismatches = append(c.LightMismatches, l.Name+": "+diff)
		}
	}
	var tables awsv1alpha1.DynamoDBTableList
	if err := s.w.Client.List(ctx, &tables, client.InNamespace(tablesNS)); err != nil {
		return c, err
	}
	c.Tables = len(tables.Items)
	for i := range tables.Items {
		t := &tables.Items[i]
		out, err := s.w.Raw.DescribeTable(ctx, &awsdynamodb.DescribeTableInput{TableName: aws.String(t.Name)})
		if err != nil {
			c.TableMismatches = append(c.TableMismatches, t.Name+": "+err.Error())
			continue
		}
		if diff := tableDiff(t.Spec, out.Table); diff != "" {
			c.TableMismatches = append(c.TableMismatches, t.Name+": "+diff)
		}
	}
	return c, nil
}

// v2ColourTolerance is how far a hue-and-saturation colour's xy may be,
// on a CLIP v2 bridge, from the xy a v1 bridge makes of it: CLIP v2 takes
// xy only, which Tether works out itself; the two may differ in the fourth
// decimal (a colour a person could tell apart is about 1e-2 away).
const v2ColourTolerance = 1e-3

// lightDiff says how a bulb differs from a HueLight's spec, independently
// of the operator's own comparison: on/off always; brightness and colour
// only for a light that should be on (an off bulb keeps them hidden). A
// hue and saturation must show as the xy a v1 bridge makes of them, within
// tolerance.
func lightDiff(spec huev1alpha1.HueLightSpec, bulb huesim.Light, tolerance float64) string {
	st := bulb.State
	var d []string
	wantOn := spec.On == nil || *spec.On
	if st.On != wantOn {
		d = append(d, fmt.Sprintf("on %t, want %t", st.On, wantOn))
	}
	if !wantOn {
		return strings.Join(d, "; ")
	}
	if spec.Brightness != nil && int32(st.Bri) != *spec.Brightness {
		d = append(d, fmt.Sprintf("brightness %d, want %d", st.Bri, *spec.Brightness))
	}
	if c := spec.Color; c != nil {
		switch {
		case c.ColorTemperature != nil:
			if st.ColorMode != "ct" || int32(st.CT) != *c.ColorTemperature {
				d = append(d, fmt.Sprintf("colour %s ct %d, want ct %d", st.ColorMode, st.CT, *c.ColorTemperature))
			}
		case c.Hue != nil && c.Saturation != nil:
			// As the bulb shows them: the hue/sat reported back come from its xy.
			if !showsHueSat(bulb, int(*c.Hue), int(*c.Saturation), tolerance) {
				d = append(d, fmt.Sprintf("colour %s %d/%d, want hs %d/%d", st.ColorMode, st.Hue, st.Sat, *c.Hue, *c.Saturation))
			}
		}
	}
	return strings.Join(d, "; ")
}

// tableDiff says how a table at DynamoDB Local differs from its spec in
// billing mode and capacity (table and indexes). DynamoDB Local keeps old
// capacities on PAY_PER_REQUEST tables, so they are only compared when
// PROVISIONED.
func tableDiff(spec awsv1alpha1.DynamoDBTableSpec, got *ddbtypes.TableDescription) string {
	var d []string
	want := spec.BillingMode
	if want == "" {
		want = awsv1alpha1.BillingModePayPerRequest
	}
	if b := billingOf(got); b != want {
		d = append(d, fmt.Sprintf("billing %s, want %s", b, want))
	}
	if want == awsv1alpha1.BillingModeProvisioned {
		if diff := throughputDiff(spec.ProvisionedThroughput, got.ProvisionedThroughput); diff != "" {
			d = append(d, "table "+diff)
		}
		for _, g := range spec.GlobalSecondaryIndexes {
			var gotPT *ddbtypes.ProvisionedThroughputDescription
			found := false
			for _, ix := range got.GlobalSecondaryIndexes {
				if aws.ToString(ix.IndexName) == g.IndexName {
					gotPT, found = ix.ProvisionedThroughput, true
				}
			}
			if !found {
				d = append(d, "index "+g.IndexName+" missing")
			} else if diff := throughputDiff(g.ProvisionedThroughput, gotPT); diff != "" {
				d = append(d, "index "+g.IndexName+" "+diff)
			}
		}
	}
	if len(got.GlobalSecondaryIndexes) != len(spec.GlobalSecondaryIndexes) {
		d = append(d, fmt.Sprintf("%d indexes, want %d", len(got.GlobalSecondaryIndexes), len(spec.GlobalSecondaryIndexes)))
	}
	return strings.Join(d, "; ")
}

func throughputDiff(want *awsv1alpha1.ProvisionedThroughput, got *ddbtypes.ProvisionedThroughputDescription) string {
	if want == nil {
		return ""
	}
	var r, w int64
	if got != nil {
		r, w = aws.ToInt64(got.ReadCapacityUnits), aws.ToInt64(got.WriteCapacityUnits)
	}
	if r != want.ReadCapacityUnits || w != want.WriteCapacityUnits {
		return fmt.Sprintf("capacity %d/%d, want %d/%d", r, w, want.ReadCapacityUnits, want.WriteCapacityUnits)
	}
	return ""
}

// resent counts, per model light, the light commands its bridge logged
// since it settled: for a Ready one each is a command resent for nothing.
func (s *soak) resent() map[*modelLight]int {
	out := map[*modelLight]int{}
	for _, m := range s.models {
		out[m] = 0
		bulb, ok := m.bridge.sim.LightByName(m.light.Spec.Name)
		if !ok {
			continue
		}
		cmds := m.bridge.sim.Commands()
		for _, cmd := range cmds[min(s.settledAt[m.bridge.name], len(cmds)):] {
			if cmd.ForLight(bulb.ID) {
				out[m]++
			}
		}
	}
	return out
}

// showsHueSat is huesim's Light.ShowsHueSat within tolerance of the xy.
func showsHueSat(l huesim.Light, hue, sat int, tolerance float64) bool {
	if tolerance == 0 {
		return l.ShowsHueSat(hue, sat)
	}
	st, want := l.State, huesim.HueSatXY(l.Model, hue, sat)
	return (st.ColorMode == "hs" || st.ColorMode == "xy") && math.Abs(st.XY[0]-want[0]) <= tolerance && math.Abs(st.XY[1]-want[1]) <= tolerance
}
