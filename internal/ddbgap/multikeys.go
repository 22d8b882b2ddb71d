package ddbgap

import (
	"maps"
	"slices"
	"time"
)

// Global secondary index keys of several attributes, as AWS documents them:
//   - "Global secondary index supports up to 4 partition and up to 4 sort
//     keys" (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateGlobalSecondaryIndexAction.html,
//     and API_GlobalSecondaryIndex.html for CreateTable), HASH keys first;
//   - each key attribute is defined in the request's AttributeDefinitions
//     with its own type, String, Number or Binary
//     (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html:
//     "If you are adding a new global secondary index to the table,
//     AttributeDefinitions must include the key element(s) of the new index";
//     https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_KeySchemaElement.html);
//   - the key is described in the order it was created, which queries
//     follow: every partition attribute, then sort attributes from the
//     first without gaps
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html).
//
// AWS's refusals are worded "The first KeySchemaElement is not a HASH key
// type", "All HASH key attributes must precede RANGE key attributes" and
// "exceeds the maximum allowed number of HASH (RANGE) key attributes" (as
// ACK's live probes of AWS recorded them; the API reference gives no text).
//
// DynamoDB Local before 3.3.0 knows one HASH and one RANGE key only ("Key
// Schema too big";
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocalHistory.html
// dates the support): the model checks AWS's rules, gives DynamoDB Local the
// first HASH and first RANGE attribute of such an index (and drops the
// definitions only the other attributes use), and puts the whole key and its
// definitions back into what DynamoDB Local describes.

const maxIndexKeysPerType = 4

func init() {
	register(atIndexKeys, &feature{
		indexes: keyIndexes,
		describe: func(_ *Server, st *tableState, t map[string]any, _ time.Time) {
			st.overlayKeys(t)
		},
	})
}

// keyIndexes checks the keys of the indexes a CreateTable or UpdateTable
// creates, rewrites those of several attributes for DynamoDB Local, and
// returns how to keep them, and to forget those of the indexes deleted.
func keyIndexes(st *tableState, body map[string]any, defs []any, creates []map[string]any, deleted []string) (func(), error) {
	var indexes []any
	for _, g := range creates {
		indexes = append(indexes, g)
	}
	multi, err := multiKeys(indexes, defs)
	if err != nil {
		return nil, err
	}
	if len(multi) == 0 && len(deleted) == 0 {
		return nil, nil
	}
	reduceForLocal(body, creates, multi)
	return func() { st.keepIndexKeys(multi, deleted) }, nil
}

// multiKeyed are a table's multi-attribute index keys, by index name.
type multiKeyed struct{ keys map[string]indexKeys }

var indexKeysOf = perTable[multiKeyed](nil)

// indexKeys is what the model keeps of a multi-attribute index key.
type indexKeys struct {
	keys  []any          // KeySchema as created
	types map[string]any // its attributes' types
}

// multiKeys checks the indexes a CreateTable or UpdateTable creates, and
// returns those with a multi-attribute key, by index name.
func multiKeys(indexes []any, defs []any) (map[string]indexKeys, error) {
	out := map[string]indexKeys{}
	for _, g := range indexes {
		g := g.(map[string]any)
		keys := list(g, "KeySchema")
		if err := checkIndexKeys(keys); err != nil {
			return nil, err
		}
		if len(keys) <= 2 && (len(keys) < 2 || str(keys[1].(map[string]any), "KeyType") == "RANGE") {
			continue
		}
		ik := indexKeys{keys: keys, types: map[string]any{}}
		var missing []string
		for _, k := range keys {
			name := str(k.(map[string]any), "AttributeName")
			for _, d := range defs {
				if d := d.(map[string]any); str(d, "AttributeName") == name {
					ik.types[name] = d["AttributeType"]
				}
			}
			if _, ok := ik.types[name]; !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return nil, validation("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: %v", missing)
		}
		out[str(g, "IndexName")] = ik
	}
	return out, nil
}

