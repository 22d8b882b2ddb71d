package bench

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/providers"
)

// Figure 9 (issue 11): lights of every bulb model, with specs the bulb can
// show and specs beyond it, settle with at most one command each and are
// sent nothing in steady state. A third-party bulb that does not report its
// colour-temperature range, asked for one beyond it, is measured apart: the
// stall breaker stops it. A world of its own: the API server, one
// simulated bridge with a bulb of every model, the operator.

const (
	bridgeModels = "models"
	modelsNS     = "bench-models"
	// stallModel hides its range: Tether cannot project its spec, and
	// only the stall breaker stops a ct beyond it.
	stallModel = "GL-C-006P"
	// stallLimit is the commands a stalled light may take: the first,
	// which changes the bulb, and the stall breaker's three that do not.
	stallLimit = 4
)

// modelSpec is one spec kind for one model.
type modelSpec struct {
	kind string // "in" or "out" of the bulb's reach
	set  func(*huev1alpha1.HueLightSpec)
}

// modelSpecs are, per model, a spec it can show and one beyond it: a colour
// outside its gamut, a colour temperature beyond its range, a colour on a
// bulb without one, a brightness on a plug.
var modelSpecs = map[string][2]modelSpec{
	"LCT015":   {{"in", withXY(0.3, 0.3)}, {"out", withXY(0.8, 0.2)}},
	"LCT001":   {{"in", withCT(300)}, {"out", withXY(0.17, 0.7)}},
	"LCA001":   {{"in", withXY(0.3, 0.3)}, {"out", withXY(0.8, 0.2)}},
	"LCX004":   {{"in", withXY(0.3, 0.3)}, {"out", withXY(0.8, 0.2)}},
	"LLC010":   {{"in", withXY(0.4, 0.3)}, {"out", withCT(300)}},
	"LTW001":   {{"in", withCT(300)}, {"out", withCT(500)}},
	"LWB010":   {{"in", nil}, {"out", withXY(0.3, 0.3)}},
	"LOM001":   {{"in", func(s *huev1alpha1.HueLightSpec) { s.Brightness = nil }}, {"out", nil}},
	stallModel: {{"in", withCT(300)}, {"out", withCT(500)}},
}

// ModelSpec is a HueLight spec for one bulb model: one the bulb can show
// (Kind "in") or one beyond it ("out"). Set nil leaves newLight's spec.
type ModelSpec struct {
	Model, Kind string
	Set         func(*huev1alpha1.HueLightSpec)
}

// ModelSpecs are figure 9's specs, every simulated model in and out of its
// reach, by model then kind; the soak (internal/soak) holds them too.
func ModelSpecs() []ModelSpec {
	var out []ModelSpec
	for _, model := range huesim.ModelIDs() {
		for _, spec := range modelSpecs[model] {
			out = append(out, ModelSpec{Model: model, Kind: spec.kind, Set: spec.set})
		}
	}
	return out
}

// StallModel is the model whose spec beyond its reach ends Stalled, not
// Ready: it hides its range, so only the stall breaker stops the command.
const StallModel = stallModel

func withXY(x, y float64) func(*huev1alpha1.HueLightSpec) {
	return func(s *huev1alpha1.HueLightSpec) {
		s.Color = &huev1alpha1.Color{XY: []huev1alpha1.Chromaticity{huev1alpha1.Chromaticity(x), huev1alpha1.Chromaticity(y)}}
	}
}

func withCT(v int32) func(*huev1alpha1.HueLightSpec) {
	return func(s *huev1alpha1.HueLightSpec) { s.Color = &huev1alpha1.Color{ColorTemperature: ptr.To(v)} }
}

// modelBulb is one bulb of the models bridge and its HueLight.
type modelBulb struct {
	name, model, kind string
	id                string // light id on the bridge
	light             *huev1alpha1.HueLight
}

// modelBulbs lays out sc.ModelLights bulbs per model and spec kind, in the
// simulator's light-id order.
func modelBulbs(sc Scale) []modelBulb {
	var out []modelBulb
	for _, model := range huesim.ModelIDs() {
		for _, spec := range modelSpecs[model] {
			for i := range sc.ModelLights {
				name := fmt.Sprintf("%s-%s-%d", strings.ToLower(model), spec.kind, i+1)
				n := len(out)
				l := newLight(modelsNS, name, bridgeModels, bridgeModels, name, int32(1+n%254))
				// A transition of its own: no two lights want one state,
				// so every command is a light command, counted per light.
				l.Spec.TransitionTime = &metav1.Duration{Duration: time.Duration(n+1) * 100 * time.Millisecond}
				if spec.set != nil {
					spec.set(&l.Spec)
				}
				out = append(out, modelBulb{name: name, model: model, kind: spec.kind, id: strconv.Itoa(n + 1), light: l})
			}
		}
	}
	return out
}

// modelBridgeOptions are the simulator options of the models bridge.
func modelBridgeOptions(sc Scale) huesim.Options {
	opts := huesim.Options{Models: map[string]string{}, Usernames: []string{benchUser}}
	for _, b := range modelBulbs(sc) {
		opts.Lights = append(opts.Lights, b.name)
		opts.Models[b.name] = b.model
	}
	return opts
}

func (b modelBulb) stalls() bool { return b.model == stallModel && b.kind == "out" }

func init() {
	registerAlone(9, "Settled lights of every bulb model", true, (*run).models)
}

