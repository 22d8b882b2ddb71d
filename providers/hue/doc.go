// Package hue is the Philips Hue adapter: HueBridge pairing and health, and
// HueLight state, over the v1 API with huego v1.2.1.
//
// Design choices, and why:
//
//   - One Poller per bridge does a single GET /lights per poll interval and
//     keeps the result. HueLight Observe reads that cache, so 200 lights cost
//     the bridge one request per interval, not 200. After each poll the
//     poller wakes only the HueLights whose bulb drifted (or became
//     unreachable, vanished, appeared) through a source.Channel.
//   - One sender goroutine per bridge (owned by the Poller, stopped with it)
//     sends every command, at the bridge's rate (x/time/rate, 10/s by
//     default, burst 1), draining per-namespace queues in turn so rooms
//     progress together. Update queues the light's change (a newer change
//     replaces the queued one in its place; a deleted HueLight's is dropped)
//     and, when its command is alone in line, waits at most 200 ms for it:
//     on an idle bridge the reconcile gets the bridge's answer. Under load
//     it does not wait (workers keep queueing, which lets same-state
//     commands be grouped) and returns Pending
//     with an estimate from its place in line, and the sender wakes the
//     HueLight through the poller's events channel once it is sent. An error
//     from a send nobody waited for is kept and returned by the HueLight's
//     next Update, so it reaches its conditions. The earlier design, a limiter
//     each reconcile asked for a slot, lost the slots offered to HueLights
//     that came back late (8-9.6 commands/s of 10).
//   - Lights that want the same whole state go as one group command, on a
//     limiter of their own (1/s, burst 1: create, action and delete all
//     count): group 0 when every other bulb of the bridge is held by a
//     HueLight wanting that state (a paused HueLight's bulb is never
//     touched: pausing drops its watch); otherwise, when at least 3 queued
//     lights share a state and the line is longer than a temporary group takes (~2 s), a
//     temporary "tether-*" group is created, acted on and deleted. Leftover
//     tether-* groups (a crash) are deleted when the sender starts. If the
//     bridge refuses the group (table full), the lights go back to the head
//     of the light line and temporary groups pause for a minute. Light
//     commands keep flowing while a group command waits for its slot.
//   - The HueBridge's health is the poller's own GET /lights (reachable,
//     last contact, light count, error 1 for a refused username); /config is
//     read only on first contact, after the bridge comes back from failing
//     polls, and when a new address or credentials rebuild the poller. The
//     poller wakes the HueBridge when the bridge stops or starts answering
//     or its light count changes, so a bridge costs one GET per interval.
//   - Only what differs is sent, and on:true always travels with a
//     brightness or colour change (a bulb that is off refuses them with
//     error 201). A light that should be off is compared on on/off only.
//   - huego's State cannot say hue 0, sat 0 or transitiontime 0 (omitempty);
//     such bodies go as a plain PUT with the same deadline. Every call has a
//     deadline (huego v1.2.1 uses http.DefaultClient, without a timeout), and
//     huego's panic on an error without "address" is recovered.
//   - Two HueLights on one bulb: the earlier (creationTimestamp, then
//     namespace/name) holds it; the others report Conflict and send nothing
//     until it is deleted.
//   - Error 1 (unauthorized) is a RetryAfter of a minute with reason
//     Unauthorized, not terminal: the fix is to pair again (delete the
//     credentials Secret, press the button), which changes no spec, so a
//     terminal error would never be retried.
//   - reachable:false is not an error: the HueLight is Ready=False with
//     LightUnreachable and nothing is sent; the poll that sees it reachable
//     again wakes it.
//   - The username is read from the Secret with an uncached reader (no
//     cluster-wide Secret informer), never logged, and redacted from the
//     URLs net/http puts in errors, which end up in conditions and events.
package hue
