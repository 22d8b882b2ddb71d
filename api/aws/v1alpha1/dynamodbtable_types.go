package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
)

// Annotations only DynamoDBTable reads.
const (
	// AnnotationAdopt set to "true" lets Tether take over a table that already
	// exists and that it did not create.
	AnnotationAdopt = "tether.dev/adopt"
	// AnnotationAllowIndexReplacement set to "true" lets Tether delete and
	// re-create a global secondary index whose key schema, key attribute
	// types or projection changed. Without it such a change is refused, because the index is
	// unusable while it is rebuilt.
	AnnotationAllowIndexReplacement = "tether.dev/allow-index-replacement"
	// AnnotationDeleteAdopted set to "true" lets deleting the object delete
	// a table it adopted (deletionPolicy Delete). Without it an adopted
	// table is left in place when the object goes: adoption alone never
	// lets Tether delete what it did not create.
	AnnotationDeleteAdopted = "tether.dev/delete-adopted"
)

// Values of the enumerations, as AWS spells them.
const (
	BillingModePayPerRequest = "PAY_PER_REQUEST"
	BillingModeProvisioned   = "PROVISIONED"

	DeletionPolicyDelete = "Delete"
	DeletionPolicyRetain = "Retain"
)

// DynamoDBTableSpec is an AWS::DynamoDB::Table. Field names follow the
// CloudFormation properties in lowerCamelCase.
// +kubebuilder:validation:XValidation:rule="self.keySchema.all(k, self.attributeDefinitions.exists(a, a.attributeName == k.attributeName))",message="every keySchema attributeName must be defined in attributeDefinitions"
// +kubebuilder:validation:XValidation:rule="!has(self.globalSecondaryIndexes) || self.globalSecondaryIndexes.all(g, g.keySchema.all(k, self.attributeDefinitions.exists(a, a.attributeName == k.attributeName)))",message="every globalSecondaryIndexes keySchema attributeName must be defined in attributeDefinitions"
// +kubebuilder:validation:XValidation:rule="!has(self.localSecondaryIndexes) || self.localSecondaryIndexes.all(l, l.keySchema.all(k, self.attributeDefinitions.exists(a, a.attributeName == k.attributeName)))",message="every localSecondaryIndexes keySchema attributeName must be defined in attributeDefinitions"
// +kubebuilder:validation:XValidation:rule="self.attributeDefinitions.all(a, self.keySchema.exists(k, k.attributeName == a.attributeName) || (has(self.globalSecondaryIndexes) && self.globalSecondaryIndexes.exists(g, g.keySchema.exists(k, k.attributeName == a.attributeName))) || (has(self.localSecondaryIndexes) && self.localSecondaryIndexes.exists(l, l.keySchema.exists(k, k.attributeName == a.attributeName))) || (has(self.vectorIndexes) && self.vectorIndexes.exists(v, has(v.searchSchema) && v.searchSchema.exists(e, e.attributeName == a.attributeName))))",message="attributeDefinitions may only list attributes used in a key schema of the table or of an index, or in a vector index's searchSchema (DynamoDB rejects unused definitions)"
// +kubebuilder:validation:XValidation:rule="self.billingMode != 'PROVISIONED' || has(self.provisionedThroughput)",message="provisionedThroughput is required when billingMode is PROVISIONED"
// +kubebuilder:validation:XValidation:rule="self.billingMode != 'PAY_PER_REQUEST' || !has(self.provisionedThroughput)",message="provisionedThroughput must not be set when billingMode is PAY_PER_REQUEST"
// +kubebuilder:validation:XValidation:rule="self.billingMode != 'PROVISIONED' || !has(self.globalSecondaryIndexes) || self.globalSecondaryIndexes.all(g, has(g.provisionedThroughput))",message="every global secondary index needs provisionedThroughput when billingMode is PROVISIONED"
// +kubebuilder:validation:XValidation:rule="self.billingMode != 'PAY_PER_REQUEST' || !has(self.globalSecondaryIndexes) || self.globalSecondaryIndexes.all(g, !has(g.provisionedThroughput))",message="global secondary indexes must not set provisionedThroughput when billingMode is PAY_PER_REQUEST"
// +kubebuilder:validation:XValidation:rule="!has(self.localSecondaryIndexes) || self.keySchema.exists(k, k.keyType == 'RANGE')",message="localSecondaryIndexes need a table keySchema with a RANGE key"
// +kubebuilder:validation:XValidation:rule="!has(self.localSecondaryIndexes) || self.localSecondaryIndexes.all(l, l.keySchema.exists(lk, lk.keyType == 'HASH' && self.keySchema.exists(k, k.keyType == 'HASH' && k.attributeName == lk.attributeName)))",message="every local secondary index must use the table's HASH key as its HASH key"
// +kubebuilder:validation:XValidation:rule="!has(self.localSecondaryIndexes) || !has(self.globalSecondaryIndexes) || self.localSecondaryIndexes.all(l, !self.globalSecondaryIndexes.exists(g, g.indexName == l.indexName))",message="index names must be unique across globalSecondaryIndexes and localSecondaryIndexes"
// +kubebuilder:validation:XValidation:rule="has(self.tableName) == has(oldSelf.tableName)",message="tableName cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.region) == has(oldSelf.region)",message="region cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.accountRef) == has(oldSelf.accountRef)",message="accountRef cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.writeOutputsTo) || (has(self.writeOutputsTo) && self.writeOutputsTo == oldSelf.writeOutputsTo)",message="writeOutputsTo can be added, but not changed or removed (the ConfigMap Tether created is removed with the object)"
// +kubebuilder:validation:XValidation:rule="has(self.localSecondaryIndexes) == has(oldSelf.localSecondaryIndexes)",message="localSecondaryIndexes cannot be added or removed after creation (DynamoDB only creates them with the table)"
// +kubebuilder:validation:XValidation:rule="oldSelf.attributeDefinitions.all(o, !self.keySchema.exists(k, k.attributeName == o.attributeName) || self.attributeDefinitions.exists(a, a.attributeName == o.attributeName && a.attributeType == o.attributeType))",message="the attributeType of a table key attribute cannot change after creation (DynamoDB cannot change a key's type): keep the type it had, or declare a new table"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.localSecondaryIndexes) || oldSelf.attributeDefinitions.all(o, !oldSelf.localSecondaryIndexes.exists(l, l.keySchema.exists(k, k.attributeName == o.attributeName)) || self.attributeDefinitions.exists(a, a.attributeName == o.attributeName && a.attributeType == o.attributeType))",message="the attributeType of a local secondary index key attribute cannot change after creation (DynamoDB cannot change a key's type): keep the type it had, or declare a new table"
// +kubebuilder:validation:XValidation:rule="has(self.restoreFrom) == has(oldSelf.restoreFrom)",message="restoreFrom cannot be added or removed after creation (a restore only creates a table)"
// +kubebuilder:validation:XValidation:rule="has(self.importFrom) == has(oldSelf.importFrom)",message="importFrom cannot be added or removed after creation (an import only creates a table)"
// +kubebuilder:validation:XValidation:rule="!has(self.importFrom) || !has(self.restoreFrom)",message="importFrom and restoreFrom cannot both create the table"
// +kubebuilder:validation:XValidation:rule="!has(self.importFrom) || !has(self.localSecondaryIndexes)",message="importFrom cannot create localSecondaryIndexes (ImportTable takes none, and DynamoDB adds them only at creation)"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || size(self.replicas) == 0 || (has(self.streamSpecification) && self.streamSpecification.streamViewType == 'NEW_AND_OLD_IMAGES')",message="replicas need streamSpecification.streamViewType NEW_AND_OLD_IMAGES (global tables replicate through the stream)"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || size(self.replicas) == 0 || self.billingMode != 'PROVISIONED' || (has(self.autoScaling) && has(self.autoScaling.write) && (!has(self.globalSecondaryIndexes) || self.globalSecondaryIndexes.all(g, has(g.autoScaling) && has(g.autoScaling.write))))",message="replicas of a PROVISIONED table need autoScaling.write on the table and on every global secondary index (AWS requires on-demand capacity or write autoscaling for global tables)"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.region) || self.replicas.all(r, r.regionName != self.region)",message="replicas must not name the table's own region"
// +kubebuilder:validation:XValidation:rule="!has(self.disassociateReplicas) || !has(self.region) || self.disassociateReplicas.all(r, r.regionName != self.region)",message="disassociateReplicas must not name the table's own region (a table disassociates only its replicas)"
// +kubebuilder:validation:XValidation:rule="!has(self.disassociationProtectionEnabled) || (has(self.replicas) && size(self.replicas) > 0) || has(self.globalTableSource)",message="disassociationProtectionEnabled needs replicas or a globalTableSource (AWS has disassociation protection only on a replica of a global table)"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableWitness) || (has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG')",message="globalTableWitness needs multiRegionConsistency STRONG (AWS has witnesses only in multi-Region strong consistency global tables)"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || (has(self.replicas) && ((size(self.replicas) == 2 && !has(self.globalTableWitness)) || (size(self.replicas) == 1 && has(self.globalTableWitness))))",message="multiRegionConsistency STRONG needs exactly two replicas, or one replica and a globalTableWitness (AWS's MRSC: three Regions with the table's own)"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableWitness) || !has(self.replicas) || self.replicas.all(r, r.regionName != self.globalTableWitness.regionName)",message="globalTableWitness must not be in a replica's Region"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableWitness) || !has(self.region) || self.globalTableWitness.regionName != self.region",message="globalTableWitness must not be in the table's own region"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || ((!has(self.region) || self.region != 'us-west-1') && (!has(self.replicas) || self.replicas.all(r, r.regionName != 'us-west-1')) && (!has(self.globalTableWitness) || self.globalTableWitness.regionName != 'us-west-1'))",message="multiRegionConsistency STRONG is not available in us-west-1 (AWS answers Unsupported Region(s))"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || (!has(self.importFrom) && !has(self.restoreFrom))",message="multiRegionConsistency STRONG needs a table created empty: AWS makes a STRONG global table only of an empty table, so not with importFrom or restoreFrom"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || !has(self.localSecondaryIndexes) || size(self.localSecondaryIndexes) == 0",message="multiRegionConsistency STRONG cannot have localSecondaryIndexes (AWS: local secondary indexes are not supported for MRSC global tables)"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || !has(self.timeToLiveSpecification) || !self.timeToLiveSpecification.enabled",message="multiRegionConsistency STRONG cannot have timeToLiveSpecification enabled (AWS: Time to Live is not supported for MRSC global tables)"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || (!has(self.disassociateReplicas) && !has(self.disassociationProtectionEnabled))",message="disassociateReplicas and disassociationProtectionEnabled are for multiRegionConsistency EVENTUAL only (AWS disassociates replicas of eventual consistency global tables only)"
// +kubebuilder:validation:XValidation:rule="!(has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') || (has(oldSelf.multiRegionConsistency) && oldSelf.multiRegionConsistency == 'STRONG') || !has(oldSelf.replicas) || size(oldSelf.replicas) == 0",message="multiRegionConsistency cannot become STRONG on a table with replicas: AWS sets it only as the global table is created; remove the replicas first, then declare STRONG with its replicas"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.multiRegionConsistency) || oldSelf.multiRegionConsistency != 'STRONG' || ((has(self.multiRegionConsistency) && self.multiRegionConsistency == 'STRONG') && has(self.replicas) && has(oldSelf.replicas) && size(self.replicas) == size(oldSelf.replicas) && self.replicas.all(r, oldSelf.replicas.exists(o, o.regionName == r.regionName)) && has(self.globalTableWitness) == has(oldSelf.globalTableWitness) && (!has(self.globalTableWitness) || self.globalTableWitness.regionName == oldSelf.globalTableWitness.regionName)) || ((!has(self.multiRegionConsistency) || self.multiRegionConsistency != 'STRONG') && (!has(self.replicas) || size(self.replicas) == 0) && !has(self.globalTableWitness))",message="a multiRegionConsistency STRONG global table is frozen: its replicas' Regions, its globalTableWitness and its consistency cannot change, except by removing every replica, the witness and multiRegionConsistency STRONG together (AWS then makes it a single-Region table)"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.billingMode == 'PROVISIONED' || self.replicas.all(r, !has(r.provisionedThroughputOverride) && (!has(r.globalSecondaryIndexes) || r.globalSecondaryIndexes.all(i, !has(i.provisionedThroughputOverride))))",message="a replica's provisionedThroughputOverride needs billingMode PROVISIONED"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.billingMode == 'PAY_PER_REQUEST' || self.replicas.all(r, !has(r.onDemandThroughputOverride) && (!has(r.globalSecondaryIndexes) || r.globalSecondaryIndexes.all(i, !has(i.onDemandThroughputOverride))))",message="a replica's onDemandThroughputOverride needs billingMode PAY_PER_REQUEST"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || self.replicas.all(r, !has(r.globalSecondaryIndexes) || r.globalSecondaryIndexes.all(i, has(self.globalSecondaryIndexes) && self.globalSecondaryIndexes.exists(g, g.indexName == i.indexName)))",message="a replica's globalSecondaryIndexes must name indexes of the table"
// +kubebuilder:validation:XValidation:rule="self.billingMode == 'PAY_PER_REQUEST' || (!has(self.onDemandThroughput) && (!has(self.globalSecondaryIndexes) || self.globalSecondaryIndexes.all(g, !has(g.onDemandThroughput))))",message="onDemandThroughput needs billingMode PAY_PER_REQUEST"
// +kubebuilder:validation:XValidation:rule="self.billingMode == 'PROVISIONED' || (!has(self.autoScaling) && (!has(self.globalSecondaryIndexes) || self.globalSecondaryIndexes.all(g, !has(g.autoScaling))))",message="autoScaling needs billingMode PROVISIONED"
// +kubebuilder:validation:XValidation:rule="has(self.globalTableSource) == has(oldSelf.globalTableSource)",message="globalTableSource cannot be added or removed after creation (a table joins a global table only when it is created)"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableSource) || (!has(self.restoreFrom) && !has(self.importFrom))",message="a table that joins a globalTableSource is created by the join: not by restoreFrom or importFrom"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableSource) || (!has(self.globalSecondaryIndexes) && !has(self.localSecondaryIndexes) && (!has(self.vectorIndexes) || size(self.vectorIndexes) == 0))",message="a table that joins a globalTableSource takes its indexes from the source (settings replication): declare none"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableSource) || (self.billingMode != 'PROVISIONED' && !has(self.provisionedThroughput) && !has(self.onDemandThroughput) && !has(self.warmThroughput) && !has(self.autoScaling))",message="a table that joins a globalTableSource takes its billing mode, capacity, on-demand and warm throughput and autoscaling from the source (settings replication): declare none (billingMode's default is not applied)"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableSource) || (!has(self.timeToLiveSpecification) && (!has(self.streamSpecification) || self.streamSpecification.streamViewType == 'NEW_AND_OLD_IMAGES'))",message="a table that joins a globalTableSource takes its TTL and stream from the source (settings replication; global tables stream NEW_AND_OLD_IMAGES)"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableSource) || ((!has(self.replicas) || size(self.replicas) == 0) && !has(self.disassociateReplicas))",message="a table that joins a globalTableSource is a member of the source's global table: it declares no replicas of its own"
// +kubebuilder:validation:XValidation:rule="!has(self.globalTableSource) || (!has(self.globalTableWitness) && (!has(self.multiRegionConsistency) || self.multiRegionConsistency != 'STRONG'))",message="a table that joins a globalTableSource cannot be STRONG nor have a witness (multi-account global tables are of eventual consistency only)"
// +kubebuilder:validation:XValidation:rule="!has(self.vectorIndexes) || size(self.vectorIndexes) == 0 || self.billingMode == 'PAY_PER_REQUEST'",message="vectorIndexes need billingMode PAY_PER_REQUEST (DynamoDB has vector indexes on on-demand tables only)"
// +kubebuilder:validation:XValidation:rule="!has(self.vectorIndexes) || self.vectorIndexes.all(v, !self.attributeDefinitions.exists(a, a.attributeName == v.vectorAttribute.attributeName))",message="a vector index's vectorAttribute must not be in attributeDefinitions (DynamoDB refuses a vector attribute declared there)"
// +kubebuilder:validation:XValidation:rule="!has(self.vectorIndexes) || self.vectorIndexes.all(v, !has(v.searchSchema) || v.searchSchema.all(e, self.attributeDefinitions.exists(a, a.attributeName == e.attributeName)))",message="every vector index searchSchema attributeName must be defined in attributeDefinitions (DynamoDB needs its type)"
// +kubebuilder:validation:XValidation:rule="!has(self.vectorIndexes) || self.vectorIndexes.all(v, self.vectorIndexes.all(w, v.vectorAttribute.attributeName != w.vectorAttribute.attributeName || v.dimensions == w.dimensions))",message="vector indexes on the same vectorAttribute must have the same dimensions"
type DynamoDBTableSpec struct {
	// TableName is the DynamoDB table name; metadata.name when empty.
	// It cannot change after creation.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="tableName cannot be changed after creation"
	TableName string `json:"tableName,omitempty"`

	// Region is the AWS region; the operator's default region when empty.
	// It cannot change after creation.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="region cannot be changed after creation"
	Region string `json:"region,omitempty"`

	// AccountRef names the AWSAccount (cluster-scoped) whose role Tether
	// assumes for this table; it must admit this namespace. When absent,
	// the namespace's aws.tether.dev/account annotation names it; with
	// neither, the operator's own identity is used. It cannot change after
	// creation.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="accountRef cannot be changed after creation"
	AccountRef *AccountReference `json:"accountRef,omitempty"`

	// WriteOutputsTo names a ConfigMap in this namespace that Tether creates,
	// owns and keeps current with what applications need to reach the
	// table (TABLE_NAME, TABLE_ARN, TABLE_STREAM_ARN, AWS_REGION,
	// AWS_ACCOUNT_ID, AWS_ENDPOINT_URL_DYNAMODB when the account sets an
	// endpoint), for a Deployment's envFrom. It is removed with the object.
	// +optional
	WriteOutputsTo *OutputsReference `json:"writeOutputsTo,omitempty"`

	// AttributeDefinitions declares the type of every attribute used in a key
	// schema of the table or of an index. The type of a table or local
	// secondary index key attribute cannot change after creation; that of a
	// global secondary index key attribute means replacing the index (see
	// the tether.dev/allow-index-replacement annotation).
	// +listType=map
	// +listMapKey=attributeName
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	AttributeDefinitions []AttributeDefinition `json:"attributeDefinitions"`

	// KeySchema is the table's primary key: one HASH key, then at most one
	// RANGE key. It cannot change after creation.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="keySchema cannot be changed after creation"
	KeySchema KeySchema `json:"keySchema"`

	// BillingMode is PAY_PER_REQUEST (on demand) or PROVISIONED.
	// +optional
	// +kubebuilder:default=PAY_PER_REQUEST
	// +kubebuilder:validation:Enum=PAY_PER_REQUEST;PROVISIONED
	BillingMode string `json:"billingMode,omitempty"`

	// ProvisionedThroughput is required when billingMode is PROVISIONED and
	// not allowed otherwise.
	// +optional
	ProvisionedThroughput *ProvisionedThroughput `json:"provisionedThroughput,omitempty"`

	// GlobalSecondaryIndexes are added and removed one at a time, in order.
	// +optional
	// +listType=map
	// +listMapKey=indexName
	// +kubebuilder:validation:MaxItems=20
	GlobalSecondaryIndexes []GlobalSecondaryIndex `json:"globalSecondaryIndexes,omitempty"`

	// VectorIndexes are the table's vector indexes (PAY_PER_REQUEST tables
	// only), at most five: created with the table or one per update, and
	// removed from the table when removed from the spec. A vector index
	// cannot change once declared. See VectorIndex.
	// +optional
	// +listType=map
	// +listMapKey=indexName
	// +kubebuilder:validation:MaxItems=5
	VectorIndexes []VectorIndex `json:"vectorIndexes,omitempty"`

	// LocalSecondaryIndexes can only be declared when the table is created.
	// +optional
	// +listType=map
	// +listMapKey=indexName
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="localSecondaryIndexes cannot be changed after creation"
	LocalSecondaryIndexes []LocalSecondaryIndex `json:"localSecondaryIndexes,omitempty"`

	// StreamSpecification turns on DynamoDB Streams; absent means no stream.
	// +optional
	StreamSpecification *StreamSpecification `json:"streamSpecification,omitempty"`

	// TimeToLiveSpecification is left alone when absent.
	// +optional
	TimeToLiveSpecification *TimeToLiveSpecification `json:"timeToLiveSpecification,omitempty"`

	// PointInTimeRecoverySpecification is left alone when absent.
	// +optional
	PointInTimeRecoverySpecification *PointInTimeRecoverySpecification `json:"pointInTimeRecoverySpecification,omitempty"`

	// SSESpecification is left alone when absent.
	// +optional
	SSESpecification *SSESpecification `json:"sseSpecification,omitempty"`

	// TableClass is left alone when empty.
	// +optional
	// +kubebuilder:validation:Enum=STANDARD;STANDARD_INFREQUENT_ACCESS
	TableClass string `json:"tableClass,omitempty"`

	// DeletionProtectionEnabled is left alone when absent. While it is true,
	// deleting the object does not delete the table: turn it off first.
	// +optional
	DeletionProtectionEnabled *bool `json:"deletionProtectionEnabled,omitempty"`

	// Tags are applied to the table; tags Tether did not set are left alone.
	// +optional
	// +kubebuilder:validation:MaxProperties=45
	Tags map[string]string `json:"tags,omitempty"`

	// Replicas make the table a global table (version 2019.11.21): one
	// replica is added or removed per update (a strongly consistent
	// table's all in one), once the stream
	// (NEW_AND_OLD_IMAGES) and capacity mode it needs are in place. Replicas
	// Tether did not add and the spec does not name are left alone.
	// +optional
	// +listType=map
	// +listMapKey=regionName
	// +kubebuilder:validation:MaxItems=16
	Replicas []Replica `json:"replicas,omitempty"`

	// DisassociateReplicas are the replicas kept as tables of their own,
	// not deleted, when spec.replicas stops naming them (see
	// ReplicaDisassociation). Listing a Region the spec still names only
	// says what its removal will do.
	// +optional
	// +listType=map
	// +listMapKey=regionName
	// +kubebuilder:validation:MaxItems=16
	DisassociateReplicas []ReplicaDisassociation `json:"disassociateReplicas,omitempty"`

	// DisassociationProtectionEnabled is the table's own disassociation
	// protection as a replica of a global table (multi-Region eventual
	// consistency): while on (AWS's default), AWS refuses to disassociate
	// it. Left alone when absent; set on its own in an UpdateTable
	// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html).
	// AWS has it only on a global table, so it needs replicas or a
	// globalTableSource.
	// +optional
	DisassociationProtectionEnabled *bool `json:"disassociationProtectionEnabled,omitempty"`

	// MultiRegionConsistency is the global table's consistency: EVENTUAL
	// (absent, AWS's default) or STRONG (multi-Region strong consistency,
	// MRSC). AWS makes a STRONG global table only one way, which Tether
	// follows: an empty single-Region table first, then one UpdateTable
	// that adds both replicas, or the one replica and the witness, and
	// nothing else. STRONG needs exactly two replicas, or one replica and a
	// globalTableWitness, and cannot change afterwards: the only way out is
	// to remove every replica, the witness and this field together. A
	// STRONG table has no local secondary indexes and no Time to Live: the
	// same page says AWS supports neither for MRSC global tables
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html).
	// +optional
	// +kubebuilder:validation:Enum=EVENTUAL;STRONG
	MultiRegionConsistency string `json:"multiRegionConsistency,omitempty"`

	// GlobalTableWitness is the witness Region of a STRONG global table
	// with one replica; it cannot change afterwards.
	// +optional
	GlobalTableWitness *GlobalTableWitness `json:"globalTableWitness,omitempty"`

	// OnDemandThroughput caps a PAY_PER_REQUEST table's request units; left
	// alone when absent.
	// +optional
	OnDemandThroughput *OnDemandThroughput `json:"onDemandThroughput,omitempty"`

	// WarmThroughput is the least throughput the table must serve at once
	// (raised when below, never lowered); left alone when absent.
	// +optional
	WarmThroughput *WarmThroughput `json:"warmThroughput,omitempty"`

	// ContributorInsightsSpecification is left alone when absent.
	// +optional
	ContributorInsightsSpecification *ContributorInsightsSpecification `json:"contributorInsightsSpecification,omitempty"`

	// ResourcePolicy is the table's resource-based policy, an IAM policy
	// document (at most 20 KB as JSON). It is compared as JSON, not as text.
	// A policy Tether attached is removed when the field is removed; one it
	// did not attach is left alone.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +kubebuilder:validation:Schemaless
	ResourcePolicy *runtime.RawExtension `json:"resourcePolicy,omitempty"`

	// AutoScaling puts the table's provisioned capacity under Application
	// Auto Scaling (PROVISIONED tables only).
	// +optional
	AutoScaling *AutoScaling `json:"autoScaling,omitempty"`

	// KinesisStreamingDestination streams the table's changes to a Kinesis
	// data stream; removing it disables the destination Tether enabled.
	// +optional
	KinesisStreamingDestination *KinesisStreamingDestination `json:"kinesisStreamingDestination,omitempty"`

	// RestoreFrom creates the table by restoring a point in time of another
	// table or a backup, whenever Tether creates it; what a restore cannot
	// set (stream, TTL, point-in-time recovery, tags, ...) follows as
	// updates. It cannot change after creation.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="restoreFrom cannot be changed after creation"
	RestoreFrom *RestoreSource `json:"restoreFrom,omitempty"`

	// ImportFrom creates the table by importing data from Amazon S3
	// (ImportTable) instead of CreateTable; the import's progress is in
	// status.import. It only creates the table: it cannot be added,
	// changed or removed afterwards.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="importFrom cannot be changed after creation (an import only creates a table)"
	ImportFrom *ImportSource `json:"importFrom,omitempty"`

	// GlobalTableSource makes the table a replica of a table in another AWS
	// account (a multi-account global table), created by joining it. The
	// key schema and attribute definitions must be the source's (AWS takes
	// them from the source; Tether sends neither and names a difference in
	// the Ready condition); billing, capacity, indexes, TTL and the stream
	// are the source's (settings replication) and cannot be declared. Its
	// source cannot change after creation.
	// +optional
	GlobalTableSource *GlobalTableSource `json:"globalTableSource,omitempty"`

	// DeletionPolicy says what deleting the object does to the table:
	// Delete (the default) deletes it, Retain leaves it in place.
	// +optional
	// +kubebuilder:default=Delete
	// +kubebuilder:validation:Enum=Delete;Retain
	DeletionPolicy string `json:"deletionPolicy,omitempty"`
}

