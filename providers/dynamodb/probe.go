package dynamodb

import (
	"errors"
	"sync"
)

// errLacksFeature stands for a call not made because another worker found
// out meanwhile that the endpoint does not implement it.
var errLacksFeature = errors.New("the endpoint does not implement this API")

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

// probeCall runs read, the first time for an endpoint and feature one caller at
// a time. It returns errLacksFeature, without calling, when an earlier probe
// found the API missing. The probe records a missing API itself, before any
// other caller may go on: left to the caller, a worker arriving between the
// answer and the caller's record would ask the endpoint again.
func (p *Provider) probeCall(ep *endpoint, feature string, read func() error) error {
	key := ep.Key + "|" + feature
	p.probes.mu.Lock()
	if p.probes.known == nil {
		p.probes.known, p.probes.locks = map[string]bool{}, map[string]*sync.Mutex{}
	}
	if p.probes.known[key] {
		p.probes.mu.Unlock()
		if p.lacks(ep, feature) {
			return errLacksFeature
		}
		return read()
	}
	lock, ok := p.probes.locks[key]
	if !ok {
		lock = &sync.Mutex{}
		p.probes.locks[key] = lock
	}
	p.probes.mu.Unlock()

	lock.Lock()
	defer lock.Unlock()
	if p.lacks(ep, feature) {
		return errLacksFeature
	}
	err := read()
	if isUnknownOperation(err) {
		p.recordLacking(ep, feature)
	}
	if err == nil || isUnknownOperation(err) {
		p.probes.mu.Lock()
		p.probes.known[key] = true
		p.probes.mu.Unlock()
	}
	return err
}
