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
//   - One fair limiter per bridge (10 commands/s by default, burst 1) is
//     shared by all HueLights on it and takes namespaces in turn. It never
//     blocks a worker: a HueLight that may not send yet gets a Pending error
//     with the time its turn should come.
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
