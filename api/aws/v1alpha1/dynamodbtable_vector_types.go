package v1alpha1

// Vector indexes of a table: similarity search over a
// vector attribute of the items, queried by the SearchVectors API
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_VectorIndex.html,
// aws-sdk-go-v2 service/dynamodb v1.63.0 and later). AWS creates one with
// the table (CreateTable VectorIndexes) or one per UpdateTable
// (VectorIndexUpdates Create or Delete), and has no update of one: a
// changed definition is refused here, and the way to change one is a new
// name (Tether then deletes the old index and creates the new one, one
// UpdateTable each; searches on the old name fail from then on).

// MaxVectorIndexes is how many vector indexes AWS takes on one table: a
// sixth is refused with ValidationException by CreateTable and
// LimitExceededException by UpdateTable (measured against AWS by
// ExtendDB/extenddb, crates/core/src/types/table.rs; AWS's quota page does
// not list it yet).
const MaxVectorIndexes = 5

// MaxVectorDimensions is the largest number of dimensions of a vector index
// (third-party pydynox docs; the SDK states no bound).
const MaxVectorDimensions = 4096

// Distance functions of a vector index, as AWS spells them.
const (
	VectorDistanceCosine     = "COSINE"
	VectorDistanceEuclidean  = "EUCLIDEAN"
	VectorDistanceDotProduct = "DOT_PRODUCT"
)

// VectorIndex is one vector index. Once created it cannot change (AWS has
// no update of a vector index): give a new definition a new indexName.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a vector index cannot change once declared (DynamoDB has no update of a vector index): give the new definition a new indexName, and Tether deletes the old index and creates the new one"
type VectorIndex struct {
	// IndexName is the index's name, 3-255 characters, unique among the
	// table's vector indexes.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_.-]+$`
	IndexName string `json:"indexName"`
	// VectorAttribute is the attribute holding each item's vector (a list
	// of numbers). It must not be in attributeDefinitions: AWS refuses a
	// vector attribute declared there.
	VectorAttribute VectorAttribute `json:"vectorAttribute"`
	// Dimensions is the length of every vector, 1-4096. Indexes on the
	// same vector attribute must have the same number of dimensions (API
	// CreateVectorIndexAction).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	Dimensions int64 `json:"dimensions"`
	// DistanceFunction is how closeness is measured: COSINE, EUCLIDEAN or
	// DOT_PRODUCT.
	// +kubebuilder:validation:Enum=COSINE;EUCLIDEAN;DOT_PRODUCT
	DistanceFunction string `json:"distanceFunction"`
	// Projection is what the index copies of each item, as for a global
	// secondary index; it defaults to ALL.
	// +optional
	// +kubebuilder:default={}
	Projection Projection `json:"projection,omitempty"`
	// SearchSchema are the attributes a search may select on: a HASH
	// attribute partitions the index (a search names its value), an
	// INLINE_FILTER attribute may filter it. Each must be in
	// attributeDefinitions with its type, as AWS requires. At most 16 here,
	// a bound on the API server's cost of checking the rules (AWS states
	// none).
	// +optional
	// +listType=map
	// +listMapKey=attributeName
	// +kubebuilder:validation:MaxItems=16
	SearchSchema []VectorSearchSchemaElement `json:"searchSchema,omitempty"`
}

// VectorAttribute names the attribute of a vector index's vectors.
type VectorAttribute struct {
	// AttributeName is the attribute's name, as items hold it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	AttributeName string `json:"attributeName"`
}

// VectorSearchSchemaElement is one attribute of a vector index's search
// schema.
type VectorSearchSchemaElement struct {
	// AttributeName names an attribute of attributeDefinitions.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	AttributeName string `json:"attributeName"`
	// Type is HASH (a partition of the index, named by every search) or
	// INLINE_FILTER (a filter a search may use).
	// +kubebuilder:validation:Enum=HASH;INLINE_FILTER
	Type string `json:"type"`
}

// VectorIndexStatus is a vector index as DescribeTable reports it.
type VectorIndexStatus struct {
	// IndexName is the index's name.
	IndexName string `json:"indexName"`
	// IndexStatus is CREATING, ACTIVE or DELETING.
	IndexStatus string `json:"indexStatus"`
	// Backfilling is true while AWS fills a new index from the table's
	// items; searches may answer incompletely meanwhile.
	// +optional
	Backfilling bool `json:"backfilling,omitempty"`
	// ItemCount is how many items the index holds; AWS updates it about
	// every six hours.
	// +optional
	ItemCount *int64 `json:"itemCount,omitempty"`
	// IndexSizeBytes is the index's size; AWS updates it about every six
	// hours.
	// +optional
	IndexSizeBytes *int64 `json:"indexSizeBytes,omitempty"`
}