func checkIndexKeys(keys []any) error {
	hashes, ranges := 0, 0
	for i, k := range keys {
		switch str(k.(map[string]any), "KeyType") {
		case "HASH":
			if i == 0 || ranges == 0 {
				hashes++
				continue
			}
			return validation("One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes")
		case "RANGE":
			if i == 0 {
				return validation("One or more parameter values were invalid: The first KeySchemaElement is not a HASH key type")
			}
			ranges++
		}
	}
	for _, c := range []struct {
		kind string
		n    int
	}{{"HASH", hashes}, {"RANGE", ranges}} {
		if c.n > maxIndexKeysPerType {
			return validation("One or more parameter values were invalid: The number of %s key attributes (%d) exceeds the maximum allowed number of %s key attributes (%d)",
				c.kind, c.n, c.kind, maxIndexKeysPerType)
		}
	}
	return nil
}

// forLocal is an index's key as DynamoDB Local knows keys: its first HASH
// and first RANGE attribute.
func (ik indexKeys) forLocal() []any {
	var out []any
	for _, kind := range []string{"HASH", "RANGE"} {
		if i := slices.IndexFunc(ik.keys, func(k any) bool { return str(k.(map[string]any), "KeyType") == kind }); i >= 0 {
			out = append(out, ik.keys[i])
		}
	}
	return out
}

// reduceForLocal rewrites a request's indexes (field: GlobalSecondaryIndexes
// of CreateTable, or the Create actions of GlobalSecondaryIndexUpdates)
// and AttributeDefinitions for DynamoDB Local: the keys it knows, without
// the definitions only the keys it is not given use. A definition nothing
// uses stays, so DynamoDB Local refuses it as AWS does.
func reduceForLocal(body map[string]any, indexes []map[string]any, multi map[string]indexKeys) {
	if len(multi) == 0 {
		return
	}
	stripped := map[string]bool{}
	for _, g := range indexes {
		if ik, ok := multi[str(g, "IndexName")]; ok {
			for _, k := range ik.keys {
				stripped[str(k.(map[string]any), "AttributeName")] = true
			}
			g["KeySchema"] = ik.forLocal()
		}
	}
	for _, k := range list(body, "KeySchema") {
		delete(stripped, str(k.(map[string]any), "AttributeName"))
	}
	for _, field := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		for _, g := range list(body, field) {
			for _, k := range list(g.(map[string]any), "KeySchema") {
				delete(stripped, str(k.(map[string]any), "AttributeName"))
			}
		}
	}
	for _, g := range indexes {
		for _, k := range list(g, "KeySchema") {
			delete(stripped, str(k.(map[string]any), "AttributeName"))
		}
	}
	var defs []any
	for _, d := range list(body, "AttributeDefinitions") {
		if !stripped[str(d.(map[string]any), "AttributeName")] {
			defs = append(defs, d)
		}
	}
	body["AttributeDefinitions"] = defs
}

// overlayKeys puts the whole keys of the table's multi-attribute indexes
// back into DynamoDB Local's description, with their definitions.
func (st *tableState) overlayKeys(t map[string]any) {
	if len(indexKeysOf(st).keys) == 0 {
		return
	}
	defs := list(t, "AttributeDefinitions")
	have := map[string]bool{}
	for _, d := range defs {
		have[str(d.(map[string]any), "AttributeName")] = true
	}
	for _, g := range list(t, "GlobalSecondaryIndexes") {
		g := g.(map[string]any)
		ik, ok := indexKeysOf(st).keys[str(g, "IndexName")]
		if !ok {
			continue
		}
		g["KeySchema"] = ik.keys
		for _, name := range slices.Sorted(maps.Keys(ik.types)) {
			if !have[name] {
				have[name] = true
				defs = append(defs, map[string]any{"AttributeName": name, "AttributeType": ik.types[name]})
			}
		}
	}
	t["AttributeDefinitions"] = defs
}

// keepIndexKeys records the multi-attribute keys of indexes created, and
// forgets those of indexes deleted.
func (st *tableState) keepIndexKeys(multi map[string]indexKeys, deleted []string) {
	if indexKeysOf(st).keys == nil {
		indexKeysOf(st).keys = map[string]indexKeys{}
	}
	maps.Copy(indexKeysOf(st).keys, multi)
	for _, name := range deleted {
		delete(indexKeysOf(st).keys, name)
	}
}
