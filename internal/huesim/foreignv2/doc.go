// Package foreignv2 holds the tests that check the simulator's CLIP v2 API
// with clients nobody at Tether wrote: openhue-go v0.4.0 driving lights,
// and r3labs/sse reading the event stream. They live in a package of their
// own because openhue-go v0.4.0 sets http.DefaultTransport's TLS config to
// InsecureSkipVerify for the whole process when a client is created: in
// any other test binary that would silently weaken every test that relies
// on the default transport verifying certificates.
package foreignv2
