package v1alpha1

// The table features of issue 40, DynamoDB as AWS ships it in 2026.

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
