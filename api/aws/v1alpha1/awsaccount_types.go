package v1alpha1

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AnnotationNamespaceAccount on a Namespace names the AWSAccount its
// DynamoDBTables use when they have no spec.accountRef. The AWSAccount must
// still admit the namespace.
const AnnotationNamespaceAccount = "aws.tether.dev/account"

// AWSAccountSpec says how Tether reaches an AWS account and which namespaces
// may have their tables there.
type AWSAccountSpec struct {
	// AssumeRole is the role Tether acts as in the account. The operator's
	// own identity (IRSA, EKS Pod Identity, environment) assumes it, or the
	// last of viaRoles when those are set.
	AssumeRole AssumeRole `json:"assumeRole"`

	// ViaRoles are roles assumed first, in order, each with the credentials
	// of the one before (the first with the operator's own identity): a hub
	// role that alone may assume the account's role.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2
	ViaRoles []AssumeRole `json:"viaRoles,omitempty"`

	// Region is the region of tables that name none; the operator's
	// --aws-region when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	Region string `json:"region,omitempty"`

	// Endpoint is a DynamoDB endpoint URL to use instead of AWS's own for
	// this account's tables (a proxy, DynamoDB Local).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	Endpoint string `json:"endpoint,omitempty"`

	// NamespaceSelector says whose DynamoDBTables may use this account: a
	// namespace listed in names, or one whose labels match labelSelector.
	// With neither, no namespace may.
	// +optional
	NamespaceSelector NamespaceSelector `json:"namespaceSelector,omitempty"`

	// Tenancy says what the namespaces this account admits may do beyond
	// their own tables, and what every table of the account must carry. Left
	// out, a namespace may restore only from its own tables, publish a table
	// only to principals of the account, and adopt nothing.
	// +optional
	Tenancy Tenancy `json:"tenancy,omitempty"`

	// ChangeEvents is a queue of the account's DynamoDB changes, for
	// finding changes made outside Tether within seconds instead of at the
	// next poll (awsaccount_changeevents_types.go).
	// +optional
	ChangeEvents *ChangeEvents `json:"changeEvents,omitempty"`
}

// Restore sources an AWSAccount allows (Tenancy.RestoreSources).
const (
	// RestoreSourcesOwnNamespace: a table or backup of a DynamoDBTable in
	// the restoring object's own namespace, in the same account.
	RestoreSourcesOwnNamespace = "OwnNamespace"
	// RestoreSourcesAccount: any table or backup of the account.
	RestoreSourcesAccount = "Account"
)

// Tenancy is what an AWSAccount trusts its namespaces with. Each field only
// widens what a namespace may do (or, for enforcedTagKeys, what its tables
// must carry); nothing here narrows the admission of namespaceSelector.
type Tenancy struct {
	// RestoreSources says what spec.restoreFrom may name: OwnNamespace (the
	// default) a table or backup of a DynamoDBTable in the same namespace
	// and account, Account any table or backup of the account.
	// +optional
	// +kubebuilder:validation:Enum=OwnNamespace;Account
	RestoreSources string `json:"restoreSources,omitempty"`

	// PolicyPrincipalAccounts are the AWS accounts, besides this one, whose
	// principals a table's spec.resourcePolicy may grant access to; "*"
	// allows any principal, the public included. Service and federated
	// principals count as outside the account.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:items:Pattern=`^([0-9]{12}|\*)$`
	PolicyPrincipalAccounts []string `json:"policyPrincipalAccounts,omitempty"`

	// AdoptionNamespaces are the namespaces whose DynamoDBTables may adopt
	// an existing table of this account (tether.dev/adopt: "true"): one
	// Tether did not create for them (made by Terraform, the console, a
	// Retain'd object, another cluster). With neither field, none may.
	// +optional
	AdoptionNamespaces NamespaceSelector `json:"adoptionNamespaces,omitempty"`

	// Tags are tags every table of this account carries, over the
	// operator's default tags and under the table's spec.tags unless
	// enforced. Values are taken as written; a value per namespace or table
	// is a --dynamodb-default-tag template, which enforcedTagKeys may name.
	// +optional
	// +kubebuilder:validation:MaxProperties=45
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 128 && !k.startsWith('aws:') && !k.startsWith('tether.dev/') && size(self[k]) <= 256)",message="tag keys are 1-128 characters, not starting with aws: or tether.dev/, and values at most 256"
	Tags map[string]string `json:"tags,omitempty"`

	// EnforcedTagKeys are keys of tags (of tags above, or of the operator's
	// --dynamodb-default-tag) that also win over a table's spec.tags: for
	// cost allocation and attribute-based access control, which a tenant
	// must not be able to change.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=45
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	EnforcedTagKeys []string `json:"enforcedTagKeys,omitempty"`

	// GlobalTables says which multi-account global tables the account's
	// tables may form: which accounts' tables they may join, which
	// namespaces may join, and who may join the tables DynamoDBTables hold
	// in it (dynamodbtable_multiaccount_types.go). Left out, none.
	// +optional
	GlobalTables GlobalTablesTenancy `json:"globalTables,omitempty"`
}

