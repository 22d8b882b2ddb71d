// Package hue is the Philips Hue adapter: HueBridge pairing and health,
// HueLight state, and HueGroups and HueScenes (rooms, zones and scenes). Every number below is a named constant; the name says
// where it lives.
//
// One bridge's flow, top-down:
//
//   - port.go: the Client port, in Tether's own types (lights with their
//     capabilities and only the state fields the bridge reports, bridge
//     config, answers attribute by attribute). client_v1.go is the v1
//     implementation (plain HTTP: huego cannot be bounded); client_v2.go is the
//     CLIP v2 one (HTTPS, v2store.go holds the bridge's resources), and its
//     event stream (eventstream.go) feeds the same cache as a poll.
//     rooms_port.go is the port's part for rooms, zones and scenes
//     (RoomsClient, asked for with roomsOf: a backend without it still
//     serves HueLights); client_v1_rooms.go is its v1 implementation and
//     client_v2_rooms.go its v2 one (the v1 API a v2 bridge serves too,
//     over the v2 client's connection and request slots).
//   - connect.go: a HueBridge to a Client: the address (or mDNS by bridge
//     id, discovery.go), the API (spec.apiVersion), the certificate check
//     (trust.go), in two steps so that no username leaves before the
//     bridge proved the id it belongs to (reach, without credentials; then
//     dial).
//   - registry.go: binds each HueBridge object to the session of the
//     physical bridge it names, by the bridge id /config reports, so two
//     HueBridges naming one bridge share one session (the settings of the
//     first that bound it), when they prove the bridge in the same way
//     (identity.go). The Secret read and the /config calls run outside
//     the registry's lock, one at a time per HueBridge, and a failure of
//     the bridge is remembered for a poll interval. credentials.go holds
//     every read and write of the credentials Secret, secretaccess.go the
//     rules for it.
//   - bounds.go: every read from a bridge is bounded (answers, event-stream
//     messages, the v2 store), and no redirect is followed.
//   - session.go: one bridge session, built from parts that depend one way:
//     cache.go (the last read of all lights, what the bridge accepted and
//     refused since, drift, health), claims.go (which HueLight holds which
//     bulb), sender.go and groups.go (every command, on the bridge's budget,
//     knowing the rest only through senderDeps). Wake-ups leave as object
//     keys through the registry's channels (Wake), which the controllers
//     feed to a controller-runtime channel source.
//   - light.go and bridge.go: the adapters. Connect (the generic connect
//     stage) resolves the object's bridge session and bulb; Observe, Update
//     and Delete act on it. group_adapter.go (HueGroup) and
//     scene_adapter.go (HueScene) likewise; session_rooms.go is the
//     session's part for HueGroups (the groups read, what each wants of its
//     members, which HueGroup holds which bulb), grouporders.go their
//     commands in the sender.
//
// Real bulbs:
//
//   - A bulb's capabilities come from GET /lights (type, modelid,
//     capabilities.control) and show in the HueLight's status.capabilities.
//     projection.go fits the spec to them before anything is compared or
//     sent, as a bridge would: colour temperature clamped to the bulb's
//     range, xy moved to the nearest point of its gamut (maxXY where the
//     gamut is unknown), colour on white bulbs and brightness on plugs left
//     out. The HueLight then settles with one command and is Ready=True with
//     reason Limited (ReasonLimited), its message saying what the bulb
//     does; the generic reconciler emits one Warning event when the note
//     appears. Ready stays True because the bulb does all it can: `kubectl
//     wait --for=condition=Ready` works, and the reason tells it apart.
//   - Only fields the bridge reports are compared, xy within xyTolerance (a
//     bridge reads xy back at four decimals). A field the bridge leaves out
//     is sent once and from then on known from what the bridge accepted
//     (named in the message); it is never a reason to send again.
//   - Answers are read attribute by attribute (refusals.go): what the bridge
//     accepted counts, a refused attribute is not sent again with the same
//     value, and Ready=False with reason AttributeRefused names it.
//   - What the bridge accepted is kept apart from what it last reported: a
//     match that rests on an accepted write not yet read back is
//     Unconfirmed (looked at again one poll interval later, so that
//     status.observed, or a HueGroup's status.members, shows the read), and the generic stall breaker stops
//     a write a bulb never shows (the same difference sent StallAfter times
//     for one generation), with Synced=False, reason Stalled. LightDiff.StallKey counts the
//     writes reads did show, so the same drift put back again is not a
//     stall.
//
// CLIP v2:
//
//   - One event stream per bridge session; while it is live the session
//     does not poll, and reads everything only after each (re)connect and
//     once per StreamSettings.SafetyRead. A stream silent for
//     StreamSettings.Silence is reconnected (bridges send no keep-alive);
//     reconnects back off from streamBackoffBase to MaxBackoff; DropLimit
//     drops within DropWindow turn polling on until a stream stays up for
//     Stable. Whenever the stream is not live the session polls.
//   - Each read from the stream says how recent each light is (read.lightAt),
//     so a command accepted after a light's last event is not taken as read
//     back or as drift.
//   - At most v2MaxConcurrent requests at a bridge at once (the stream
//     included); 429/503 retried v2BusyRetries times, v2BusyStep apart.
//   - hue/sat goes to v2 as xy, and is compared on v1 as the colour it
//     makes (hsxy.go, within hsTolerance).
//
// Budget and reads:
//
//   - One GET /lights per poll interval per bridge, kept in the cache:
//     HueLight Observe reads the cache, so 200 lights cost the bridge one
//     request per interval, not 200. After each read only the HueLights
//     whose bulb drifted (or became unreachable, vanished, appeared) are
//     woken.
//   - One sender goroutine per session sends every command at the bridge's
//     rate (Settings.CommandsPerSecond, burst 1), draining per-namespace
//     queues in turn so rooms progress together. Update hands the light's
//     change over (a newer change replaces the queued one in its place) and,
//     when its command is alone in line, waits at most sendWait for it: on
//     an idle bridge the reconcile gets the bridge's answer. Under load it
//     returns providers.Queued (the stall breaker counts it as sent) and
//     Observe says Throttled until the command goes out; the sender then
//     wakes the HueLight. For the first quietQueue in line both say the
//     wait is brief, and the reconciler writes no status for it: a burst
//     costs one status write per HueLight, not two. A request-level error of a send nobody waited for
//     is kept and returned by the HueLight's next Update.
//   - Lights that want the same whole state go as one group command, on a
//     budget of their own (groupSlot: create, action and delete all count):
//     group 0 when every other bulb of the bridge is held by a HueLight
//     wanting that state (a paused HueLight's bulb is never touched:
//     pausing drops its watch); otherwise, when at least minGroupSize
//     queued lights share a state and the line is longer than
//     tempGroupCost, a temporary tempGroupPrefix group is created, acted on
//     and deleted. Leftover temporary groups (a crash) are deleted when the
//     sender starts. If the bridge refuses a group, the lights go back to
//     the head of the light line and groups pause for tempGroupPause.
//   - Lights that want states of their own go as a temporary scene
//     (tempscenes.go): stored, recalled on group 0, deleted; and the line
//     waits for HueLights the informer saw change (gathering), so that a
//     burst goes as one scene however slowly its reconciles follow.
//   - HueGroups' commands (a state for the group, or a scene recalled on it)
//     take the group budget before the HueLights' batches. A bulb held by a
//     HueLight is that HueLight's: a HueGroup over it reports Conflict and
//     sends nothing (a v1 group command cannot leave a member out).
//   - The HueBridge's health is the session's own GET /lights (reachable,
//     last contact, light count, error 1 for a refused username); /config
//     is read when a HueBridge is bound and after the bridge comes back
//     from failing reads.
//   - Pairing asks again after as long as the HueBridge has waited, from
//     PairingInterval to PairingMaxInterval, with the same prompt.
//
// Other choices:
//
//   - Only what differs is sent, and on:true always travels with a
//     brightness or colour change (a bulb that is off refuses them with
//     error 201). A light that should be off is compared on on/off only.
//   - Every call has a deadline (DefaultCallTimeout).
//   - Two HueLights on one bulb: the earlier (creationTimestamp, then
//     namespace/name) holds it; the other waits (Conflict) and sends nothing
//     until the holder is deleted, moves, or its namespace stops being
//     allowed.
//   - Error 1 (unauthorized) is a RetryAfter with reason Unauthorized, not
//     terminal: the fix is to pair again (delete the credentials Secret,
//     press the button), which changes no spec, so a terminal error would
//     never be retried.
//   - reachable:false is not an error: the HueLight waits (Ready=False,
//     LightUnreachable) and nothing is sent; the read that sees it
//     reachable again wakes it.
//   - The username is never logged, and is redacted from the URLs net/http
//     puts in errors, which end up in conditions and events.
package hue
