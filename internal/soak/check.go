package soak

import (
	"context"
	"fmt"
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
	Lights          int      `json:"lights"`
	Tables          int      `json:"tables"`
}

func (c check) ok() bool {
	return len(c.NotReady) == 0 && len(c.LightMismatches) == 0 && len(c.TableMismatches) == 0
}

// problems counts what is wrong (an object both not Ready and differing
// counts twice).
func (c check) problems() int {
	return len(c.NotReady) + len(c.LightMismatches) + len(c.TableMismatches)
}

func (c check) summary() string {
	return fmt.Sprintf("%d not Ready, %d of %d bulbs and %d of %d tables differ from their spec",
		len(c.NotReady), len(c.LightMismatches), c.Lights, len(c.TableMismatches), c.Tables)
}

// check reads every object from the API server (not the cache) and compares
// it with the simulator and DynamoDB Local.
func (s *soak) check(ctx context.Context) (check, error) {
	var c check
	var err error
	if c.NotReady, err = s.notReadyKeys(ctx, s.w.Client); err != nil {
		return c, err
	}
	var lights huev1alpha1.HueLightList
	if err := s.w.Client.List(ctx, &lights, client.InNamespace(lightsNS)); err != nil {
		return c, err
	}
	c.Lights = len(lights.Items)
	for i := range lights.Items {
		l := &lights.Items[i]
		sim := s.bulbs[l.Spec.Name]
		if sim == nil {
			c.LightMismatches = append(c.LightMismatches, l.Name+": no such bulb")
			continue
		}
		bulb, _ := sim.LightByName(l.Spec.Name)
		if diff := lightDiff(l.Spec, bulb); diff != "" {
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

// lightDiff says how a bulb differs from a HueLight's spec, independently
// of the operator's own comparison: on/off always; brightness and colour
// only for a light that should be on (an off bulb keeps them hidden).
func lightDiff(spec huev1alpha1.HueLightSpec, bulb huesim.Light) string {
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
			if !bulb.ShowsHueSat(int(*c.Hue), int(*c.Saturation)) {
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
