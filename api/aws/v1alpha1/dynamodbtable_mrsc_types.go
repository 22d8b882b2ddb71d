package v1alpha1

// Multi-Region strong consistency (MRSC) global tables (docs/dynamodb.md,
// "DynamoDB as AWS ships it in 2026").

// Multi-Region consistency modes of a global table, as AWS spells them
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html).
const (
	MultiRegionConsistencyEventual = "EVENTUAL"
	MultiRegionConsistencyStrong   = "STRONG"
)

// MRSCUnsupportedRegion is the Region where AWS refuses multi-Region
// strong consistency, for the table, a replica or the witness
// ("Unsupported Region(s)", aws-controllers-k8s/dynamodb-controller
// docs/api-quirks/table-global-tables.md). It is the one definition: the
// adapter (providers/dynamodb/mrsc.go) and the AWS model (internal/ddbgap)
// use it, and the CEL rule on DynamoDBTableSpec, which a marker cannot
// write but as a literal, is checked against it
// (TestMRSCUnsupportedRegionIsTheCELRules).
const MRSCUnsupportedRegion = "us-west-1"

// GlobalTableWitness is the witness Region of a multi-Region strong
// consistency global table: it takes part in the quorum of writes and
// holds no table (no table exists in the witness Region). It is created
// with the global table, in the same UpdateTable as its one replica
// (GlobalTableWitnessUpdates Create), and cannot change afterwards
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateGlobalTableWitnessGroupMemberAction.html).
type GlobalTableWitness struct {
	// RegionName is the witness's AWS Region, e.g. us-east-2: neither the
	// table's Region nor a replica's, nor us-west-1, where AWS refuses
	// MRSC ("Unsupported Region(s)", aws-controllers-k8s/dynamodb-controller
	// docs/api-quirks/table-global-tables.md).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	RegionName string `json:"regionName"`
}

// GlobalTableWitnessStatus is a witness as DescribeTable reports it
// (GlobalTableWitnesses).
type GlobalTableWitnessStatus struct {
	// RegionName is the witness's AWS Region.
	RegionName string `json:"regionName"`
	// WitnessStatus is CREATING, ACTIVE or DELETING.
	WitnessStatus string `json:"witnessStatus"`
}
