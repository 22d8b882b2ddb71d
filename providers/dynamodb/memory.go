package dynamodb

import (
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// memory is what the adapter remembers about one object between passes. It
// lives in memory on purpose: after a restart secondary reads are made once
// more, which costs a few calls at most.
type memory struct {
	// reads are the answers of the reads besides DescribeTable (reads.go);
	// readAt says when each feature's was made.
	reads  plan.Reads
	readAt map[string]time.Time
	warned map[string]bool // features an event was emitted for

	// createRefused is set when CreateTable answered ResourceInUse: the
	// table that is there was made by someone else.
	createRefused bool

	// policyChange is Tether's last change of the resource policy (see
	// readPolicy).
	policyChange *policyChange

	// toldDeniedAt is the object's fingerprint when it was last told that
	// AWS refused its account's role: it may ask again once it changed.
	toldDeniedAt string

	// insightsEnabled is the object's fingerprint when Tether last enabled
	// contributor insights, by index ("" for the table) (insights.go).
	insightsEnabled map[string]string
	// kinesisEnabled is the object's fingerprint when Tether last enabled
	// a Kinesis streaming destination, by stream ARN (kinesis.go).
	kinesisEnabled map[string]string
	// disassociationRefused are the disassociations AWS refused, by the
	// replica's Region, with the fingerprint they were refused for
	// (disassociation.go).
	disassociationRefused map[string]disassociationRefusal
	// replicationPolicy is set while the table's policy carries the
	// replication statements of a multi-account global table, which it
	// must read even when the spec has no policy (multiaccount.go).
	replicationPolicy bool
	// joinedSource is, for a table that joined another account's, the
	// source its policy's statements were last planned for (Tether's
	// record, joinedSource): a step on it counts as one on that source
	// (noteSourceChanged).
	joinedSource string
	// joinedSeen: the table that joined was seen a member of its global
	// table (notJoined).
	joinedSeen bool
	// settingsReplicationSent: AWS accepted Tether's enabling of the
	// table's settings replication (multiaccount.go).
	settingsReplicationSent bool
	// joinRefused is AWS's refusal of the object's join (multiaccount.go):
	// not sent again for the same generation and source, while Tether
	// changed nothing on the source, until joinRefusedDelay has passed,
	// whatever wakes the object.
	joinRefused *joinRefusal
	// leaveRefused is AWS's refusal of the joined table's Disassociate, and
	// leaveSent AWS's acceptance of one, each for the generation it was
	// sent for (multiaccount.go): neither is sent again for that
	// generation.
	leaveRefused, leaveSent *leaveAnswer
}

// joinRefusal is AWS's refusal of a join: for which generation and source
// ARN, when, and what the condition said.
type joinRefusal struct {
	generation int64
	source     string
	// sourceChanges is sourceChangesOf(source) at the refusal.
	sourceChanges int
	at            time.Time
	err           error
}

// leaveAnswer is AWS's answer to a joined table's Disassociate: for which
// generation, and for a refusal AWS's words.
type leaveAnswer struct {
	generation int64
	words      string
}

// policyChange is Tether's last change of the policy.
type policyChange struct {
	revision string // "" after a delete
	anyDoc   bool   // after CreateTable with a policy: its revision is not known
	at       time.Time
}

// objectFingerprint is what the user controls of an object: its spec
// generation and annotations (Tether's own create-started note aside).
func objectFingerprint(obj *awsv1alpha1.DynamoDBTable) string {
	annotations := maps.Clone(obj.Annotations)
	delete(annotations, commonv1alpha1.AnnotationCreateStarted)
	return fmt.Sprint(obj.Generation, annotations)
}

func (m *memory) toldDenied(obj *awsv1alpha1.DynamoDBTable) { m.toldDeniedAt = objectFingerprint(obj) }

// mayRetryDenied says whether the object changed since it was told of a
// refusal: a change is the user's way of saying "try again".
func (m *memory) mayRetryDenied(obj *awsv1alpha1.DynamoDBTable) bool {
	return m.toldDeniedAt != "" && m.toldDeniedAt != objectFingerprint(obj)
}

// afterSent updates what the adapter knows of a feature it just changed.
// Tags are eventually consistent on AWS (ListTagsOfResource may not show a
// new tag for a while): re-reading them at once would resend the same tags
// and trip the stall breaker, so the cached tags take the change instead,
// and the next real read is at the usual interval. Other features are read
// again at the next Observe.
func (m *memory) afterSent(step plan.Step) {
	switch {
	case step.Tags != nil && m.reads.Tags != nil:
		for _, t := range step.Tags {
			m.reads.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	case step.UntagKeys != nil && m.reads.Tags != nil:
		for _, k := range step.UntagKeys {
			delete(m.reads.Tags, k)
		}
	case step.Register != nil || step.ScalingPolicy != nil || step.Deregister != nil:
		// sendScaling updated the cached read (see there).
	default:
		m.readAgain(plan.FeatureOf(step.Kind))
	}
}

// readAgain makes the next look read a feature again.
func (m *memory) readAgain(feature string) { delete(m.readAt, feature) }

// forgetAllSecondary makes the next look read every feature again.
func (m *memory) forgetAllSecondary() { m.readAt = map[string]time.Time{} }

// memories are the objects' memories, by UID.
type memories struct {
	mu    sync.Mutex
	byUID map[apitypes.UID]*memory
}

// of is the memory of the object uid, made on first use.
func (ms *memories) of(uid apitypes.UID) *memory {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.byUID == nil {
		ms.byUID = map[apitypes.UID]*memory{}
	}
	m, ok := ms.byUID[uid]
	if !ok {
		m = &memory{readAt: map[string]time.Time{}, warned: map[string]bool{}, insightsEnabled: map[string]string{},
			kinesisEnabled: map[string]string{}, disassociationRefused: map[string]disassociationRefusal{}}
		ms.byUID[uid] = m
	}
	return m
}

func (ms *memories) forget(uid apitypes.UID) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.byUID, uid)
}

// disassociationRefusal is AWS's refusal of a call for one fingerprint of the object.
type disassociationRefusal struct{ fingerprint, words string }

func metaNow() metav1.Time { return metav1.NewTime(time.Now()) }
