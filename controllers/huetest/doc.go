// Package huetest tests the Hue controllers (HueBridge, HueLight, HueGroup,
// HueScene) as the manager wires them, on a real API server against
// simulated bridges over HTTP (v1 and CLIP v2), and what holds for every
// kind: bad manifests refused or named in conditions, and GitOps health.
// It holds tests only; what it shares with controllers/awstest is
// internal/ctrltest.
package huetest
