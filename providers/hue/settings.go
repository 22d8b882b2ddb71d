package hue

import (
	"time"

	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/providers/hue/wire"
)

// Settings are the operator-wide defaults; a HueBridge's spec overrides the
// poll interval and command rate for its session. A field left zero takes
// the default its comment names.
type Settings struct {
	PollInterval      time.Duration // DefaultPollInterval
	CommandsPerSecond float64       // DefaultCommandsPerSecond
	CallTimeout       time.Duration // wire.DefaultCallTimeout
	// CredentialsNamespaces are where credentials Secrets may be
	// (secretaccess.go); none allows none.
	CredentialsNamespaces []string
	// NewClient, when set, builds every bridge client (a test's fake);
	// otherwise the HueBridge's apiVersion chooses (connect.go).
	NewClient func(address, user string, timeout time.Duration) wire.Client
	// Stream shapes the CLIP v2 event streams (bridge/stream.go).
	Stream bridge.StreamSettings
	// Discover finds a bridge by id for a HueBridge without address;
	// default mDNS for DiscoveryTimeout (discovery.go).
	Discover         wire.Discover
	DiscoveryTimeout time.Duration
}

// The operator-wide defaults: each bridge is read once per
// DefaultPollInterval, and sent at most DefaultCommandsPerSecond light
// commands, what the Hue documentation asks for (docs/hue-behaviour.md, "Rate").
const (
	DefaultPollInterval      = 5 * time.Second
	DefaultCommandsPerSecond = 10
)

func (s Settings) withDefaults() Settings {
	if s.PollInterval <= 0 {
		s.PollInterval = DefaultPollInterval
	}
	if s.CommandsPerSecond <= 0 {
		s.CommandsPerSecond = DefaultCommandsPerSecond
	}
	if s.CallTimeout <= 0 {
		s.CallTimeout = wire.DefaultCallTimeout
	}
	if s.Discover == nil {
		s.Discover = wire.DiscoverMDNS(s.DiscoveryTimeout, nil)
	}
	return s
}
