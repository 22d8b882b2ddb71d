package v1alpha1

// The table features of DynamoDB as AWS ships it in 2026 (docs/dynamodb.md,
// "DynamoDB as AWS ships it in 2026").

// IndexKeySchema is a global secondary index's key: one to four HASH keys,
// then up to four RANGE keys (multi-attribute keys, AWS since November 2025:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateGlobalSecondaryIndexAction.html).
// AWS refuses the rest ("The first KeySchemaElement is not a HASH key
// type", "All HASH key attributes must precede RANGE key attributes",
// "exceeds the maximum allowed number of HASH (RANGE) key attributes"), and
// so does the API server. Each attribute is defined in attributeDefinitions
// with its own type (S, N or B). The order matters: a query names every
// HASH attribute, and RANGE attributes from the first without gaps
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html),
// so the same attributes in another order are another index (replacing it
// needs the tether.dev/allow-index-replacement annotation). Only global
// secondary indexes have such keys: the table's keySchema and a local
// secondary index's keep one HASH and at most one RANGE key.
// +listType=atomic
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=8
// +kubebuilder:validation:XValidation:rule="self[0].keyType == 'HASH'",message="keySchema must start with the HASH key"
// +kubebuilder:validation:XValidation:rule="self.map(k, k.keyType == 'RANGE').isSorted()",message="keySchema must list every HASH key before the RANGE keys"
// +kubebuilder:validation:XValidation:rule="self.filter(k, k.keyType == 'HASH').size() <= 4",message="a global secondary index keySchema may have at most four HASH keys"
// +kubebuilder:validation:XValidation:rule="self.filter(k, k.keyType == 'RANGE').size() <= 4",message="a global secondary index keySchema may have at most four RANGE keys"
// +kubebuilder:validation:XValidation:rule="self.all(a, self.exists_one(b, b.attributeName == a.attributeName))",message="keySchema cannot use the same attribute as HASH and RANGE key, nor name an attribute twice"
type IndexKeySchema []KeySchemaElement

// Precisions of the approximate creation timestamp of the records a table
// sends to a Kinesis data stream, as AWS spells them.
const (
	KinesisPrecisionMillisecond = "MILLISECOND"
	KinesisPrecisionMicrosecond = "MICROSECOND"
)

// KinesisStreamingDestination streams the table's changes to a Kinesis data
// stream (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_EnableKinesisStreamingDestination.html).
// A table has one live destination at a time: naming another stream
// disables the one the table streams to, then enables this one. Removing
// the field disables the destination Tether enabled
// (status.managedKinesisStreamArn); one it did not enable is left alone.
// AWS checks the stream only after accepting the call: a stream that does
// not exist, or is in another Region or account, ends ENABLE_FAILED, which
// the Ready condition names with AWS's reason.
type KinesisStreamingDestination struct {
	// StreamArn is the Kinesis data stream's ARN:
	// arn:<partition>:kinesis:<region>:<account>:stream/<name>, the name
	// 1-128 of a-z, A-Z, 0-9, _ . and - (AWS's own constraints on a stream
	// name, https://docs.aws.amazon.com/kinesis/latest/APIReference/API_CreateStream.html).
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.matches('^arn:aws[a-z-]*:kinesis:[a-z0-9-]+:[0-9]{12}:stream/[a-zA-Z0-9_.-]{1,128}$')",message="streamArn must be a Kinesis data stream's ARN: arn:<partition>:kinesis:<region>:<12-digit account>:stream/<name of 1-128 of a-zA-Z0-9_.->"
	StreamArn string `json:"streamArn"`
	// ApproximateCreationDateTimePrecision is the precision of each
	// record's ApproximateCreationDateTime: MILLISECOND (AWS's default) or
	// MICROSECOND; left alone when absent. A change takes AWS about two
	// minutes (UPDATING).
	// +optional
	// +kubebuilder:validation:Enum=MILLISECOND;MICROSECOND
	ApproximateCreationDateTimePrecision string `json:"approximateCreationDateTimePrecision,omitempty"`
}

// KinesisStreamingDestinationStatus is the destination as
// DescribeKinesisStreamingDestination reports it.
type KinesisStreamingDestinationStatus struct {
	// StreamArn is the Kinesis data stream's ARN.
	StreamArn string `json:"streamArn"`
	// DestinationStatus is ENABLING, ACTIVE, UPDATING, DISABLING, DISABLED
	// or ENABLE_FAILED.
	DestinationStatus string `json:"destinationStatus"`
	// DestinationStatusDescription is AWS's word on the status (its reason
	// for ENABLE_FAILED).
	// +optional
	DestinationStatusDescription string `json:"destinationStatusDescription,omitempty"`
	// ApproximateCreationDateTimePrecision as AWS reports it (MILLISECOND
	// when it reports none).
	// +optional
	ApproximateCreationDateTimePrecision string `json:"approximateCreationDateTimePrecision,omitempty"`
}

// Input formats and compressions of an import from S3, as AWS spells them
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html).
const (
	ImportFormatCSV          = "CSV"
	ImportFormatDynamoDBJSON = "DYNAMODB_JSON"
	ImportFormatION          = "ION"
)

