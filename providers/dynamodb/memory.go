package dynamodb

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// memory is what the adapter remembers about one object between passes. It
// lives in memory on purpose: after a restart the stall breaker starts over
// and secondary reads are made once more, which costs a few calls at most.
type memory struct {
	// The last step sent, for which generation, and how often in a row.
	lastStep string
	lastGen  int64
	times    int

	secondary   secondaryReads
	secondaryAt map[string]time.Time // feature -> when it was read
	warned      map[string]bool      // features an event was emitted for

	// createRefused is set when CreateTable answered ResourceInUse: the
	// table that is there was made by someone else.
	createRefused bool
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
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.objects, string(obj.UID))
}

// timesSent is how often step was sent in a row for this generation with
// the table never catching up in between.
func (m *memory) timesSent(step Step, generation int64) int {
	if m.lastStep != step.Description || m.lastGen != generation {
		return 0
	}
	return m.times
}

func (m *memory) sent(step Step, generation int64) {
	if m.lastStep != step.Description || m.lastGen != generation {
		m.lastStep, m.lastGen, m.times = step.Description, generation, 0
	}
	m.times++
}

// resetStall is called when the table matches the spec: the last change
// became visible, so sending it again later (after drift) is no stall.
func (m *memory) resetStall() { m.lastStep, m.times = "", 0 }

func metaNow() metav1.Time { return metav1.NewTime(time.Now()) }
