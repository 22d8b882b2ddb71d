package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

// Figure 18 (issue 41 item 2): a Hue Bridge Pro full of lights. The Pro
// holds up to 150 lights (huesim.ProMaxLights), three times what figure 2
// and figure 10 put on one bridge, with the same budgets: about 10 light
// commands a second and three requests at once (a fourth is answered 429).
// A world of its own: the API server, three simulated Pros
// (huesim.Options.Pro: CLIP v2 over HTTPS with its event stream; the third
// without v1) of ProLights bulbs each, the operator with its defaults. Figures 2 and 10
// keep their sizes, so their numbers stay comparable across runs; this
// figure is their shapes at the Pro's size.
func init() {
	registerAlone(18, "A Hue Bridge Pro with 150 lights: convergence and temporary scenes", true, (*run).pro)
}

const (
	proNS = "bench-pro"
	// proLightByLight is the Pro of figure 2's shape: temporary scenes off,
	// so that distinct states go light by light at the bridge's budget.
	proLightByLight = "pro-lights"
	// proScenes is the Pro of figure 10's shape: the operator's defaults.
	proScenes = "pro-scenes"
	// proNoV1 is proScenes on a firmware without the v1 API (issue 41
	// item 1): a temporary scene is a CLIP v2 scene in a temporary zone.
	proNoV1 = "pro-no-v1"
)

func (r *run) pro(ctx context.Context, bin string) error {
	sims, err := r.startProWorld(ctx, bin)
	if err != nil {
		return err
	}
	n := r.sc.ProLights
	f := r.fig(18)
	if err := r.proConvergence(ctx, f, sims[proLightByLight], n); err != nil {
		return err
	}
	for _, m := range []proScenesMeasure{
		{bridge: proScenes, name: "measure 2", where: "temporary scenes on", counted: "scene stores, recalls, deletes and light commands", left: "temporary scenes"},
		{bridge: proNoV1, key: "no_v1_", name: "measure 3", where: "temporary scenes on, no v1", counted: "scene stores, recalls, deletes and light commands, zone writes",
			left: "temporary scenes and zones", noV1: true},
	} {
		if err := r.proTemporaryScenes(ctx, f, sims[m.bridge], m, n); err != nil {
			return err
		}
	}
	f.note("Three simulated Hue Bridge Pros (BSB003: CLIP v2 over HTTPS only, event stream, 429 past three requests at once, the newer and unknown resource types of docs/hue-bridge.md) of %d bulbs each, operator defaults (--hue-poll-interval=%s). "+
		"Measure 1 is figure 2's first two at the Pro's size, on a HueBridge with temporary scenes off: each HueLight a brightness of its own (light by light), then all set to one state. "+
		"Measure 2 is figure 10's first at the Pro's size, with temporary scenes on: each HueLight a state of its own, created at once. "+
		"Measure 3 is measure 2 on a third Pro whose firmware answers 404 on the v1 paths: each temporary scene is a CLIP v2 scene in a temporary zone of its lights (zone, scene, recall, scene deleted; the zones deleted once the burst's scenes are recalled). "+
		"429s are counted by the bridge (refused requests past three at once, or past its budget).", n, r.sc.HuePoll)
	return nil
}

// proConvergence is figure 2's shape on a Pro: n HueLights with distinct
// brightnesses created at once, then all patched to one state.
func (r *run) proConvergence(ctx context.Context, f *figureResult, sim *huesim.Server, n int) error {
	lights := make([]*huev1alpha1.HueLight, n)
	for i := range lights {
		bulb := fmt.Sprintf("%s-%d", proLightByLight, i+1)
		lights[i] = newLight(proNS, bulb, proLightByLight, proLightByLight, bulb, int32(1+i%254))
	}
	objs := objects(lights)
	floor := time.Duration(float64(n) / bridgeCommandsPerSecond * float64(time.Second))
	sim.ResetCommands()
	refusedBefore := sim.TooManyRequests()
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	last, err := r.waitReady(ctx, false, wantAll(objs), 3*floor+2*time.Minute, nil)
	if err != nil {
		return err
	}
	took := last.Sub(start)
	lightCmds := proLightCommands(sim.Commands())
	f.addFloored("ready", fmt.Sprintf("%d HueLights with distinct states, light by light: time to all Ready", n), "s", secs(took),
		bridgeFloor(n), convergeRatio)
	f.why("%d light commands", lightCmds)
	f.add("commands", "light commands sent", "commands", float64(lightCmds), nil)

	sim.ResetCommands()
	start = time.Now()
	w, err := r.patchAll(ctx, objs, `{"spec":{"brightness":50}}`)
	if err != nil {
		return err
	}
	if last, err = r.waitReady(ctx, false, w, 3*floor+2*time.Minute, nil); err != nil {
		return err
	}
	f.add("same_state", fmt.Sprintf("%d HueLights set to one state: time to all Ready", n), "s", secs(last.Sub(start)), nil)
	f.why("%d light commands, %d group commands", proLightCommands(sim.Commands()), proGroupCommands(sim.Commands()))
	f.add("too_many_requests", "requests the bridge refused with 429 (measure 1)", "requests", float64(sim.TooManyRequests()-refusedBefore), &goal{Op: "<=", Limit: 0})
	f.add("overloads", "overload errors from the bridge (measure 1)", "errors", float64(sim.Overloads()), &goal{Op: "<=", Limit: 0})
	return nil
}