// ImportSource creates the table by importing data from Amazon S3
// (ImportTable, https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html)
// instead of CreateTable. The import only creates a table: ImportTable
// refuses a table that exists, and it takes neither local secondary indexes
// nor streams, tags, TTL, point-in-time recovery, deletion protection, table
// class or a resource policy, which Tether sets once the import has ended.
// A failed import leaves the table with the rows that were valid: Tether
// names AWS's reason and neither deletes the table nor imports again. The
// field cannot be added, changed or removed after creation.
// +kubebuilder:validation:XValidation:rule="!has(self.inputFormatOptions) || self.inputFormat == 'CSV'",message="inputFormatOptions (csv) needs inputFormat CSV"
type ImportSource struct {
	// S3BucketSource is where the data is: the bucket, the key prefix
	// shared by every object to import, and the bucket's account.
	S3BucketSource ImportS3BucketSource `json:"s3BucketSource"`
	// InputFormat is CSV, DYNAMODB_JSON or ION.
	// +kubebuilder:validation:Enum=CSV;DYNAMODB_JSON;ION
	InputFormat string `json:"inputFormat"`
	// InputCompressionType is GZIP, ZSTD or NONE (AWS's default).
	// +optional
	// +kubebuilder:validation:Enum=GZIP;ZSTD;NONE
	InputCompressionType string `json:"inputCompressionType,omitempty"`
	// InputFormatOptions say how CSV input is read.
	// +optional
	InputFormatOptions *ImportInputFormatOptions `json:"inputFormatOptions,omitempty"`
}

// ImportS3BucketSource is AWS's S3BucketSource
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_S3BucketSource.html).
type ImportS3BucketSource struct {
	// S3Bucket is the bucket's name.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`
	S3Bucket string `json:"s3Bucket"`
	// S3KeyPrefix is the key prefix shared by every object to import (a raw
	// prefix: an export's data/ folder for a re-import); absent, the whole
	// bucket.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	S3KeyPrefix string `json:"s3KeyPrefix,omitempty"`
	// S3BucketOwner is the 12-digit account that owns the bucket, when it
	// is not the table's account.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]{12}$`
	S3BucketOwner string `json:"s3BucketOwner,omitempty"`
}

// ImportInputFormatOptions is AWS's InputFormatOptions
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_InputFormatOptions.html).
type ImportInputFormatOptions struct {
	// Csv says how CSV input is read.
	// +optional
	Csv *ImportCsvOptions `json:"csv,omitempty"`
}

// ImportCsvOptions is AWS's CsvOptions
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CsvOptions.html).
type ImportCsvOptions struct {
	// Delimiter is one of , ; : | tab or space; AWS's default is a comma.
	// +optional
	// +kubebuilder:validation:Pattern=`^[,;:|\t ]$`
	Delimiter string `json:"delimiter,omitempty"`
	// HeaderList names the columns when the files have no header line.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=255
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=65536
	HeaderList []string `json:"headerList,omitempty"`
}

// ImportStatus is the import's progress as DescribeImport reports it
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTableDescription.html).
// DescribeTable says nothing of an import, so its ARN is kept here.
type ImportStatus struct {
	// ImportArn is the import's ARN.
	ImportArn string `json:"importArn"`
	// ImportStatus is IN_PROGRESS, COMPLETED, FAILED, CANCELLING or
	// CANCELLED.
	ImportStatus string `json:"importStatus"`
	// Generation is the object's generation the import was made for.
	// +optional
	Generation int64 `json:"generation,omitempty"`
	// ProcessedItemCount is the number of items read from S3.
	// +optional
	ProcessedItemCount int64 `json:"processedItemCount,omitempty"`
	// ImportedItemCount is the number of items written to the table.
	// +optional
	ImportedItemCount int64 `json:"importedItemCount,omitempty"`
	// ErrorCount is the number of items AWS could not import.
	// +optional
	ErrorCount int64 `json:"errorCount,omitempty"`
	// FailureCode is AWS's code for FAILED.
	// +optional
	FailureCode string `json:"failureCode,omitempty"`
	// FailureMessage is AWS's reason for FAILED.
	// +optional
	FailureMessage string `json:"failureMessage,omitempty"`
}

// DisassociationModeWaitForReplication is the one DisassociationMode AWS
// defines: the replica leaves once what is pending has replicated
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DisassociateReplicationGroupMemberAction.html).
const DisassociationModeWaitForReplication = "WAIT_FOR_REPLICATION"

// ReplicaDisassociation says that a replica, once spec.replicas no longer
// names it, is kept as a table of its own in its Region rather than
// deleted: Tether sends UpdateTable with ReplicaUpdates Disassociate, alone
// in its call, to the replica's Region with the table's credentials
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-disassociate.html).
// Only a replica Tether added or the spec named is disassociated. The
// replica's own disassociation protection is on by default and AWS
// refuses while it is: switch it off in the replica's Region first. A
// refusal is named in the Ready condition and not sent again until the
// spec changes. Once disassociated, the former replica is a table of its
// own (same name, data, indexes and settings) that Tether does not manage:
// status.disassociatedReplicaRegions lists it, and deleting this object
// leaves it.
type ReplicaDisassociation struct {
	// RegionName is the replica's Region.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	RegionName string `json:"regionName"`
	// DisassociationMode is how pending replication is handled:
	// WAIT_FOR_REPLICATION, the only mode AWS defines (and its default
	// here).
	// +optional
	// +kubebuilder:default=WAIT_FOR_REPLICATION
	// +kubebuilder:validation:Enum=WAIT_FOR_REPLICATION
	DisassociationMode string `json:"disassociationMode,omitempty"`
}
