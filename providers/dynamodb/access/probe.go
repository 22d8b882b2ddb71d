package access

import (
	"errors"
	"sync"
)

// ErrLacksFeature stands for a call not made because another worker found
// out meanwhile that the endpoint does not implement it.
var ErrLacksFeature = errors.New("the endpoint does not implement this API")

// lacking is, per endpoint (Endpoint.Key), the features whose API it was
// found not to implement, so that the adapter stops calling them (no hot
// loop).
type lacking struct {
	mu       sync.Mutex
	features map[string]map[string]bool // endpoint -> features it lacks
}

// Lacks says whether the endpoint is known not to implement a feature.
func (c *Clients) Lacks(ep *Endpoint, feature string) bool {
	c.lacking.mu.Lock()
	defer c.lacking.mu.Unlock()
	return c.lacking.features[ep.Key][feature]
}

// RecordLacking remembers that an endpoint lacks a feature's API.
func (c *Clients) RecordLacking(ep *Endpoint, feature string) {
	c.lacking.mu.Lock()
	defer c.lacking.mu.Unlock()
	if c.lacking.features == nil {
		c.lacking.features = map[string]map[string]bool{}
	}
	if c.lacking.features[ep.Key] == nil {
		c.lacking.features[ep.Key] = map[string]bool{}
	}
	c.lacking.features[ep.Key][feature] = true
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

// Probe runs read, the first time for an endpoint and feature one caller
// at a time. It returns ErrLacksFeature, without calling, when an earlier
// probe found the API missing. The probe records a missing API itself,
// before any other caller may go on: left to the caller, a worker arriving
// between the answer and the caller's record would ask the endpoint again.
func (c *Clients) Probe(ep *Endpoint, feature string, read func() error) error {
	key := ep.Key + "|" + feature
	c.probes.mu.Lock()
	if c.probes.known == nil {
		c.probes.known, c.probes.locks = map[string]bool{}, map[string]*sync.Mutex{}
	}
	if c.probes.known[key] {
		c.probes.mu.Unlock()
		if c.Lacks(ep, feature) {
			return ErrLacksFeature
		}
		return read()
	}
	lock, ok := c.probes.locks[key]
	if !ok {
		lock = &sync.Mutex{}
		c.probes.locks[key] = lock
	}
	c.probes.mu.Unlock()

	lock.Lock()
	defer lock.Unlock()
	if c.Lacks(ep, feature) {
		return ErrLacksFeature
	}
	err := read()
	if IsUnknownOperation(err) {
		c.RecordLacking(ep, feature)
	}
	if err == nil || IsUnknownOperation(err) {
		c.probes.mu.Lock()
		c.probes.known[key] = true
		c.probes.mu.Unlock()
	}
	return err
}
