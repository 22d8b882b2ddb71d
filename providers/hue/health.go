package hue

import (
	"context"
	"time"
)

// bridgeHealth is what the poller's own GET /lights says of the bridge:
// whether it answers (and accepts the username), when it last did, and how
// many lights it has. The HueBridge reports it instead of reading /config
// each resync, so a bridge costs one GET per poll interval.
type bridgeHealth struct {
	err         error
	lastContact time.Time
	lightCount  int
}

// health returns the last poll's view of the bridge, polling first when
// there is no recent result.
func (p *Poller) health(ctx context.Context) bridgeHealth {
	lights, err := p.Snapshot(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	return bridgeHealth{err: err, lastContact: p.contactAt, lightCount: len(lights)}
}

// needsConfig reports whether the HueBridge should read /config through
// this poller: first contact after the poller was (re)built for a new
// address or credentials, or the bridge came back after failing polls.
func (p *Poller) needsConfig() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.configRead
}

func (p *Poller) markConfigRead() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.configRead = true
}
