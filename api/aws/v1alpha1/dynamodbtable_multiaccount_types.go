package v1alpha1

// Multi-account global tables: a table in one AWS account
// joins, as a replica, a table in another
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_MA_HowItWorks.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_MA.tutorial.html).

// GlobalTableSettingsReplicationEnabled is the settings replication mode a
// joining table is created with: AWS requires ENABLED on a join
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_MA.tutorial.html).
const GlobalTableSettingsReplicationEnabled = "ENABLED"

// What deleting a joined table's object does to it (GlobalTableSource.OnDelete).
const (
	GlobalTableOnDeleteDelete       = "Delete"
	GlobalTableOnDeleteDisassociate = "Disassociate"
)

// GlobalTableSource makes the table a replica, in its own account, of a
// table in another AWS account: Tether creates it with CreateTable
// GlobalTableSourceArn and settings replication ENABLED, and no key schema,
// attribute definitions, billing mode or indexes, which AWS takes from the
// source. The source must already admit the join: its resource policy
// allows the DynamoDB replication service and this account's
// dynamodb:AssociateTableReplica, and it streams NEW_AND_OLD_IMAGES
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables_MA_security.html);
// when it does not, the Ready condition prints the statements its owner
// must add. Both AWSAccounts must allow the join (their
// spec.tenancy.globalTables). Deleting the object deletes this replica only
// (DeleteTable in its own account and Region), or with onDelete
// Disassociate keeps it as a table of its own; the source and the other
// members stay. The source cannot change after creation.
// +kubebuilder:validation:XValidation:rule="has(self.tableArn) != has(self.tableRef)",message="globalTableSource names its source by tableArn or by tableRef, exactly one"
// +kubebuilder:validation:XValidation:rule="has(self.tableArn) == has(oldSelf.tableArn) && has(self.tableRef) == has(oldSelf.tableRef)",message="globalTableSource's source cannot be changed after creation"
type GlobalTableSource struct {
	// TableArn is the source table's ARN:
	// arn:<partition>:dynamodb:<region>:<12-digit account>:table/<name>.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.matches('^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[a-zA-Z0-9_.-]{3,255}$')",message="tableArn must be a DynamoDB table's ARN: arn:<partition>:dynamodb:<region>:<12-digit account>:table/<name>"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="globalTableSource's source cannot be changed after creation"
	TableArn string `json:"tableArn,omitempty"`
	// TableRef names the DynamoDBTable that holds the source table; its
	// ARN is made from where that object resolves (its AWSAccount's
	// account, its Region, its table name), never from its status.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="globalTableSource's source cannot be changed after creation"
	TableRef *GlobalTableSourceRef `json:"tableRef,omitempty"`
	// OnDelete is what deleting the object does to this replica: Delete
	// (the default) deletes it in its account and Region; Disassociate
	// makes it leave the global table and stay a table of its own there,
	// with its name, data and settings (UpdateTable ReplicaUpdates
	// Disassociate in its own Region,
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/globaltables-disassociate.html),
	// which Tether then no longer manages. AWS refuses while the table's
	// own disassociation protection is on (its default): set
	// spec.disassociationProtectionEnabled: false beforehand. It may change
	// at any time.
	// +optional
	// +kubebuilder:default=Delete
	// +kubebuilder:validation:Enum=Delete;Disassociate
	OnDelete string `json:"onDelete,omitempty"`
}

// GlobalTableSourceRef names a DynamoDBTable.
type GlobalTableSourceRef struct {
	// Namespace is the DynamoDBTable's namespace; this object's when
	// empty.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
	// Name is the DynamoDBTable's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// GlobalTablesTenancy is what an AWSAccount allows of multi-account global
// tables: on the joining side, which accounts' tables its namespaces may
// join and which namespaces may; on the source side, which accounts and
// namespaces may join the tables DynamoDBTables hold in it. Left out, none
// may: no namespace joins a table its AWSAccount does not admit, and no
// table of another tenant is joined without its AWSAccount's word.
type GlobalTablesTenancy struct {
	// SourceAccounts are the AWS accounts whose tables the tables of this
	// account may join (spec.globalTableSource).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:Pattern=`^[0-9]{12}$`
	SourceAccounts []string `json:"sourceAccounts,omitempty"`
	// JoinNamespaces are the namespaces whose DynamoDBTables of this
	// account may join a table of another account.
	// +optional
	JoinNamespaces NamespaceSelector `json:"joinNamespaces,omitempty"`
	// ReplicaAccounts are the AWS accounts whose tables may join a table of
	// this account that a DynamoDBTable holds.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:Pattern=`^[0-9]{12}$`
	ReplicaAccounts []string `json:"replicaAccounts,omitempty"`
	// ReplicaNamespaces are the namespaces whose DynamoDBTables (of other
	// AWSAccounts) may name as their source a table of this account that a
	// DynamoDBTable holds.
	// +optional
	ReplicaNamespaces NamespaceSelector `json:"replicaNamespaces,omitempty"`
}
