package access

import (
	"errors"
	"sync"
)

// ErrLacksFeature stands for a call not made because another worker found
// out meanwhile that the endpoint does not implement it.
var ErrLacksFeature = errors.New("the endpoint does not implement this API")

// capabilities are, per endpoint (Endpoint.Key), the features whose API it
// was found not to implement, so that the adapter stops calling them (no
// hot loop), and the probes that find out.
type capabilities struct {
	mu      sync.Mutex
	lacking map[string]map[string]bool // endpoint -> features it lacks
	probes  probes
}

func (c *capabilities) lacks(endpoint, feature string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lacking[endpoint][feature]
}

func (c *capabilities) record(endpoint, feature string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lacking == nil {
		c.lacking = map[string]map[string]bool{}
	}
	if c.lacking[endpoint] == nil {
		c.lacking[endpoint] = map[string]bool{}
	}
	c.lacking[endpoint][feature] = true
}

// probes lets one worker at a time find out whether an endpoint implements
// an optional API (tagging, TTL, backups): when 1,000 tables are created at
// once, ten workers would otherwise all call ListTagsOfResource on DynamoDB
// Local before the first answer says it is not there. Once an endpoint has
// answered a feature's call either way, calls no longer wait for each other.
type probes struct {
	mu    sync.Mutex
	known map[string]bool        // endpoint|feature -> answered once
	locks map[string]*sync.Mutex // endpoint|feature -> held by the prober
}

// probe runs read, the first time for an endpoint and feature one caller
// at a time. It returns ErrLacksFeature, without calling, when an earlier
// probe found the API missing. The probe records a missing API itself,
// before any other caller may go on: left to the caller, a worker arriving
// between the answer and the caller's record would ask the endpoint again.
func (c *capabilities) probe(endpoint, feature string, read func() error) error {
	key := endpoint + "|" + feature
	p := &c.probes
	p.mu.Lock()
	if p.known == nil {
		p.known, p.locks = map[string]bool{}, map[string]*sync.Mutex{}
	}
	if p.known[key] {
		p.mu.Unlock()
		if c.lacks(endpoint, feature) {
			return ErrLacksFeature
		}
		return read()
	}
	lock, ok := p.locks[key]
	if !ok {
		lock = &sync.Mutex{}
		p.locks[key] = lock
	}
	p.mu.Unlock()

	lock.Lock()
	defer lock.Unlock()
	if c.lacks(endpoint, feature) {
		return ErrLacksFeature
	}
	err := read()
	if IsUnknownOperation(err) {
		c.record(endpoint, feature)
	}
	if err == nil || IsUnknownOperation(err) {
		p.mu.Lock()
		p.known[key] = true
		p.mu.Unlock()
	}
	return err
}
