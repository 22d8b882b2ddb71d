package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	"github.com/tether-dev/tether/internal/huesim"
)

// convergeRatio is issue 6's goal for figure 2: within 10% of the bridge's
// floor.
const convergeRatio = 1.1

// bridgeFloor is the least time n light commands take at one bridge's
// budget.
func bridgeFloor(n int) floor {
	return floor{What: fmt.Sprintf("the bridge's budget, %d commands at %d/s (computed)", n, bridgeCommandsPerSecond),
		Value: float64(n) / bridgeCommandsPerSecond}
}

func init() {
	registerMain(2, "Convergence under the bridge's limit", (*run).convergence)
}

// Figure 2: HueLights on one bridge applied at once, then all set to one
// state.
func (r *run) convergence(ctx context.Context) error {
	sim := r.bridge[bridgeAlpha]
	n := r.sc.ConvergeLights
	floor := time.Duration(float64(n) / bridgeCommandsPerSecond * float64(time.Second))
	// Each light a brightness of its own (at most two share one), so no
	// group command can help: this is the light-by-light path at the
	// bridge's rate. The same-state case below is where grouping shows.
	r.alphaLights = lightsOn(bridgeAlpha, "", n, 200)
	for i, l := range r.alphaLights {
		l.Spec.Brightness = ptr.To(int32(1 + i%254))
	}
	objs := objects(r.alphaLights)
	sim.ResetCommands()
	start := time.Now()
	if err := r.createAll(ctx, objs); err != nil {
		return err
	}
	last, err := r.waitReady(ctx, false, wantAll(objs), 3*floor+2*time.Minute, nil)
	if err != nil {
		return err
	}
	took := last.Sub(start)
	cmds := sim.Commands()
	lightCmds, groupCmds := countCommands(cmds)
	f := r.fig(2)
	f.addFloored("ready", fmt.Sprintf("%d HueLights: time to all Ready", n), "s", secs(took),
		bridgeFloor(n), convergeRatio)
	if len(cmds) > 0 {
		lastCmd := cmds[len(cmds)-1].Time.Sub(start)
		rate, idle := commandPace(cmds)
		f.why("the first command went out %.1f s after the first create, the last at %.1f s (the floor is %.0f s): %.1f commands/s of the %d/s budget, with %.1f s lost in gaps longer than 150 ms between commands; "+
			"the last HueLight was Ready %.1f s after its command (the generic reconciler looks again 1 s, jittered, after a write before it reports Ready)",
			cmds[0].Time.Sub(start).Seconds(), lastCmd.Seconds(), floor.Seconds(), rate, bridgeCommandsPerSecond, idle.Seconds(), (took - lastCmd).Seconds())
	}
	f.add("overloads", "overload errors from the bridge", "errors", float64(sim.Overloads()), &goal{Op: "<=", Limit: 0})
	f.why("the operator sent light commands faster than the bridge's 10/s")
	f.add("commands", "light commands sent", "commands", float64(lightCmds), nil)
	if len(cmds) > 0 {
		f.add("last_command", "time to the last light command", "s", secs(cmds[len(cmds)-1].Time.Sub(start)), nil)
		rate, idle := commandPace(cmds)
		f.add("command_rate", fmt.Sprintf("commands per second achieved (budget %d)", bridgeCommandsPerSecond), "commands/s", rate, nil)
		f.add("idle", "time lost in gaps over 150 ms between commands", "s", secs(idle), nil)
	}

	// Every light to the same state: one group 0 command could do it in a
	// second; light by light it is the floor again.
	sim.ResetCommands()
	start = time.Now()
	w, err := r.patchAll(ctx, objs, `{"spec":{"brightness":50}}`)
	if err != nil {
		return err
	}
	last, err = r.waitReady(ctx, false, w, 3*floor+2*time.Minute, nil)
	if err != nil {
		return err
	}
	same := last.Sub(start)
	r.lastChange = last
	lightCmds, groupCmds = countCommands(sim.Commands())
	f.add("same_state", "same state for all: time to all Ready", "s", secs(same), nil)
	f.add("group_commands", "group commands sent (same state)", "commands", float64(groupCmds), nil)
	f.note("Each of the %d lights is given a brightness of its own (at most two share one), so grouping cannot apply: this is the light-by-light path.", n)
	f.note("Bridge floor: %d commands at %d/s = %.1f s; goal %.1fx = %.1f s.", n, bridgeCommandsPerSecond, floor.Seconds(), convergeRatio, convergeRatio*floor.Seconds())
	if groupCmds == 0 {
		f.note("Same state for all %d lights: no group command was sent, so it took %d light commands and %.1f s (%.2fx the floor). "+
			"Tether groups queued lights that want one state (PUT /groups/0/action when every bulb of the bridge wants it, "+
			"else a temporary group once the line is longer than a group takes), on the bridge's 1 group command/s budget; here none qualified.",
			n, lightCmds, same.Seconds(), same.Seconds()/floor.Seconds())
	} else {
		f.note("Same state for all %d lights: %d group and %d light commands, %.1f s (%.2fx the floor).", n, groupCmds, lightCmds, same.Seconds(), same.Seconds()/floor.Seconds())
	}
	return nil
}

func countCommands(cmds []huesim.Command) (lights, groups int) {
	for _, c := range cmds {
		if strings.HasPrefix(c.Path, "/groups") {
			groups++
		} else if strings.HasPrefix(c.Path, "/lights") {
			lights++
		}
	}
	return lights, groups
}

// commandPace is the rate between the first and the last command, and the
// time lost in gaps longer than 1.5 budget slots: slots the per-bridge
// limiter had but nobody used.
func commandPace(cmds []huesim.Command) (perSecond float64, idle time.Duration) {
	if len(cmds) < 2 {
		return 0, 0
	}
	slot := time.Second / bridgeCommandsPerSecond
	for i := 1; i < len(cmds); i++ {
		if gap := cmds[i].Time.Sub(cmds[i-1].Time); gap > slot*3/2 {
			idle += gap - slot
		}
	}
	span := cmds[len(cmds)-1].Time.Sub(cmds[0].Time)
	return float64(len(cmds)-1) / span.Seconds(), idle
}
