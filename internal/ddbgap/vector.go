package ddbgap

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Vector indexes (API VectorIndex, CreateTable VectorIndexes, UpdateTable
// VectorIndexUpdates; aws-sdk-go-v2 service/dynamodb v1.63.0). DynamoDB
// Local 3.3.1 drops CreateTable's VectorIndexes and answers
// VectorIndexUpdates "Nothing to update"; the model keeps them beside it,
// as AWS reports them (VectorIndexDescription), unless
// Options.WithoutVectorIndexes asks it to answer as DynamoDB Local does.
//
// What AWS refuses, as ExtendDB measured it against AWS
// (ExtendDB/extenddb crates/core/src/types/table.rs, "[xdb]" below): a
// PROVISIONED table, or a switch to PROVISIONED, with vector indexes
// ("only supported for PAY_PER_REQUEST tables"); a vector attribute among
// the AttributeDefinitions, a search schema attribute not among them; a
// sixth index (ValidationException by CreateTable, LimitExceededException
// by UpdateTable); a name reused (ValidationException while the index is
// ACTIVE, ResourceInUseException while it is CREATING); a delete while
// the index is CREATING and not yet backfilling (ResourceInUseException).
// The API's own constraints: IndexName 3-255 characters, one update per
// call (API UpdateTable); at most 4096 dimensions (third-party pydynox
// docs).
//
// The transition is AWS's in shape and short in time: CREATING for one
// Transition, then backfilling for one more, then ACTIVE; DELETING for one
// Transition, then gone. On AWS, an index over 3 000 items of 1024
// dimensions was backfilling 31 s after the call and ACTIVE after 512 s
// [xdb]. ItemCount and IndexSizeBytes, which AWS updates about every six
// hours (API VectorIndexDescription), stay 0.

// maxVectorIndexes is AWS's number of vector indexes per table [xdb].
const maxVectorIndexes = 5

// maxVectorDimensions is the largest number of dimensions (pydynox docs).
const maxVectorDimensions = 4096

func init() {
	register(atVectors, &feature{
		create: (*Server).createVectors,
		update: (*Server).updateVectors,
		describe: func(s *Server, st *tableState, t map[string]any, now time.Time) {
			st.overlayVectors(t, vectorClockOf(s).at(now), s.opts.Transition)
		},
	})
}

// vectorClock is the model's time for vector index transitions: the wall
// clock less the time they were held (HoldVectorIndexes).
type vectorClock struct {
	mu     sync.Mutex
	heldAt time.Time     // zero while not held
	held   time.Duration // the past holds' total
}

var vectorClockOf = perServer[vectorClock](nil)

func (c *vectorClock) at(now time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.heldAt.IsZero() {
		now = c.heldAt
	}
	return now.Add(-c.held)
}

// HoldVectorIndexes stops the vector indexes' transitions where they are
// (an index CREATING, backfilling or DELETING stays so) until release is
// called; they then go on from there. A test looks at a state that AWS
// keeps for minutes as long as it needs, instead of racing a short
// Transition.
func (s *Server) HoldVectorIndexes() (release func()) {
	c := vectorClockOf(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.heldAt.IsZero() {
		c.heldAt = time.Now()
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.heldAt.IsZero() {
			c.held += time.Since(c.heldAt)
			c.heldAt = time.Time{}
		}
	}
}

// vectorIndex is one vector index of a table.
type vectorIndex struct {
	def     map[string]any // as CreateTable or the Create action gave it
	created time.Time
	// deleting is when the delete was accepted; zero while not deleting.
	deleting time.Time
}

// status is the index's IndexStatus and Backfilling at now.
func (v *vectorIndex) status(now time.Time, transition time.Duration) (string, bool) {
	switch {
	case !v.deleting.IsZero():
		return "DELETING", false
	case now.Before(v.created.Add(transition)):
		return "CREATING", false
	case now.Before(v.created.Add(2 * transition)):
		return "CREATING", true
	}
	return "ACTIVE", false
}

// gone says whether a deleted index has finished going.
func (v *vectorIndex) gone(now time.Time, transition time.Duration) bool {
	return !v.deleting.IsZero() && !now.Before(v.deleting.Add(transition))
}

// vectorState is what the model keeps of a table's vector indexes.
type vectorState struct {
	indexes map[string]*vectorIndex
	// attrs are the search schema attributes' definitions DynamoDB Local
	// would refuse (it takes only key attributes): AWS keeps them.
	attrs map[string]string
}

var vectorsOf = perTable[vectorState](nil)

// advanceVectors drops the deleted indexes whose time has come.
func (st *tableState) advanceVectors(now time.Time, transition time.Duration) {
	for name, v := range vectorsOf(st).indexes {
		if v.gone(now, transition) {
			delete(vectorsOf(st).indexes, name)
		}
	}
}

// attributeTypes are a request's or description's attribute definitions.
func attributeTypes(defs []any) map[string]string {
	out := map[string]string{}
	for _, d := range defs {
		d, _ := d.(map[string]any)
		out[str(d, "AttributeName")] = str(d, "AttributeType")
	}
	return out
}

// checkVectorDef checks one vector index definition against what AWS
// refuses of it, given the attribute definitions it can rely on.
func checkVectorDef(def map[string]any, defined map[string]string) error {
	name := str(def, "IndexName")
	if len(name) < 3 || len(name) > 255 {
		return validation("1 validation error detected: Value '%s' at 'indexName' failed to satisfy constraint: Member must have length between 3 and 255", name)
	}
	if dims, _ := num(def, "Dimensions"); dims < 1 || dims > maxVectorDimensions {
		return validation("One or more parameter values were invalid: Dimensions of vector index %s must be between 1 and %d", name, maxVectorDimensions)
	}
	attr := str(obj(def, "VectorAttribute"), "AttributeName")
	if attr == "" || obj(def, "Projection") == nil || str(def, "DistanceFunction") == "" {
		return validation("One or more parameter values were invalid: vector index %s needs VectorAttribute, DistanceFunction and Projection", name)
	}
	if _, ok := defined[attr]; ok {
		return validation("One or more parameter values were invalid: the vector attribute %s of vector index %s must not be in AttributeDefinitions", attr, name)
	}
	for _, e := range list(def, "SearchSchema") {
		a := str(e.(map[string]any), "AttributeName")
		if _, ok := defined[a]; !ok {
			return validation("One or more parameter values were invalid: the search schema attribute %s of vector index %s must be in AttributeDefinitions", a, name)
		}
	}
	return nil
}

// onlyPayPerRequest is AWS's refusal of vector indexes on a PROVISIONED
// table [xdb].
func onlyPayPerRequest() error {
	return validation("One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables")
}

// createVectors checks CreateTable's VectorIndexes, keeps them in st and
// takes them, and the search schema's attribute definitions DynamoDB Local
// would refuse, out of the request.
func (s *Server) createVectors(st *tableState, body map[string]any, billing string, now time.Time) error {
	now = vectorClockOf(s).at(now)
	*vectorsOf(st) = vectorState{indexes: map[string]*vectorIndex{}, attrs: map[string]string{}}
	defs := list(body, "VectorIndexes")
	if s.opts.WithoutVectorIndexes || defs == nil {
		return nil
	}
	if billing != payPerRequest {
		return onlyPayPerRequest()
	}
	if len(defs) > maxVectorIndexes {
		return validation("One or more parameter values were invalid: a table can have at most %d vector indexes", maxVectorIndexes)
	}
	defined := attributeTypes(list(body, "AttributeDefinitions"))
	keyed := map[string]bool{}
	for _, k := range keyAttributes(body) {
		keyed[k] = true
	}
	for _, d := range defs {
		def := d.(map[string]any)
		if err := checkVectorDef(def, defined); err != nil {
			return err
		}
		if _, dup := vectorsOf(st).indexes[str(def, "IndexName")]; dup {
			return validation("One or more parameter values were invalid: Duplicate index name: %s", str(def, "IndexName"))
		}
		vectorsOf(st).indexes[str(def, "IndexName")] = &vectorIndex{def: def, created: now}
	}
	var forLocal []any
	for _, d := range list(body, "AttributeDefinitions") {
		if a := str(d.(map[string]any), "AttributeName"); keyed[a] {
			forLocal = append(forLocal, d)
		} else {
			vectorsOf(st).attrs[a] = str(d.(map[string]any), "AttributeType")
		}
	}
	body["AttributeDefinitions"] = forLocal
	delete(body, "VectorIndexes")
	return nil
}

// keyAttributes are the attributes of a CreateTable's key schemas, the
// table's and its indexes'.
func keyAttributes(body map[string]any) []string {
	var out []string
	add := func(ks []any) {
		for _, k := range ks {
			out = append(out, str(k.(map[string]any), "AttributeName"))
		}
	}
	add(list(body, "KeySchema"))
	for _, field := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		for _, g := range list(body, field) {
			add(list(g.(map[string]any), "KeySchema"))
		}
	}
	return out
}

// updateVectors checks an UpdateTable's VectorIndexUpdates against the
// table t (DynamoDB Local's description) and returns how to apply them;
// it takes them out of rest. A switch to PROVISIONED is refused while the
// table has vector indexes.
func (s *Server) updateVectors(st *tableState, t, body, rest map[string]any, newBilling string, now time.Time) (func(), error) {
	now = vectorClockOf(s).at(now)
	if s.opts.WithoutVectorIndexes {
		return func() {}, nil
	}
	if newBilling != payPerRequest && len(vectorsOf(st).indexes) > 0 {
		return nil, onlyPayPerRequest()
	}
	updates := list(body, "VectorIndexUpdates")
	if updates == nil {
		return func() {}, nil
	}
	delete(rest, "VectorIndexUpdates")
	if len(updates) != 1 {
		return nil, validation("One or more parameter values were invalid: only one vector index can be created or deleted per UpdateTable")
	}
	u := updates[0].(map[string]any)
	if def := obj(u, "Create"); def != nil {
		return st.createVector(def, t, body, newBilling, now, s.opts.Transition)
	}
	if del := obj(u, "Delete"); del != nil {
		return st.deleteVector(str(del, "IndexName"), now, s.opts.Transition)
	}
	return nil, validation("One or more parameter values were invalid: a VectorIndexUpdate needs Create or Delete")
}

func (st *tableState) createVector(def, t, body map[string]any, billing string, now time.Time, transition time.Duration) (func(), error) {
	name := str(def, "IndexName")
	if billing != payPerRequest {
		return nil, onlyPayPerRequest()
	}
	if old, ok := vectorsOf(st).indexes[name]; ok {
		if status, _ := old.status(now, transition); status == "CREATING" {
			return nil, inUse("Attempt to change a resource which is still in use: vector index %s is being created", name)
		}
		return nil, validation("One or more parameter values were invalid: vector index %s already exists", name)
	}
	if len(vectorsOf(st).indexes) >= maxVectorIndexes {
		return nil, &apiError{status: 400, code: "LimitExceededException",
			msg: fmt.Sprintf("Subscriber limit exceeded: a table can have at most %d vector indexes", maxVectorIndexes)}
	}
	defined := attributeTypes(list(t, "AttributeDefinitions"))
	maps.Copy(defined, vectorsOf(st).attrs)
	sent := attributeTypes(list(body, "AttributeDefinitions"))
	maps.Copy(defined, sent)
	if err := checkVectorDef(def, defined); err != nil {
		return nil, err
	}
	return func() {
		vectorsOf(st).indexes[name] = &vectorIndex{def: def, created: now}
		for _, e := range list(def, "SearchSchema") {
			a := str(e.(map[string]any), "AttributeName")
			if typ, ok := sent[a]; ok {
				vectorsOf(st).attrs[a] = typ
			}
		}
	}, nil
}

func (st *tableState) deleteVector(name string, now time.Time, transition time.Duration) (func(), error) {
	v, ok := vectorsOf(st).indexes[name]
	if !ok || !v.deleting.IsZero() {
		return nil, notFound("ResourceNotFoundException", "Requested resource not found: vector index %s", name)
	}
	if status, backfilling := v.status(now, transition); status == "CREATING" && !backfilling {
		return nil, inUse("Attempt to change a resource which is still in use: vector index %s is being created and not yet backfilling", name)
	}
	return func() { v.deleting = now }, nil
}

// overlayVectors adds the vector indexes and their search schema's
// attribute definitions to a table description.
func (st *tableState) overlayVectors(t map[string]any, now time.Time, transition time.Duration) {
	st.advanceVectors(now, transition)
	if len(vectorsOf(st).indexes) == 0 {
		return
	}
	defs := list(t, "AttributeDefinitions")
	have := attributeTypes(defs)
	for _, a := range slices.Sorted(maps.Keys(vectorsOf(st).attrs)) {
		if _, ok := have[a]; !ok {
			defs = append(defs, map[string]any{"AttributeName": a, "AttributeType": vectorsOf(st).attrs[a]})
		}
	}
	t["AttributeDefinitions"] = defs
	var out []any
	for _, name := range slices.Sorted(maps.Keys(vectorsOf(st).indexes)) {
		v := vectorsOf(st).indexes[name]
		d := maps.Clone(v.def)
		if len(list(d, "SearchSchema")) == 0 {
			delete(d, "SearchSchema") // "Empty SearchSchema not echoed" [xdb]
		}
		status, backfilling := v.status(now, transition)
		d["IndexStatus"], d["Backfilling"] = status, backfilling
		d["IndexArn"] = str(t, "TableArn") + "/index/" + name
		d["ItemCount"], d["IndexSizeBytes"] = int64(0), int64(0)
		out = append(out, d)
	}
	t["VectorIndexes"] = out
}
