// Package bridge is Tether's session with one physical Hue bridge, shared
// by every HueBridge object that names it: one read of the lights per poll
// interval, one command budget, one set of claims, whatever number of
// HueLights, HueGroups and HueScenes use the bridge. It speaks to the
// bridge only through the wire package below it, reasons about states with
// the light model (providers/hue/model), and knows nothing of the adapters
// above: they reach a session only through its facade (facade.go for the
// registry, the HueBridge and the HueLights; rooms_facade.go, Rooms, for
// the HueGroups and HueScenes), and the session reaches them only with
// keys sent on the channels of Wakes.
//
// How data flows through a session:
//
//   - Reads come in: session.go's loop reads every light once per
//     Settings.Interval (GET /lights, or a full CLIP v2 read), stream.go's
//     loop delivers what a v2 bridge's event stream pushes; both go to
//     cache.go, which answers with the HueLights whose bulb drifted,
//     became (un)reachable, vanished or appeared. Only those are woken
//     (Wakes.Lights), but for those whose command is in line (the sender
//     wakes each when its command goes), the HueGroups one of whose members did or whose
//     room or zone an event showed changed (Wakes.Groups), the HueScenes
//     whose scene one did (Wakes.Scenes), and the HueBridges when the bridge started or
//     stopped answering or its number of lights changed (Wakes.Bridge).
//     A HueLight's pass reads the cache, never the bridge: LookAt claims
//     its bulb and returns who holds it, the bulb as the cache knows it
//     (LightView: the last read with what the bridge accepted and refused
//     since) and its command in line, in one call.
//   - Wants come down: Settle ends a HueLight's look with what it wants of
//     its bulb (to tell drift) and what the line makes of its pass; LookAt
//     recorded which bulb it wants (claims.go: the earliest claimant holds
//     a bulb; the others wait). Rooms' Settle and Claim do the same for
//     HueGroups (rooms.go).
//   - Commands go out through the sender (sender.go), the only part that
//     writes to the bridge, within two budgets: light commands at
//     Settings.CommandsPerSecond (burst 1), group commands at GroupSlot.
//     A HueLight hands its command over (Send, orders.go): a newer one
//     replaces the one in line in its place; when it is alone in line the
//     pass waits for the bridge's answer (up to the wait it asks for),
//     otherwise the sender wakes the HueLight once it went, and keeps a
//     refusal nobody waited for for the HueLight's next pass. The line is
//     a queue per namespace, served in turn (orders.go). Lights that want
//     the same whole state go as one group command: group 0 when every
//     other bulb of the bridge is held by a HueLight wanting that state
//     (a paused HueLight's bulb is never touched: pausing drops its
//     watch), else a temporary scene, or with temporary scenes off a
//     temporary group, when the line is long enough for one to pay
//     (batches.go). Lights that want states of their own go as a
//     temporary scene (tempscenes.go), and the line waits for the
//     HueLights the informer saw change so that a burst goes as one
//     (batches.go). HueGroups' commands take the group budget before
//     those batches (grouporders.go). Rooms' writes take the group budget,
//     scenes' writes the light budget, as rooms_facade.go makes them.
//   - While the bridge does not answer (a read or a command found no
//     connection or no answer in time), the sender holds every command
//     until a read finds it answering: an outage costs one read per poll
//     interval.
//   - On CLIP v2 the event stream replaces polling while it is live; it
//     is read in full after each (re)connect and once per
//     StreamSettings.SafetyRead, reconnected when silent for
//     StreamSettings.Silence, and polling takes over after
//     StreamSettings.DropLimit drops within DropWindow until a stream
//     stays up for Stable. A connect that failed is tried again only after
//     a poll succeeded.
//
// The registry in the package above makes, binds and stops sessions; a
// HueBridge's health is its session's last read (Health), and /config is
// read again only after the bridge came back from failing reads.
package bridge