func (r *run) models(ctx context.Context, bin string) error {
	sim, err := r.startModelsWorld(ctx, bin)
	if err != nil {
		return err
	}
	bulbs := modelBulbs(r.sc)
	objs := make([]client.Object, len(bulbs))
	for i, b := range bulbs {
		objs[i] = b.light
	}
	sim.ResetCommands()
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	if err := r.waitSettled(ctx, bulbs, 3*time.Minute); err != nil {
		return err
	}
	settledIn := time.Since(start)
	settling := lightCommandsByID(sim.Commands())
	settledAt := len(sim.Commands())
	if err := r.sleep(ctx, r.sc.SteadyWindow); err != nil {
		return err
	}
	steady := lightCommandsByID(sim.Commands()[settledAt:])
	groups := 0
	for _, c := range sim.Commands() {
		if strings.HasPrefix(c.Path, "/groups") {
			groups++
		}
	}

	worst, worstName, total, steadyTotal, stall := 0, "", 0, 0, 0
	perModel := map[string]int{}
	for _, b := range bulbs {
		n := settling[b.id]
		steadyTotal += steady[b.id]
		perModel[b.model] += steady[b.id]
		if b.stalls() {
			stall = max(stall, n+steady[b.id])
			continue
		}
		total += n
		if n > worst {
			worst, worstName = n, b.name
		}
	}
	f := r.fig(9)
	f.add("settle_max", "commands to one light until it settled (every model, in-range and out-of-range specs)", "commands", float64(worst), &goal{Op: "<=", Limit: 1})
	f.why("%s took %d", worstName, worst)
	f.add("steady", fmt.Sprintf("commands to settled lights in %s of steady state", r.sc.SteadyWindow), "commands", float64(steadyTotal), &goal{Op: "<=", Limit: 0, Text: "0"})
	f.why("by model: %s", FormatCounts(perModel))
	f.add("stall", fmt.Sprintf("third-party bulb (%s) hiding its range, ct beyond it: commands in all, until the stall breaker stopped them", stallModel),
		"commands", float64(stall), &goal{Op: "<=", Limit: stallLimit, Text: fmt.Sprintf("<= %d (1 + the stall breaker's 3)", stallLimit)})
	f.add("settle_total", "commands to settle all of them (but the stalled)", "commands", float64(total), nil)
	f.add("settle_time", "time until all settled", "s", secs(settledIn), nil)
	f.add("group_commands", "group commands", "commands", float64(groups), nil)
	models := make([]string, 0, len(modelSpecs))
	for m := range modelSpecs {
		models = append(models, m)
	}
	sort.Strings(models)
	f.note("%d HueLights on one bridge: %d per model (%s) with a spec the bulb can show and %d with one beyond it "+
		"(a colour outside its gamut, a colour temperature beyond its range, a colour on a bulb without one, a brightness on a plug). "+
		"Settled means Ready (Available, or Limited with a note), or Stalled for the %s bulb asked for ct beyond its unreported range. "+
		"Each light wants a state of its own, so every command is a light command; the bridge is read every %s.",
		len(bulbs), r.sc.ModelLights, strings.Join(models, ", "), r.sc.ModelLights, stallModel, r.sc.HuePoll)
	return nil
}

// startModelsWorld starts the API server, the models bridge with its
// HueBridge, and the operator.
func (r *run) startModelsWorld(ctx context.Context, bin string) (*huesim.Server, error) {
	kubeconfig, err := r.startControlPlane(r.runDir)
	if err != nil {
		return nil, err
	}
	sim, err := huesim.Start(modelBridgeOptions(r.sc), "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r.onStop(sim.Close)
	for _, ns := range []string{secretsNS, modelsNS} {
		if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: bridgeModels + "-credentials"},
		Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(benchUser), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())},
	}
	if err := r.c.Create(ctx, secret); err != nil {
		return nil, err
	}
	if err := r.c.Create(ctx, &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: bridgeModels},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.Addr(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name},
			// Commands are counted per light: no temporary scene.
			TemporaryScenes: ptr.To(false)},
	}); err != nil {
		return nil, err
	}
	if err := r.startHueOperator(ctx, bin, kubeconfig); err != nil {
		return nil, err
	}
	return sim, nil
}

// waitSettled waits until every bulb's HueLight is Ready for its
// generation, or Stalled for the one that stalls.
func (r *run) waitSettled(ctx context.Context, bulbs []modelBulb, timeout time.Duration) error {
	want := map[string]modelBulb{}
	for _, b := range bulbs {
		want[b.name] = b
	}
	left := len(want)
	err := WaitUntil(ctx, timeout, 200*time.Millisecond, func() (bool, error) {
		var list huev1alpha1.HueLightList
		if err := r.cache.List(ctx, &list, client.InNamespace(modelsNS)); err != nil {
			return false, err
		}
		left = len(want)
		for i := range list.Items {
			l := &list.Items[i]
			b, ok := want[l.Name]
			if !ok {
				continue
			}
			kind, status := commonv1alpha1.Ready, metav1.ConditionTrue
			if b.stalls() {
				kind, status = commonv1alpha1.Synced, metav1.ConditionFalse
			}
			c := meta.FindStatusCondition(l.Status.Conditions, kind)
			if c != nil && c.Status == status && c.ObservedGeneration == l.Generation && (!b.stalls() || c.Reason == providers.ReasonStalled) {
				left--
			}
		}
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d model lights not settled: %w", left, len(want), err)
	}
	return nil
}

// lightCommandsByID counts light commands per light id.
func lightCommandsByID(cmds []huesim.Command) map[string]int {
	out := map[string]int{}
	for _, c := range cmds {
		if id, ok := strings.CutPrefix(c.Path, "/lights/"); ok {
			out[strings.TrimSuffix(id, "/state")]++
		}
	}
	return out
}