// AssumeRole is one sts:AssumeRole call. The values follow AWS's rules for
// the call (docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html).
type AssumeRole struct {
	// RoleARN is the role to assume.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`
	RoleARN string `json:"roleARN"`
	// ExternalID is the value the role's trust policy asks for, if any.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=1224
	// +kubebuilder:validation:Pattern=`^[\w+=,.@:/-]+$`
	ExternalID string `json:"externalID,omitempty"`
	// SessionName names the session in CloudTrail; "tether-<AWSAccount
	// name>" when empty.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[\w+=,.@-]+$`
	SessionName string `json:"sessionName,omitempty"`
	// SessionTags are passed as session tags (for attribute-based access
	// control in the role's policies).
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 128 && size(self[k]) <= 256)",message="session tag keys are 1-128 characters and values at most 256"
	SessionTags map[string]string `json:"sessionTags,omitempty"`
}

// NamespaceSelector selects namespaces by name or by labels.
type NamespaceSelector struct {
	// Names are namespaces admitted by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	Names []string `json:"names,omitempty"`
	// LabelSelector admits namespaces whose labels match.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// AWSAccount is an AWS account that DynamoDBTables in the namespaces it
// admits reach by assuming a role. Tables pick it by spec.accountRef, or by
// their namespace's aws.tether.dev/account annotation.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=awsacct,categories={tether,aws}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ROLE",type=string,JSONPath=`.spec.assumeRole.roleARN`
// +kubebuilder:printcolumn:name="REGION",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="REASON",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="CHANGES",type=string,JSONPath=`.status.changeEvents.mode`
// +kubebuilder:printcolumn:name="WHY",type=string,JSONPath=`.status.changeEvents.reason`,priority=1
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type AWSAccount struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AWSAccountSpec `json:"spec"`
	// Status is what Tether last found of the account: whether its role can
	// be assumed and how its tables learn of changes. observedGeneration is
	// -1 until the first report, so that GitOps tools do not take a new
	// account for a checked one.
	// +optional
	// +kubebuilder:default:={"observedGeneration":-1}
	Status AWSAccountStatus `json:"status,omitempty"`
}

// AccountID is the account the role belongs to, read from its ARN.
func (a *AWSAccount) AccountID() string { return AccountOfARN(a.Spec.AssumeRole.RoleARN) }

// AccountOfARN is the account field of an ARN ("" when there is none).
func AccountOfARN(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return ""
	}
	return parts[4]
}

// AWSAccountList is a list of AWSAccounts.
// +kubebuilder:object:root=true
type AWSAccountList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AWSAccount `json:"items"`
}

func init() {
	SchemeBuilder.Register(&AWSAccount{}, &AWSAccountList{})
}
