package dynamodb

import (
	"fmt"
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// memory is what the adapter remembers about one object between passes. It
// lives in memory on purpose: after a restart secondary reads are made once
// more, which costs a few calls at most.
type memory struct {
	secondary   secondaryReads
	secondaryAt map[string]time.Time // feature -> when it was read
	warned      map[string]bool      // features an event was emitted for

	// createRefused is set when CreateTable answered ResourceInUse: the
	// table that is there was made by someone else.
	createRefused bool

	// newer are the answers of the newer features' reads; policyChange is
	// Tether's last change of the resource policy (see readPolicy).
	newer        newerSecondary
	policyChange *policyChange

	// toldDeniedAt is the object's fingerprint when it was last told that
	// AWS refused its account's role: it may ask again once it changed.
	toldDeniedAt string
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

func (p *Provider) memoryOf(obj *awsv1alpha1.DynamoDBTable) *memory {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.objects[string(obj.UID)]
	if !ok {
		m = &memory{secondaryAt: map[string]time.Time{}, warned: map[string]bool{}}
		p.objects[string(obj.UID)] = m
	}
	return m
}

func (p *Provider) forget(obj *awsv1alpha1.DynamoDBTable) {
	p.clients.dropDemand(obj.UID)
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.objects, string(obj.UID))
}

func metaNow() metav1.Time { return metav1.NewTime(time.Now()) }
