package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The table features newer than the classic set: global tables, throughput
// limits and warm throughput, the recovery period, a resource-based policy,
// contributor insights, restore at create and autoscaling.

// Values of the newer enumerations, as AWS spells them.
const (
	ContributorInsightsAccessedAndThrottled = "ACCESSED_AND_THROTTLED_KEYS"
	ContributorInsightsThrottled            = "THROTTLED_KEYS"
)

// OnDemandThroughput caps the request units a PAY_PER_REQUEST table or
// index may consume per second. -1 removes a cap; a field left out is left
// alone.
// +kubebuilder:validation:XValidation:rule="has(self.maxReadRequestUnits) || has(self.maxWriteRequestUnits)",message="onDemandThroughput needs maxReadRequestUnits, maxWriteRequestUnits or both"
type OnDemandThroughput struct {
	// MaxReadRequestUnits is the most read request units per second the table
	// (or index) may consume; -1 removes the cap (AWS
	// OnDemandThroughput.MaxReadRequestUnits).
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1",message="maxReadRequestUnits is -1 (no limit) or at least 1"
	MaxReadRequestUnits *int64 `json:"maxReadRequestUnits,omitempty"`
	// MaxWriteRequestUnits is the most write request units per second the
	// table (or index) may consume; -1 removes the cap (AWS
	// OnDemandThroughput.MaxWriteRequestUnits).
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1",message="maxWriteRequestUnits is -1 (no limit) or at least 1"
	MaxWriteRequestUnits *int64 `json:"maxWriteRequestUnits,omitempty"`
}

// WarmThroughput is the throughput a table or index must be able to serve
// at once. It is a floor: DynamoDB raises warm throughput by itself as the
// table grows and never lowers it, so a table reporting more than this is
// in sync; only a value below it is raised.
// +kubebuilder:validation:XValidation:rule="has(self.readUnitsPerSecond) || has(self.writeUnitsPerSecond)",message="warmThroughput needs readUnitsPerSecond, writeUnitsPerSecond or both"
type WarmThroughput struct {
	// ReadUnitsPerSecond is the read units per second the table (or index)
	// must serve at once (AWS WarmThroughput.ReadUnitsPerSecond).
	// +optional
	// +kubebuilder:validation:Minimum=1
	ReadUnitsPerSecond *int64 `json:"readUnitsPerSecond,omitempty"`
	// WriteUnitsPerSecond is the write units per second the table (or index)
	// must serve at once (AWS WarmThroughput.WriteUnitsPerSecond).
	// +optional
	// +kubebuilder:validation:Minimum=1
	WriteUnitsPerSecond *int64 `json:"writeUnitsPerSecond,omitempty"`
}

// ContributorInsightsSpecification turns CloudWatch Contributor Insights on
// or off for the table or an index. Beware: the most accessed keys show in
// plain text in CloudWatch.
// +kubebuilder:validation:XValidation:rule="!has(self.mode) || self.enabled",message="contributorInsightsSpecification.mode needs enabled: true (a mode is sent only with ENABLE)"
type ContributorInsightsSpecification struct {
	// Enabled turns Contributor Insights on (true) or off (false).
	Enabled bool `json:"enabled"`
	// Mode is what is tracked: ACCESSED_AND_THROTTLED_KEYS (AWS's default)
	// or THROTTLED_KEYS; left alone when empty.
	// +optional
	// +kubebuilder:validation:Enum=ACCESSED_AND_THROTTLED_KEYS;THROTTLED_KEYS
	Mode string `json:"mode,omitempty"`
}

// AutoScaling puts a table's or index's provisioned capacity under
// Application Auto Scaling: a scalable target with these bounds and a
// target-tracking policy. While it owns a capacity, Tether no longer
// corrects that capacity to provisionedThroughput (which then only sets the
// starting value).
// +kubebuilder:validation:XValidation:rule="has(self.read) || has(self.write)",message="autoScaling needs read, write or both"
type AutoScaling struct {
	// Read scales the read capacity; left out, the read capacity stays as
	// provisionedThroughput says.
	// +optional
	Read *ScalingPolicy `json:"read,omitempty"`
	// Write scales the write capacity; left out, the write capacity stays as
	// provisionedThroughput says.
	// +optional
	Write *ScalingPolicy `json:"write,omitempty"`
}

// ScalingPolicy is one capacity's bounds and target utilisation.
// +kubebuilder:validation:XValidation:rule="self.minCapacity <= self.maxCapacity",message="minCapacity must not exceed maxCapacity"
type ScalingPolicy struct {
	// MinCapacity is the fewest capacity units autoscaling may set.
	// +kubebuilder:validation:Minimum=1
	MinCapacity int32 `json:"minCapacity"`
	// MaxCapacity is the most capacity units autoscaling may set (40,000 at
	// most, DynamoDB's per-table default quota).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=40000
	MaxCapacity int32 `json:"maxCapacity"`
	// TargetUtilization is the share of the provisioned capacity, in
	// percent, that autoscaling keeps consumed: 20 to 90, as DynamoDB's
	// autoscaling allows.
	// +kubebuilder:validation:Minimum=20
	// +kubebuilder:validation:Maximum=90
	TargetUtilization int32 `json:"targetUtilization"`
	// ScaleInCooldownSeconds and ScaleOutCooldownSeconds are left to AWS's
	// default (0 for DynamoDB) when absent.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	ScaleInCooldownSeconds *int32 `json:"scaleInCooldownSeconds,omitempty"`
	// ScaleOutCooldownSeconds is how long, in seconds, after a scale-out
	// before another may start; AWS's default (0) when absent.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	ScaleOutCooldownSeconds *int32 `json:"scaleOutCooldownSeconds,omitempty"`
}

