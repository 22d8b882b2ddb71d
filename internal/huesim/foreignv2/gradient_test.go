package foreignv2

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	openhue "github.com/openhue/openhue-go"
)

// TestOpenhueGoSetsAGradient: openhue-go's generated types decode the
// simulator's gradient object on the LCX004 (points_capable 5, its
// mode_values, mode interpolated_palette, no points yet) and find none on
// a light without one (LCT015). Its generated client sets three points in
// random_pixelated, and openhue-go reads back three points in that mode;
// without a mode the bridge lays two points out as interpolated_palette;
// the bridge answers 400 to one point, to six, and to a gradient on the
// LCT015. openhue-go's own LightPut.Gradient is answered 400 too: its API
// description makes a point a bare {"xy": ...} where a bridge has
// {"color": {"xy": ...}} (aiohue's GradientPoint), so the points are sent
// as raw JSON through its generated client, and the colours it decodes are
// empty (only their number is checked). This proves the feature's names
// (gradient, points, points_capable, mode, mode_values) and the rules the
// simulator keeps are those of Signify's description as openhue
// transcribes it; it does not prove the point's shape, which rests on
// aiohue and the Bridge Pro dump, nor how a real strip shows the points.
func TestOpenhueGoSetsAGradient(t *testing.T) {
	sim := startBridge(t)
	home, err := openhue.NewHome(sim.TLSAddr(), user)
	if err != nil {
		t.Fatal(err)
	}
	strip, without := sim.LightIDV2(v1ID(t, sim, "LCX004")), sim.LightIDV2(v1ID(t, sim, "LCT015"))
	gradientOf := func(id string) *openhue.LightGet {
		t.Helper()
		lights, err := home.GetLights()
		if err != nil {
			t.Fatal(err)
		}
		l := lights[id]
		return &l
	}
	gr := gradientOf(strip).Gradient
	if gr == nil || gr.PointsCapable == nil || *gr.PointsCapable != 5 || gr.ModeValues == nil ||
		!slices.Contains(*gr.ModeValues, openhue.RandomPixelated) || gr.Mode == nil || *gr.Mode != openhue.InterpolatedPalette ||
		gr.Points == nil || len(*gr.Points) != 0 {
		t.Fatalf("LCX004's gradient as openhue-go decodes it: %+v", gr)
	}
	if gr := gradientOf(without).Gradient; gr != nil {
		t.Fatalf("LCT015 has a gradient object: %+v", gr)
	}

	c, err := openhue.NewClientWithResponses(sim.TLSURL(), openhue.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("hue-application-key", user)
		return nil
	}), openhue.WithHTTPClient(insecureClient()))
	if err != nil {
		t.Fatal(err)
	}
	put := func(id string, n int, mode string) int {
		t.Helper()
		points := make([]string, n)
		for i := range points {
			points[i] = fmt.Sprintf(`{"color":{"xy":{"x":%g,"y":0.3}}}`, 0.2+0.1*float64(i%4))
		}
		body := `{"on":{"on":true},"gradient":{"points":[` + strings.Join(points, ",") + `]` + mode + `}}`
		res, err := c.UpdateLightWithBodyWithResponse(context.Background(), id, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK && !strings.Contains(string(res.Body), "gradient") {
			t.Errorf("%d points: %d %s, a refusal that does not name gradient", n, res.StatusCode(), res.Body)
		}
		return res.StatusCode()
	}

	if got := put(strip, 3, `,"mode":"random_pixelated"`); got != http.StatusOK {
		t.Fatalf("three points in random_pixelated: %d", got)
	}
	if gr := gradientOf(strip).Gradient; gr == nil || gr.Points == nil || len(*gr.Points) != 3 || *gr.Mode != openhue.RandomPixelated {
		t.Fatalf("openhue-go reads back %+v, want three points in random_pixelated", gr)
	}
	if got := put(strip, 2, ""); got != http.StatusOK {
		t.Fatalf("two points without a mode: %d", got)
	}
	if gr := gradientOf(strip).Gradient; *gr.Mode != openhue.InterpolatedPalette || len(*gr.Points) != 2 {
		t.Fatalf("without a mode the bridge shows %+v, want two points in interpolated_palette", gr)
	}
	for _, tc := range []struct {
		name string
		id   string
		n    int
	}{{"one point", strip, 1}, {"six points", strip, 6}, {"a light without a gradient", without, 2}} {
		if got := put(tc.id, tc.n, ""); got != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", tc.name, got)
		}
	}

	x, y, on := float32(0.3), float32(0.3), true
	flat := []openhue.Color{{Xy: &openhue.GamutPosition{X: &x, Y: &y}}, {Xy: &openhue.GamutPosition{X: &x, Y: &y}}}
	res, err := c.UpdateLightWithResponse(context.Background(), strip, openhue.LightPut{On: &openhue.On{On: &on},
		Gradient: &openhue.Gradient{Points: &flat}})
	if err != nil || res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("openhue-go's own gradient shape: %v %d %s, want 400", err, res.StatusCode(), res.Body)
	}
	if gr := gradientOf(strip).Gradient; len(*gr.Points) != 2 {
		t.Errorf("a refused gradient changed the strip: %d points", len(*gr.Points))
	}
}
