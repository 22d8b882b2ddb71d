// Package wire is how Tether speaks to a Philips Hue bridge, in the light
// model's types (providers/hue/model): nothing above it knows whether a
// bridge speaks the v1 API or CLIP v2, how its answers look, or how its
// certificate is checked. It imports the model and nothing of the session,
// the adapters, the reconciler's contract or the API types.
//
// How data flows through it:
//
//   - port.go is the Client port: lights (model.Light) with their
//     capabilities and only the state fields the bridge reports, the
//     bridge's config, commands (model.StateBody) answered attribute by
//     attribute (Result). rooms_port.go is the part for rooms, zones and
//     scenes (RoomsClient, asked for with RoomsOf: a backend without it
//     still serves HueLights).
//   - client_v1.go (plain HTTP; huego cannot be bounded) and client_v2.go
//     (CLIP v2 over HTTPS, its resources kept in v2store.go) implement the
//     port; client_v1_rooms.go, client_v2_rooms.go and
//     client_v2_scenes.go its rooms part (on CLIP v2, rooms and zones are
//     its room, zone and grouped_light resources, kept in the store
//     (v2groups.go) under their v1 ids, and their scenes its scene
//     resources; temporary groups and scenes stay v1 objects, over the v2
//     client's connection and request slots, while the bridge serves v1:
//     without it there is no temporary group, and a temporary scene is a
//     v2 scene in a temporary zone). v2powerup.go and
//     v2gradient.go are those features' shapes in CLIP v2's form;
//     scene_options.go a v2 scene's palette, speed and auto_dynamic
//     (SceneOptions, which a v1 scene has not).
//     stream.go reads a v2 bridge's event stream (a PushClient delivers a
//     Read after each message, with the rooms and zones when one changed,
//     and the scenes it named); whoever runs the stream is above.
//   - trust.go checks a bridge's certificate (the Hue roots and the bridge
//     id it names), proof.go says what a client proves of the bridge
//     (Identity, and Record, the form a credentials Secret keeps it in),
//     bridgeid.go puts every bridge id in the one form sessions are keyed
//     by as it enters, mdns.go finds a bridge by id on the local network.
//   - bounds.go bounds every read from a bridge (answers, event-stream
//     messages, the v2 store) and refuses redirects; every call has a
//     deadline (DefaultCallTimeout); the username never appears in an
//     error (errors.go's redact, on both clients), and an answer that
//     is not Hue's is named by its HTTP status and content type, never
//     quoted (nothue.go).
//   - errors.go is what a call returns when it fails, in the protocol's
//     own terms: the Hue error types (ErrorType), an answer that is not
//     Hue's (ProtocolError), a connection that failed (IsNetwork), a
//     refused certificate (trust.go's CertificateError), a v2 bridge
//     whose v1 API is gone (V1GoneError). What the
//     reconciler makes of them is the adapters' retry policy
//     (providers/hue's Classify), not this package's. Each request is told
//     to CountCall (port.go), which the adapters count in
//     tether_external_calls_total. bulbs.go holds what both APIs take as
//     known of bulbs' colours (the gamut triangles, the mired bounds).
//
// The bridge's units are the model's: bri 1-254, ct in mireds, xy in CIE
// 1931, hue 0-65535, sat 0-254, transitiontime in 100 ms. CLIP v2's are
// translated at its client's border, hue/sat sent to it as xy
// (model.HueSatToXY).
package wire
