package soak

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"k8s.io/utils/ptr"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

func TestLightDiff(t *testing.T) {
	ct := huev1alpha1.HueLightSpec{On: ptr.To(true), Brightness: ptr.To(int32(120)), Color: &huev1alpha1.Color{ColorTemperature: ptr.To(int32(300))}}
	hs := huev1alpha1.HueLightSpec{Brightness: ptr.To(int32(5)), Color: &huev1alpha1.Color{Hue: ptr.To(int32(1000)), Saturation: ptr.To(int32(200))}}
	off := huev1alpha1.HueLightSpec{On: ptr.To(false), Brightness: ptr.To(int32(200))}
	for _, tc := range []struct {
		name      string
		spec      huev1alpha1.HueLightSpec
		st        huesim.LightState
		tolerance float64
		want      string // "" when matching, else a part of the difference
	}{
		{"ct matches", ct, huesim.LightState{On: true, Bri: 120, CT: 300, ColorMode: "ct"}, 0, ""},
		{"dimmed", ct, huesim.LightState{On: true, Bri: 10, CT: 300, ColorMode: "ct"}, 0, "brightness 10, want 120"},
		{"switched off", ct, huesim.LightState{On: false, Bri: 120, CT: 300, ColorMode: "ct"}, 0, "on false, want true"},
		{"ct value in hs mode", ct, huesim.LightState{On: true, Bri: 120, CT: 300, ColorMode: "hs"}, 0, "want ct 300"},
		// Reported back as 998/201 (derived from the xy the bulb took, as a
		// bridge does): the colour asked for.
		{"hs matches, on by default", hs, huesim.LightState{On: true, Bri: 5, Hue: 998, Sat: 201, XY: huesim.HueSatXY(huesim.DefaultModel, 1000, 200), ColorMode: "hs"}, 0, ""},
		{"recoloured", hs, huesim.LightState{On: true, Bri: 5, Hue: 1000, Sat: 10, XY: huesim.HueSatXY(huesim.DefaultModel, 1000, 10), ColorMode: "hs"}, 0, "want hs 1000/200"},
		{"hs as ct", hs, huesim.LightState{On: true, Bri: 5, XY: huesim.HueSatXY(huesim.DefaultModel, 1000, 200), ColorMode: "ct"}, 0, "want hs 1000/200"},
		{"off ignores brightness", off, huesim.LightState{On: false, Bri: 3}, 0, ""},
		{"should be off", off, huesim.LightState{On: true, Bri: 200}, 0, "on true, want false"},
		// CLIP v2: xy worked out by Tether, a hair from the bridge's own.
		{"hs within the v2 tolerance", hs, huesim.LightState{On: true, Bri: 5, XY: nudged(huesim.HueSatXY(huesim.DefaultModel, 1000, 200), 4e-4), ColorMode: "xy"}, v2ColourTolerance, ""},
		{"hs beyond the v2 tolerance", hs, huesim.LightState{On: true, Bri: 5, XY: nudged(huesim.HueSatXY(huesim.DefaultModel, 1000, 200), 5e-3), ColorMode: "xy"}, v2ColourTolerance, "want hs 1000/200"},
	} {
		got := lightDiff(tc.spec, huesim.Light{Model: huesim.DefaultModel, State: tc.st}, tc.tolerance)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: diff %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTableDiff(t *testing.T) {
	prov := newTable(tableProvisionedGSI).Spec
	ppr := newTable(tablePayPerRequest).Spec
	pt := func(r, w int64) *ddbtypes.ProvisionedThroughputDescription {
		return &ddbtypes.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	gsi := func(r, w int64) []ddbtypes.GlobalSecondaryIndexDescription {
		return []ddbtypes.GlobalSecondaryIndexDescription{{IndexName: aws.String("by-gk"), ProvisionedThroughput: pt(r, w)}}
	}
	onDemand := &ddbtypes.BillingModeSummary{BillingMode: ddbtypes.BillingModePayPerRequest}
	for _, tc := range []struct {
		name string
		spec awsv1alpha1.DynamoDBTableSpec
		got  ddbtypes.TableDescription
		want string
	}{
		{"provisioned matches (no billing summary)", prov, ddbtypes.TableDescription{ProvisionedThroughput: pt(5, 5), GlobalSecondaryIndexes: gsi(3, 3)}, ""},
		{"table capacity changed", prov, ddbtypes.TableDescription{ProvisionedThroughput: pt(30, 5), GlobalSecondaryIndexes: gsi(3, 3)}, "table capacity 30/5, want 5/5"},
		{"index capacity changed", prov, ddbtypes.TableDescription{ProvisionedThroughput: pt(5, 5), GlobalSecondaryIndexes: gsi(3, 9)}, "index by-gk capacity 3/9"},
		{"index gone", prov, ddbtypes.TableDescription{ProvisionedThroughput: pt(5, 5)}, "index by-gk missing"},
		{"switched to on demand", prov, ddbtypes.TableDescription{BillingModeSummary: onDemand, ProvisionedThroughput: pt(5, 5), GlobalSecondaryIndexes: gsi(3, 3)}, "billing PAY_PER_REQUEST, want PROVISIONED"},
		{"on demand keeps old capacities", ppr, ddbtypes.TableDescription{BillingModeSummary: onDemand, ProvisionedThroughput: pt(7, 7)}, ""},
		{"switched to provisioned", ppr, ddbtypes.TableDescription{ProvisionedThroughput: pt(7, 7)}, "billing PROVISIONED, want PAY_PER_REQUEST"},
	} {
		got := tableDiff(tc.spec, &tc.got)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: diff %q, want %q", tc.name, got, tc.want)
		}
	}
}

func nudged(xy [2]float64, by float64) [2]float64 { return [2]float64{xy[0] + by, xy[1] - by} }