// Replica is one more Region of a global table (version 2019.11.21).
type Replica struct {
	// RegionName is the AWS Region the replica is in, e.g. eu-west-1.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	RegionName string `json:"regionName"`
	// KMSMasterKeyID is the replica's KMS key, in the replica's Region.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	KMSMasterKeyID string `json:"kmsMasterKeyId,omitempty"`
	// TableClassOverride is the replica's table class; the table's when empty.
	// +optional
	// +kubebuilder:validation:Enum=STANDARD;STANDARD_INFREQUENT_ACCESS
	TableClassOverride string `json:"tableClassOverride,omitempty"`
	// ProvisionedThroughputOverride is the replica's read capacity on a
	// PROVISIONED table (write capacity is the same in every Region).
	// +optional
	ProvisionedThroughputOverride *ReadCapacityOverride `json:"provisionedThroughputOverride,omitempty"`
	// OnDemandThroughputOverride caps the replica's reads on a
	// PAY_PER_REQUEST table (write caps are the same in every Region).
	// +optional
	OnDemandThroughputOverride *ReadRequestOverride `json:"onDemandThroughputOverride,omitempty"`
	// GlobalSecondaryIndexes are the replica's overrides per index.
	// +optional
	// +listType=map
	// +listMapKey=indexName
	// +kubebuilder:validation:MaxItems=20
	GlobalSecondaryIndexes []ReplicaIndex `json:"globalSecondaryIndexes,omitempty"`
}

// ReadCapacityOverride is a replica's own read capacity.
type ReadCapacityOverride struct {
	// ReadCapacityUnits is the replica's provisioned read capacity units.
	// +kubebuilder:validation:Minimum=1
	ReadCapacityUnits int64 `json:"readCapacityUnits"`
}

// ReadRequestOverride is a replica's own read request cap.
type ReadRequestOverride struct {
	// MaxReadRequestUnits is the most read request units per second the
	// replica may consume.
	// +kubebuilder:validation:Minimum=1
	MaxReadRequestUnits int64 `json:"maxReadRequestUnits"`
}

// ReplicaIndex is a replica's override for one global secondary index.
type ReplicaIndex struct {
	// IndexName is the global secondary index (of spec.globalSecondaryIndexes)
	// the override is for.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=255
	IndexName string `json:"indexName"`
	// ProvisionedThroughputOverride is the index's read capacity in this
	// replica, on a PROVISIONED table.
	// +optional
	ProvisionedThroughputOverride *ReadCapacityOverride `json:"provisionedThroughputOverride,omitempty"`
	// OnDemandThroughputOverride caps the index's reads in this replica, on a
	// PAY_PER_REQUEST table.
	// +optional
	OnDemandThroughputOverride *ReadRequestOverride `json:"onDemandThroughputOverride,omitempty"`
}

// RestoreSource says where the data of a table Tether creates comes from:
// a point in time of another table, or a backup.
// +kubebuilder:validation:XValidation:rule="has(self.pointInTime) != has(self.backupArn)",message="restoreFrom needs exactly one of pointInTime and backupArn"
type RestoreSource struct {
	// PointInTime restores from a table's continuous backups
	// (RestoreTableToPointInTime).
	// +optional
	PointInTime *PointInTimeRestore `json:"pointInTime,omitempty"`
	// BackupArn is an on-demand backup of a table.
	// +optional
	// +kubebuilder:validation:MinLength=37
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^arn:`
	BackupArn string `json:"backupArn,omitempty"`
}

// PointInTimeRestore names a table with point-in-time recovery on and the
// moment to restore.
// +kubebuilder:validation:XValidation:rule="has(self.restoreDateTime) != (has(self.useLatestRestorableTime) && self.useLatestRestorableTime)",message="pointInTime needs exactly one of restoreDateTime and useLatestRestorableTime: true"
type PointInTimeRestore struct {
	// SourceTableArn is the ARN of the table whose continuous backups to
	// restore from.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^arn:`
	SourceTableArn string `json:"sourceTableArn"`
	// RestoreDateTime is the moment to restore, within the source's point-in-
	// time recovery window; give it or useLatestRestorableTime.
	// +optional
	RestoreDateTime *metav1.Time `json:"restoreDateTime,omitempty"`
	// UseLatestRestorableTime restores the latest moment the backups hold
	// (about five minutes ago).
	// +optional
	UseLatestRestorableTime bool `json:"useLatestRestorableTime,omitempty"`
}

// ReplicaStatus is what AWS last reported for one replica.
type ReplicaStatus struct {
	// RegionName is the replica's AWS Region.
	RegionName string `json:"regionName"`
	// ReplicaStatus is CREATING, ACTIVE, UPDATING, DELETING, CREATION_FAILED,
	// REGION_DISABLED, INACCESSIBLE_ENCRYPTION_CREDENTIALS, ...
	ReplicaStatus string `json:"replicaStatus"`
	// Description is DynamoDB's ReplicaStatusDescription: why the replica is
	// in its status, when it says.
	// +optional
	Description string `json:"description,omitempty"`
	// PercentProgress is how far the replica's creation has come, as DynamoDB
	// reports it (ReplicaStatusPercentProgress).
	// +optional
	PercentProgress string `json:"percentProgress,omitempty"`
}
