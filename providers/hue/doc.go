// Package hue is the Philips Hue adapter: HueBridge pairing and health, and
// HueLight state.
//
// One bridge's flow, top-down:
//
//   - port.go: the Client port, in Tether's own types (lights with their
//     capabilities, bridge config, results per attribute). client_v1.go is
//     the v1 implementation, the only file that knows huego; a CLIP v2
//     client plugs in beside it.
//   - registry.go: binds each HueBridge object to the session of the
//     physical bridge it names, by the bridge id /config reports, so two
//     HueBridges naming one bridge share one session. The Secret read and
//     the /config call run outside the registry's lock, one at a time per
//     HueBridge. credentials.go holds every read and write of the
//     credentials Secret.
//   - session.go: one bridge session, built from parts that depend one way:
//     cache.go (the last read of all lights, drift, health), claims.go
//     (which HueLight holds which bulb), sender.go and groups.go (every
//     command, on the bridge's budget, knowing the rest only through
//     narrow callbacks). Wake-ups leave as object keys through the
//     registry's channels, which the controllers feed to a channel source.
//   - light.go and bridge.go: the adapters. Connect resolves the object's
//     bridge session (and bulb); Observe, Update, Delete act on it.
//
// Design choices, and why:
//
//   - One GET /lights per poll interval per bridge, kept in the cache:
//     HueLight Observe reads the cache, so 200 lights cost the bridge one
//     request per interval, not 200. After each read only the HueLights
//     whose bulb drifted (or became unreachable, vanished, appeared) are
//     woken.
//   - One sender goroutine per session sends every command, at the bridge's
//     rate (x/time/rate, 10/s by default, burst 1), draining per-namespace
//     queues in turn so rooms progress together. Update hands the light's
//     change over (a newer change replaces the queued one in its place) and,
//     when its command is alone in line, waits at most 200 ms for it: on an
//     idle bridge the reconcile gets the bridge's answer. Under load it does
//     not wait, and Observe says Throttled (a wait, with an estimate) until
//     the command is sent; the sender then wakes the HueLight. An error from
//     a send nobody waited for is kept and returned by the HueLight's next
//     Update, so it reaches its conditions.
//   - Lights that want the same whole state go as one group command, on a
//     limiter of their own (1/s, burst 1: create, action and delete all
//     count): group 0 when every other bulb of the bridge is held by a
//     HueLight wanting that state (a paused HueLight's bulb is never
//     touched: pausing drops its watch); otherwise, when at least 3 queued
//     lights share a state and the line is longer than a temporary group
//     takes (~2 s), a temporary "tether-*" group is created, acted on and
//     deleted. Leftover tether-* groups (a crash) are deleted when the
//     sender starts. If the bridge refuses the group (table full), the
//     lights go back to the head of the light line and temporary groups
//     pause for a minute. Light commands keep flowing while a group command
//     waits for its slot.
//   - The HueBridge's health is the session's own GET /lights (reachable,
//     last contact, light count, error 1 for a refused username); /config
//     is read when a HueBridge is bound (first contact, new address or
//     credentials) and after the bridge comes back from failing reads.
//   - Only what differs is sent, and on:true always travels with a
//     brightness or colour change (a bulb that is off refuses them with
//     error 201). A light that should be off is compared on on/off only.
//   - Every call has a deadline (huego v1.2.1 uses http.DefaultClient,
//     without a timeout), and huego's panic on an error without "address"
//     is recovered.
//   - Two HueLights on one bulb: the earlier (creationTimestamp, then
//     namespace/name) holds it; the others wait (Conflict) and send nothing
//     until it is deleted, moves, or its namespace stops being allowed.
//   - Error 1 (unauthorized) is a RetryAfter of a minute with reason
//     Unauthorized, not terminal: the fix is to pair again (delete the
//     credentials Secret, press the button), which changes no spec, so a
//     terminal error would never be retried.
//   - reachable:false is not an error: the HueLight waits (Ready=False,
//     LightUnreachable) and nothing is sent; the read that sees it
//     reachable again wakes it.
//   - The username is never logged, and is redacted from the URLs net/http
//     puts in errors, which end up in conditions and events.
package hue
