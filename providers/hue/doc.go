// Package hue is the Philips Hue provider: the adapters of HueBridge
// (pairing and health), HueLight (a bulb's state), HueGroup (a room or
// zone and the state or scene of its lights) and HueScene (a scene stored
// on a bridge), and the registry that binds HueBridge objects to bridge
// sessions. It stands on three packages: bridge (one session per physical
// bridge, reached only through its facade), wire (how a bridge is spoken
// to) and model (the light: a spec in the bridge's units, fitted to what a
// bulb can show, compared with what it shows). None knows this one.
//
// How a pass flows, top-down:
//
//   - Connect (the generic reconciler's connect stage) asks the registry
//     for the object's session (registry.go: sessionFor): it finds the
//     object's HueBridge, checks its namespace against the HueBridge's
//     allowedNamespaces (and those of any other HueBridge sharing the
//     session: AllowedBySharers), and returns the bridge's session (For).
//   - The registry binds a HueBridge in two steps (connect.go), so that no
//     username leaves before the bridge proved the id it belongs to:
//     reach learns which bridge answers at the address (or the one mDNS
//     finds by spec.bridgeID, discovery.go) without credentials, and
//     decides the API; dial then sends the username read from the
//     credentials Secret (credentials.go, under the rules of
//     secretaccess.go), and only over the proof the Secret records of the
//     bridge (how it was proven when Tether paired or first bound: its
//     certificate, or its address), or a certificate chained to a Hue root.
//     HueBridges naming one bridge share one session, keyed by the id the
//     bridge proved (in its one form, wire.NormalizeBridgeID), when they
//     prove it in the same way (identity.go); the session takes the
//     settings of the first. The
//     Secret read and the /config calls run outside the registry's lock,
//     one at a time per HueBridge, and a failure is remembered for a poll
//     interval.
//   - Observe makes one session call and one model call: the session's
//     look at the bulb (LookAt: its claim, the last read of the bridge with
//     what the bridge accepted and refused since, its command in line;
//     never a call to the bridge of its own per pass), then model.Fit, the
//     spec (spec.go: desiredFrom) fitted to the bulb and compared with what
//     it shows; it says what differs, and ends its look on the session
//     (Settle: what it watches for drift). Update hands that difference to
//     the session's sender (Send); Delete lets go (and switches off, or
//     removes what Tether created). HueGroups and HueScenes go through the
//     session's Rooms; a HueScene's CLIP v2 options (palette, speed,
//     autoDynamic) are scene_options.go's, its lights' effect and gradient
//     fitted as a HueLight's are.
//   - A bridge call's error is the protocol's (wire's); retry.go's
//     Classify and ClassifyRooms turn it into the reconciler's typed
//     errors (the retry policy: which reason, how soon), and metrics.go
//     counts each call. The session wakes an object by key when a read
//     shows its bulbs drifted or its command went out; the registry hands
//     those keys to the controllers (LightWakes, GroupWakes, SceneWakes,
//     BridgeWakes).
//
// What the adapters say:
//
//   - A bulb's capabilities show in the HueLight's status.capabilities, and
//     a spec fitted to them is Ready=True with reason Limited, its message
//     saying what the bulb does instead (one Warning event when it
//     appears). A field the bridge leaves out is sent once and from then on
//     known from what the bridge accepted, named in the message.
//   - An attribute the bridge refused is not sent again with the same
//     value: Ready=False, reason AttributeRefused, naming it.
//   - A write the bridge accepted is read back (an event, or the session's
//     read-back once its transition is over), and the HueLight or HueGroup
//     waits quietly for that read: its status is written once, when Ready,
//     with status.observed (or status.members) as read. A match still
//     unconfirmed after a poll interval is reported as Unconfirmed and
//     looked at again one poll interval later; the generic stall
//     breaker stops a write a bulb never shows, and LightDiff.StallKey
//     counts the writes reads did show, so the same drift put back again
//     is not a stall.
//   - A command waiting in the session's line is said nothing of for
//     quietQueue while the bridge answers (the session wakes the HueLight
//     or HueGroup when it goes), then Throttled.
//   - Two HueLights on one bulb: the earlier holds it and the other waits
//     (Conflict) until the holder is deleted, moves, or its namespace stops
//     being allowed. A bulb a HueLight holds is not a HueGroup's: the group
//     reports Conflict and sends nothing (a group command cannot leave a
//     member out); a bulb two HueGroups want belongs to the earlier.
//   - reachable:false is not an error: the HueLight waits
//     (LightUnreachable) and the read that sees the bulb again wakes it.
//   - Pairing asks again after as long as the HueBridge has waited, from
//     PairingInterval to PairingMaxInterval, with the same prompt.
//   - Deleting says what it did on the bridge (deletewords.go): a bulb is
//     never removed, and a room the Hue app made stays.
package hue
