package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ChangeEvents is an SQS queue that receives the DynamoDB changes of an
// account as AWS records them: CloudTrail's "AWS API Call via CloudTrail"
// events, sent to the queue by an EventBridge rule (docs/accounts.md shows
// the rule, the queue policy and the permissions). While Tether reads it, a
// table changed outside Tether is looked at within seconds of its event,
// and tables are otherwise read only every safetyInterval.
type ChangeEvents struct {
	// Queue is the queue's URL (https://sqs.<region>.amazonaws.com/<account>/<name>)
	// or ARN (arn:aws:sqs:<region>:<account>:<name>). Tether reads it as
	// this AWSAccount's role: it needs sqs:ReceiveMessage,
	// sqs:DeleteMessage and sqs:GetQueueAttributes on it.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(arn:aws[a-z-]*:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\.fifo)?|https?://[^\s/]+/[0-9]{12}/[A-Za-z0-9_-]{1,80}(\.fifo)?)$`
	Queue string `json:"queue"`

	// Region is the queue's region when neither its ARN nor its URL says
	// (a URL of another endpoint); otherwise the AWSAccount's region.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	Region string `json:"region,omitempty"`

	// Endpoint is an SQS endpoint URL to use instead of AWS's own.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	Endpoint string `json:"endpoint,omitempty"`

	// SafetyInterval is how often each table of the account is read all the
	// same while the queue is read without trouble, for the changes whose
	// event never comes (AWS delivers them best effort). Default 30m. A
	// table's tether.dev/poll-interval annotation still wins.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(h|m|s)|[0-9]+ms)+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1m') && duration(self) <= duration('24h')",message="safetyInterval must be between 1m and 24h"
	SafetyInterval *metav1.Duration `json:"safetyInterval,omitempty"`

	// EchoWindow is how long one of Tether's own calls to a table of the
	// account (UpdateTable, TagResource, ...) may take to come back through
	// the queue as its event. One that does not shows that events do not
	// reach the queue (a rule deleted, disabled or no longer matching, a
	// queue policy that refuses it, no trail logging): the tables are then
	// polled, with the reason NoEcho. AWS documents no bound on how long
	// events take; CloudTrail says about 5 minutes on average for its
	// trails. Default 15m; 5s (how often Tether checks) to 24h.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(h|m|s)|[0-9]+ms)+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('5s') && duration(self) <= duration('24h')",message="echoWindow must be between 5s and 24h"
	EchoWindow *metav1.Duration `json:"echoWindow,omitempty"`
}

// Change-feed modes, as status.changeEvents.mode names them.
const (
	// ChangeEventsModeEvents: the queue is read without trouble and
	// Tether's own calls come back through it; the account's tables are
	// read every safetyInterval and at once on an event.
	ChangeEventsModeEvents = "Events"
	// ChangeEventsModePolling: no queue, it cannot be read, or Tether's
	// own calls do not come back through it; the account's tables are
	// read every poll interval.
	ChangeEventsModePolling = "Polling"
)

// ConditionChangeEvents is True while the account's change feed is read
// without trouble (mode Events).
const ConditionChangeEvents = "ChangeEvents"

// AWSAccountStatus is how Tether finds out about changes to the account's
// tables.
type AWSAccountStatus struct {
	// Conditions: Ready (the role can be assumed, and the change feed, if
	// any, is received) and ChangeEvents.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ChangeEvents is the state of the change feed.
	// +optional
	ChangeEvents *ChangeEventsStatus `json:"changeEvents,omitempty"`

	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ChangeEventsStatus is the state of an account's change feed.
type ChangeEventsStatus struct {
	// Mode is Events (changes arrive from the queue; tables are read every
	// safetyInterval besides) or Polling (tables are read every poll
	// interval).
	Mode string `json:"mode"`
	// Reason says why, in a word: NotConfigured, Starting, Receiving,
	// QueueNotFound, AccessDenied, EndpointError, NoAnswer, BadQueue,
	// NoEcho.
	Reason string `json:"reason"`
	// Message says why in a sentence.
	// +optional
	Message string `json:"message,omitempty"`
	// Since is when the mode began.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
	// LastEventTime is when the last event about one of Tether's tables
	// arrived (refreshed at most once a minute).
	// +optional
	LastEventTime *metav1.Time `json:"lastEventTime,omitempty"`
	// SafetyInterval is how often each table is read while the mode is
	// Events.
	// +optional
	SafetyInterval string `json:"safetyInterval,omitempty"`
}