// AccountReference names an AWSAccount.
type AccountReference struct {
	// Name is the AWSAccount's name (AWSAccounts are cluster-wide).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// OutputsReference names the object Tether writes a table's outputs to.
type OutputsReference struct {
	// Kind is ConfigMap: nothing in the outputs is secret, and a ConfigMap
	// needs no access to Secrets.
	// +optional
	// +kubebuilder:default=ConfigMap
	// +kubebuilder:validation:Enum=ConfigMap
	Kind string `json:"kind,omitempty"`
	// Name of the ConfigMap in the table's namespace; it must not exist
	// already (Tether never writes into an object it did not create).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Name string `json:"name"`
}

// KeySchema is a HASH key, then optionally a RANGE key, as DynamoDB requires
// of a table's key (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html:
// exactly one HASH element, then at most one RANGE element; only global
// secondary indexes take keys of several attributes).
// +listType=atomic
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=2
// +kubebuilder:validation:XValidation:rule="self[0].keyType == 'HASH'",message="keySchema must start with the HASH key"
// +kubebuilder:validation:XValidation:rule="self.filter(k, k.keyType == 'HASH').size() == 1",message="keySchema must have exactly one HASH key"
// +kubebuilder:validation:XValidation:rule="self.filter(k, k.keyType == 'RANGE').size() <= 1",message="keySchema may have at most one RANGE key"
// +kubebuilder:validation:XValidation:rule="self.size() < 2 || self[0].attributeName != self[1].attributeName",message="keySchema cannot use the same attribute as HASH and RANGE key"
type KeySchema []KeySchemaElement

// AttributeDefinition is the name and scalar type of a key attribute.
type AttributeDefinition struct {
	// AttributeName is the attribute's name, as items hold it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	AttributeName string `json:"attributeName"`
	// AttributeType is S (string), N (number) or B (binary).
	// +kubebuilder:validation:Enum=S;N;B
	AttributeType string `json:"attributeType"`
}

// KeySchemaElement is one key attribute and its role.
type KeySchemaElement struct {
	// AttributeName names an attribute of attributeDefinitions.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	AttributeName string `json:"attributeName"`
	// KeyType is HASH (partition key) or RANGE (sort key).
	// +kubebuilder:validation:Enum=HASH;RANGE
	KeyType string `json:"keyType"`
}

// ProvisionedThroughput is the capacity of a PROVISIONED table or index.
type ProvisionedThroughput struct {
	// ReadCapacityUnits is the provisioned reads per second (strongly
	// consistent, up to 4 KB each).
	// +kubebuilder:validation:Minimum=1
	ReadCapacityUnits int64 `json:"readCapacityUnits"`
	// WriteCapacityUnits is the provisioned writes per second (up to 1 KB
	// each).
	// +kubebuilder:validation:Minimum=1
	WriteCapacityUnits int64 `json:"writeCapacityUnits"`
}

// Projection says which attributes an index copies.
// +kubebuilder:validation:XValidation:rule="!has(self.projectionType) || self.projectionType != 'INCLUDE' || (has(self.nonKeyAttributes) && size(self.nonKeyAttributes) > 0)",message="nonKeyAttributes is required when projectionType is INCLUDE"
// +kubebuilder:validation:XValidation:rule="(has(self.projectionType) && self.projectionType == 'INCLUDE') || !has(self.nonKeyAttributes)",message="nonKeyAttributes is only allowed when projectionType is INCLUDE"
type Projection struct {
	// ProjectionType is ALL (the default), KEYS_ONLY or INCLUDE.
	// +optional
	// +kubebuilder:default=ALL
	// +kubebuilder:validation:Enum=ALL;KEYS_ONLY;INCLUDE
	ProjectionType string `json:"projectionType,omitempty"`
	// NonKeyAttributes are the extra attributes an INCLUDE index copies.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	NonKeyAttributes []string `json:"nonKeyAttributes,omitempty"`
}

// GlobalSecondaryIndex is an index with its own key, added or removed at any
// time. A change of its keySchema or projection means deleting and
// re-creating it (see the tether.dev/allow-index-replacement annotation).
type GlobalSecondaryIndex struct {
	// IndexName is the index's name, unique within the table; Tether tells its
	// indexes from others by it.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	IndexName string `json:"indexName"`
	// KeySchema is the index's partition key (HASH) of one to four
	// attributes, then its optional sort key (RANGE) of up to four, each an
	// attribute of attributeDefinitions.
	KeySchema IndexKeySchema `json:"keySchema"`
	// Projection defaults to ALL.
	// +optional
	// +kubebuilder:default={}
	Projection Projection `json:"projection,omitempty"`
	// ProvisionedThroughput is required when the table is PROVISIONED and
	// not allowed otherwise.
	// +optional
	ProvisionedThroughput *ProvisionedThroughput `json:"provisionedThroughput,omitempty"`
	// OnDemandThroughput caps the index's request units (PAY_PER_REQUEST).
	// +optional
	OnDemandThroughput *OnDemandThroughput `json:"onDemandThroughput,omitempty"`
	// WarmThroughput is the least throughput the index must serve at once.
	// +optional
	WarmThroughput *WarmThroughput `json:"warmThroughput,omitempty"`
	// ContributorInsightsSpecification is left alone when absent.
	// +optional
	ContributorInsightsSpecification *ContributorInsightsSpecification `json:"contributorInsightsSpecification,omitempty"`
	// AutoScaling puts the index's capacity under Application Auto Scaling
	// (PROVISIONED tables only).
	// +optional
	AutoScaling *AutoScaling `json:"autoScaling,omitempty"`
}

// LocalSecondaryIndex shares the table's HASH key with another RANGE key.
type LocalSecondaryIndex struct {
	// IndexName is the index's name, unique within the table.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	IndexName string `json:"indexName"`
	// KeySchema is the table's partition key (HASH) and the index's own sort
	// key (RANGE).
	// +kubebuilder:validation:XValidation:rule="self.size() == 2",message="a local secondary index keySchema needs a HASH and a RANGE key"
	KeySchema KeySchema `json:"keySchema"`
	// Projection defaults to ALL.
	// +optional
	// +kubebuilder:default={}
	Projection Projection `json:"projection,omitempty"`
}

// StreamSpecification turns on DynamoDB Streams.
type StreamSpecification struct {
	// StreamViewType is what each stream record holds: KEYS_ONLY, NEW_IMAGE,
	// OLD_IMAGE or NEW_AND_OLD_IMAGES.
	// +kubebuilder:validation:Enum=KEYS_ONLY;NEW_IMAGE;OLD_IMAGE;NEW_AND_OLD_IMAGES
	StreamViewType string `json:"streamViewType"`
}

// TimeToLiveSpecification expires items by a timestamp attribute.
type TimeToLiveSpecification struct {
	// AttributeName is the attribute holding each item's expiry, in seconds
	// since the Unix epoch.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	AttributeName string `json:"attributeName"`
	// Enabled turns Time to Live on (true) or off (false); AWS allows one
	// change an hour.
	Enabled bool `json:"enabled"`
}

// PointInTimeRecoverySpecification turns continuous backups on or off.
// +kubebuilder:validation:XValidation:rule="!has(self.recoveryPeriodInDays) || self.pointInTimeRecoveryEnabled",message="recoveryPeriodInDays needs pointInTimeRecoveryEnabled: true"
type PointInTimeRecoverySpecification struct {
	// PointInTimeRecoveryEnabled turns continuous backups (point-in-time
	// recovery) on (true) or off (false).
	PointInTimeRecoveryEnabled bool `json:"pointInTimeRecoveryEnabled"`
	// RecoveryPeriodInDays is how far back the table can be restored, 1 to
	// 35 days; AWS's default (35) when absent.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=35
	RecoveryPeriodInDays *int32 `json:"recoveryPeriodInDays,omitempty"`
}

// SSESpecification chooses encryption at rest. sseEnabled false means the
// AWS owned key; true means a KMS key (the AWS managed one unless
// kmsMasterKeyId names another).
// +kubebuilder:validation:XValidation:rule="self.sseEnabled || !has(self.kmsMasterKeyId)",message="kmsMasterKeyId needs sseEnabled: true"
type SSESpecification struct {
	// SSEEnabled true encrypts with a KMS key (sseType KMS); false with a key
	// DynamoDB owns (AWS's default).
	SSEEnabled bool `json:"sseEnabled"`
	// SSEType is KMS when sseEnabled is true (the only type AWS offers).
	// +optional
	// +kubebuilder:validation:Enum=KMS
	SSEType string `json:"sseType,omitempty"`
	// KMSMasterKeyID is the KMS key (id, ARN or alias) to encrypt with; the
	// AWS managed key aws/dynamodb when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	KMSMasterKeyID string `json:"kmsMasterKeyId,omitempty"`
}

// IndexStatus is what AWS last reported for one global secondary index.
type IndexStatus struct {
	// IndexName is the index's name.
	IndexName string `json:"indexName"`
	// IndexStatus is CREATING, UPDATING, DELETING or ACTIVE.
	IndexStatus string `json:"indexStatus"`
	// Backfilling is true while DynamoDB fills a new index from the table's
	// items (hours on a large table): it is CREATING all that time.
	// +optional
	Backfilling bool `json:"backfilling,omitempty"`
}

// OutputsStatus records the ConfigMap Tether created: it only ever writes
// to the object with this UID.
type OutputsStatus struct {
	// Name is the ConfigMap Tether wrote the table's outputs to.
	Name string `json:"name"`
	// UID is that ConfigMap's uid: a ConfigMap of the same name made by
	// someone else is not Tether's to write.
	UID string `json:"uid"`
	// Checksum of the data last written, so that an unchanged table costs
	// no write.
	Checksum string `json:"checksum"`
}

// DynamoDBTableStatus is what Tether last saw of the table.
type DynamoDBTableStatus struct {
	commonv1alpha1.ManagedStatus `json:",inline"`

	// TableName is the name of the table in AWS (spec.tableName or metadata.name).
	// +optional
	TableName string `json:"tableName,omitempty"`
	// Account is the AWSAccount the table is reached through, "" for the
	// operator's own identity.
	// +optional
	Account string `json:"account,omitempty"`
	// AccountID is the AWS account the table lives in, when known.
	// +optional
	AccountID string `json:"accountID,omitempty"`
	// Region is the region the table lives in, as resolved (spec.region,
	// the AWSAccount's region, --aws-region, the AWS default chain).
	// +optional
	Region string `json:"region,omitempty"`
	// TableArn is the table's ARN, as DynamoDB reports it.
	// +optional
	TableArn string `json:"tableArn,omitempty"`
	// TableID is AWS's unique id of the table; it tells a re-created table
	// with the same name from the one Tether made.
	// +optional
	TableID string `json:"tableId,omitempty"`
	// Adopted says the table existed before this object and was taken over
	// on tether.dev/adopt: deleting the object deletes it only with
	// tether.dev/delete-adopted: "true".
	// +optional
	Adopted bool `json:"adopted,omitempty"`
	// TableStatus is CREATING, UPDATING, DELETING, ACTIVE, ...
	// +optional
	TableStatus string `json:"tableStatus,omitempty"`
	// LatestStreamArn is the ARN of the table's current stream, when it has
	// one (spec.streamSpecification).
	// +optional
	LatestStreamArn string `json:"latestStreamArn,omitempty"`
	// GlobalSecondaryIndexes as AWS reports them.
	// +optional
	// +listType=map
	// +listMapKey=indexName
	GlobalSecondaryIndexes []IndexStatus `json:"globalSecondaryIndexes,omitempty"`
	// VectorIndexes as AWS reports them.
	// +optional
	// +listType=map
	// +listMapKey=indexName
	VectorIndexes []VectorIndexStatus `json:"vectorIndexes,omitempty"`
	// Replicas of a global table as AWS reports them, one per Region.
	// +optional
	// +listType=map
	// +listMapKey=regionName
	Replicas []ReplicaStatus `json:"replicas,omitempty"`
	// AddedReplicaRegions show the replicas Tether itself added. Deleting
	// the object removes those Tether's own record says it added and those
	// the spec names, and no other, before the table; this list is shown,
	// never taken as proof.
	// +optional
	// +listType=set
	AddedReplicaRegions []string `json:"addedReplicaRegions,omitempty"`
	// ManagedReplicaRegions are the replicas Tether added or the spec names
	// and AWS has: a Region later removed from the spec is removed from the
	// table, while replicas added by others are left alone.
	// +optional
	// +listType=set
	ManagedReplicaRegions []string `json:"managedReplicaRegions,omitempty"`
	// DisassociatedReplicaRegions are the former replicas Tether
	// disassociated (spec.disassociateReplicas): each is now a table of
	// its own in its Region, with the table's name, that Tether does not
	// manage; deleting this object leaves them.
	// +optional
	// +listType=set
	DisassociatedReplicaRegions []string `json:"disassociatedReplicaRegions,omitempty"`
	// DisassociationProtectionEnabled is the table's own disassociation
	// protection as AWS reports it (only a global table has one).
	// +optional
	DisassociationProtectionEnabled *bool `json:"disassociationProtectionEnabled,omitempty"`
	// GlobalTableSourceArn is the source table spec.globalTableSource
	// resolved to, the one the join named.
	// +optional
	GlobalTableSourceArn string `json:"globalTableSourceArn,omitempty"`
	// MultiRegionConsistency is the global table's consistency as AWS
	// reports it (AWS reports only STRONG; absent otherwise).
	// +optional
	MultiRegionConsistency string `json:"multiRegionConsistency,omitempty"`
	// GlobalTableWitnesses are the witnesses of a STRONG global table as
	// AWS reports them.
	// +optional
	// +listType=map
	// +listMapKey=regionName
	GlobalTableWitnesses []GlobalTableWitnessStatus `json:"globalTableWitnesses,omitempty"`
	// ResourcePolicyRevisionID is the revision of the resource policy
	// Tether attached; it is removed with spec.resourcePolicy only while
	// this is still the table's revision.
	// +optional
	ResourcePolicyRevisionID string `json:"resourcePolicyRevisionId,omitempty"`
	// KinesisStreamingDestination is the table's Kinesis data stream
	// destination as AWS reports it: the stream spec.kinesisStreamingDestination
	// names, or while it names none, the one Tether enabled.
	// +optional
	KinesisStreamingDestination *KinesisStreamingDestinationStatus `json:"kinesisStreamingDestination,omitempty"`
	// ManagedKinesisStreamArn is the Kinesis data stream Tether enabled as
	// the table's destination: it is disabled when the spec no longer names
	// it, while a destination someone else enabled is left alone.
	// +optional
	ManagedKinesisStreamArn string `json:"managedKinesisStreamArn,omitempty"`
	// Import is the progress of the import from S3 (spec.importFrom) that
	// created the table.
	// +optional
	Import *ImportStatus `json:"import,omitempty"`
	// ManagedScalableTargets are the capacities Tether registered with
	// Application Auto Scaling ("table/read", "index/<name>/write"), so that
	// autoscaling removed from the spec is deregistered.
	// +optional
	// +listType=set
	ManagedScalableTargets []string `json:"managedScalableTargets,omitempty"`
	// PendingPlan lists the update steps still to apply, in order.
	// +optional
	PendingPlan []string `json:"pendingPlan,omitempty"`
	// UnsupportedFeatures are parts of the spec the endpoint cannot manage
	// (DynamoDB Local has no tagging and no continuous backups).
	// +optional
	UnsupportedFeatures []string `json:"unsupportedFeatures,omitempty"`
	// ManagedTagKeys are the spec tags Tether applied to the table, so that
	// a tag later removed from the spec is removed from the table too, while
	// tags set by others are left alone.
	// +optional
	// +listType=set
	ManagedTagKeys []string `json:"managedTagKeys,omitempty"`
	// Outputs is the ConfigMap Tether created for spec.writeOutputsTo.
	// +optional
	Outputs *OutputsStatus `json:"outputs,omitempty"`
	// EffectivePollInterval is set when the account and region's request
	// limiter cannot look at every table at its poll interval: about how
	// often this table is looked at instead.
	// +optional
	EffectivePollInterval string `json:"effectivePollInterval,omitempty"`
	// LastSyncTime is when the table was last found matching the spec after
	// a change (not rewritten on every poll, to spare status writes).
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty"`
}

// DynamoDBTable is an Amazon DynamoDB table managed from Kubernetes.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ddbt,categories={tether,aws}
// +kubebuilder:printcolumn:name="TABLE",type=string,JSONPath=`.status.tableName`
// +kubebuilder:printcolumn:name="STATUS",type=string,JSONPath=`.status.tableStatus`
// +kubebuilder:printcolumn:name="BILLING",type=string,JSONPath=`.spec.billingMode`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="ACCOUNT",type=string,JSONPath=`.status.accountID`,priority=1
// +kubebuilder:printcolumn:name="REGION",type=string,JSONPath=`.status.region`,priority=1
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.tableName) || (size(self.metadata.name) >= 3 && size(self.metadata.name) <= 255)",message="metadata.name is used as the table name and must be 3-255 characters; set spec.tableName otherwise"
type DynamoDBTable struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DynamoDBTableSpec `json:"spec"`
	// +kubebuilder:default:={"observedGeneration":-1}
	Status DynamoDBTableStatus `json:"status,omitempty"`
}

// Managed returns the status the generic reconciler owns.
func (t *DynamoDBTable) Managed() *commonv1alpha1.ManagedStatus { return &t.Status.ManagedStatus }

// ResolvedTableName is the name of the table in AWS.
func (t *DynamoDBTable) ResolvedTableName() string {
	if t.Spec.TableName != "" {
		return t.Spec.TableName
	}
	return t.Name
}

// DynamoDBTableList is a list of DynamoDBTables.
// +kubebuilder:object:root=true
type DynamoDBTableList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DynamoDBTable `json:"items"`
}

func init() {
	SchemeBuilder.Register(&DynamoDBTable{}, &DynamoDBTableList{})
}
