package dynamodb

import "time"

// Condition reasons this adapter reports besides those of the access
// layer's error classification (access.Classify) and of the contract. The
// exported ones are those other packages match on.
const (
	ReasonIndexReplacement  = "IndexReplacementNotAllowed"
	ReasonNotOwned          = "NotOwned"
	ReasonImmutableMismatch = "ImmutableMismatch"
	ReasonAccountNotFound   = "AccountNotFound"
	// ReasonUnsupportedByEndpoint: the endpoint lacks a feature the spec
	// needs and that cannot be left out (an index's multi-attribute key):
	// Tether stops until the spec changes.
	ReasonUnsupportedByEndpoint = "UnsupportedByEndpoint"

	reasonInaccessible      = "Inaccessible"
	reasonDeleting          = "Deleting"
	reasonHolderUnresolved  = "HolderUnresolved"
	reasonDeletionProtected = "DeletionProtected"
	reasonTableExists       = "TableExists"
	reasonReplicaNotWorking = "ReplicaNotWorking"
	reasonAccountRequired   = "AccountRequired"
	reasonAccountNotAllowed = "AccountNotAllowed"
	reasonLocationChanged   = "LocationChanged"
	reasonAccountChanged    = "AccountChanged"
	reasonForeignReplicas   = "ForeignReplicas"
	reasonOutputsNotWritten = "OutputsNotWritten"
)

// reasonFeatureUnsupported: the endpoint lacks the API a step or read
// needs (an event, and the wait of the pass that found out).
const reasonFeatureUnsupported = "FeatureUnsupported"

// How long the adapter's waits and refusals last before the object looks
// again.
const (
	deletionProtectedDelay = 2 * time.Minute
	// inaccessibleDelay: a table AWS cannot reach (its KMS key disabled)
	// stays so until someone acts in AWS.
	inaccessibleDelay = time.Minute
	// conflictDelay is how often an object in Conflict looks whether the
	// object that holds its table is gone.
	conflictDelay = time.Minute
	// accountDelay is how often an object whose account cannot be used
	// (missing, not admitting its namespace, moved) looks again. It costs
	// no AWS call; the controller also wakes the object when an AWSAccount
	// or its Namespace changes.
	accountDelay = 5 * time.Minute
)
