package providers

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Claim is one object's claim on an external thing that only one object
// may manage: a bulb (HueLights, HueGroups' members) or a table
// (DynamoDBTables naming the same table in one account and region). Two
// objects managing one thing would undo each other's writes on every pass.
type Claim struct {
	Key     types.NamespacedName
	Created metav1.Time
	// Holds is set when the object already has the thing (a table it
	// created or adopted): it keeps it over an older object that arrives
	// later.
	Holds bool
}

// Precedes is the one tie-break between two claims on the same thing: the
// one that holds it, then the older, then the first by namespace/name. It
// does not depend on which object is reconciled first.
func (a Claim) Precedes(b Claim) bool {
	if a.Holds != b.Holds {
		return a.Holds
	}
	if !a.Created.Equal(&b.Created) {
		return a.Created.Before(&b.Created)
	}
	return a.Key.String() < b.Key.String()
}

// Conflict is the one outcome for an object whose thing another object
// holds: it waits (Ready=False, reason Conflict; nothing is sent), and is
// looked at again after recheck, or when the holder lets go.
func Conflict(recheck time.Duration, format string, args ...any) Wait {
	return Wait{Reason: ReasonConflict, Message: fmt.Sprintf(format, args...), For: recheck}
}
