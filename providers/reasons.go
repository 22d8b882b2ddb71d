package providers

// Condition and event reasons that the generic reconciler and more than one
// adapter set: each is defined here once. A reason only one adapter sets
// stays beside that adapter.
const (
	// ReasonCreating: the external thing was asked for and is not there
	// yet (the reconciler after a Create; a table still CREATING).
	ReasonCreating = "Creating"
	// ReasonUpdating: a change was sent and is not shown yet (the
	// reconciler after an Update; a table still UPDATING).
	ReasonUpdating = "Updating"
	// ReasonStalled: the stall breaker stopped a write that does not
	// stick.
	ReasonStalled = "Stalled"
	// ReasonConflict: another object manages the same external thing.
	ReasonConflict = "Conflict"
	// ReasonThrottled: the backend's budget for calls is spent for now.
	ReasonThrottled = "Throttled"
)

// DefaultStallAfter is how many times the same write may be sent for one
// generation with no visible effect before the stall breaker stops it.
const DefaultStallAfter = 3
