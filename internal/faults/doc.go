// Package faults holds tests that break Tether's surroundings on purpose: a
// Hue bridge or a DynamoDB endpoint answering nonsense, stalling or hanging
// up, and a check that credentials never leak into logs, events, statuses
// or metrics. They run one API server, DynamoDB Local and one manager of
// their own, so that the endpoint and the log can be theirs.
package faults