// proScenesMeasure is one measure of figure 10's shape on a Pro: the
// bridge, the prefix of its rows' keys ("" for measure 2), and the words
// of its rows; noV1 adds the row of v1 requests a bridge without v1 got.
type proScenesMeasure struct {
	bridge, key, name, where, counted, left string
	noV1                                    bool
}

// proTemporaryScenes is figure 10's first measure on a Pro: n HueLights,
// each a state of its own, created at once, with temporary scenes on.
func (r *run) proTemporaryScenes(ctx context.Context, f *figureResult, sim *huesim.Server, m proScenesMeasure, n int) error {
	lights := make([]*huev1alpha1.HueLight, n)
	for i := range lights {
		bulb := fmt.Sprintf("%s-%d", m.bridge, i+1)
		lights[i] = newLight(proNS, bulb, m.bridge, m.bridge, bulb, int32(1+(i*5)%254))
	}
	objs := objects(lights)
	floor := time.Duration(float64(n) / bridgeCommandsPerSecond * float64(time.Second))
	sims := []*huesim.Server{sim}
	resetAll(sims)
	refusedBefore := sim.TooManyRequests()
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	last, err := r.waitReady(ctx, false, wantAll(objs), 3*floor+time.Minute, nil)
	if err != nil {
		return err
	}
	took, counts := last.Sub(start), countScenes(sims)
	if err := r.waitNoTempScenes(ctx, sims); err != nil {
		return err
	}
	f.add(m.key+"scenes_ready", fmt.Sprintf("%d HueLights with distinct states, %s: time to all Ready", n, m.where), "s", secs(took), nil)
	f.why("%s; light by light the bridge's floor is %.1f s", counts, floor.Seconds())
	f.add(m.key+"scenes_commands", "commands to that bridge ("+m.counted+")", "commands", float64(counts.total()), nil)
	f.add(m.key+"scenes_leftover", m.left+" left on the bridge once settled", "scenes", float64(leftoverScenes(sims)), &goal{Op: "<=", Limit: 0})
	f.add(m.key+"scenes_too_many_requests", "requests the bridge refused with 429 ("+m.name+")", "requests", float64(sim.TooManyRequests()-refusedBefore), &goal{Op: "<=", Limit: 0})
	f.add(m.key+"scenes_overloads", "overload errors from the bridge ("+m.name+")", "errors", float64(sim.Overloads()), &goal{Op: "<=", Limit: 0})
	if m.noV1 {
		f.add(m.key+"v1_requests", "v1 requests the bridge answered 404, past the one look that finds v1 gone ("+m.name+")", "requests", float64(v1Used(sim)), &goal{Op: "<=", Limit: 0})
	}
	return nil
}

// v1Used counts the v1 requests a bridge without v1 answered 404, past
// the one look at its groups that tells the operator v1 is gone (pairing
// and the public config are served).
func v1Used(sim *huesim.Server) int {
	n, looked := 0, false
	for _, q := range sim.V1Requests() {
		switch {
		case !q.Refused:
		case q.Method == "GET" && q.Path == "/api/{user}/groups" && !looked:
			looked = true
		default:
			n++
		}
	}
	return n
}

// proLightCommands counts the light commands among a bridge's commands,
// on either API.
func proLightCommands(cmds []huesim.Command) int {
	n := 0
	for _, c := range cmds {
		if strings.HasPrefix(c.Path, "/lights/") || strings.HasPrefix(c.Path, "/clip/v2/resource/light/") {
			n++
		}
	}
	return n
}

// proGroupCommands counts the group commands: v1 group actions and CLIP v2
// grouped_light commands.
func proGroupCommands(cmds []huesim.Command) int {
	n := 0
	for _, c := range cmds {
		if strings.HasPrefix(c.Path, "/groups/") || strings.HasPrefix(c.Path, "/clip/v2/resource/grouped_light/") {
			n++
		}
	}
	return n
}

// startProWorld starts the API server, the three Pros with their HueBridges
// (over verified CLIP v2), and the operator, and waits for the bridges.
func (r *run) startProWorld(ctx context.Context, bin string) (map[string]*huesim.Server, error) {
	kubeconfig, err := r.startControlPlane(r.runDir)
	if err != nil {
		return nil, err
	}
	for _, ns := range []string{secretsNS, proNS} {
		if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	sims := map[string]*huesim.Server{}
	for _, name := range []string{proLightByLight, proScenes, proNoV1} {
		sim, err := huesim.Start(huesim.Options{Lights: bulbNames(name, r.sc.ProLights), Usernames: []string{benchUser}, Pro: true, V1Off: name == proNoV1}, "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		r.onStop(sim.Close)
		sims[name] = sim
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: name + "-credentials"},
			Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(benchUser), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())},
		}
		if err := r.c.Create(ctx, secret); err != nil {
			return nil, err
		}
		spec := huev1alpha1.HueBridgeSpec{Address: sim.TLSAddr(), APIVersion: huev1alpha1.APIV2, CABundle: string(sim.CACertPEM()),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name}}
		if name == proLightByLight {
			spec.TemporaryScenes = ptr.To(false)
		}
		if err := r.c.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}); err != nil {
			return nil, err
		}
	}
	if err := r.startHueOperator(ctx, bin, kubeconfig); err != nil {
		return nil, err
	}
	return sims, r.waitBridgesReady(ctx, len(sims))
}
