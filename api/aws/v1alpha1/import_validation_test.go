package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// importSpec is a table created by an import from S3 (issue 40 item 7),
// with every importFrom field AWS's ImportTable takes.
const importSpec = `
attributeDefinitions:
- {attributeName: pk, attributeType: S}
- {attributeName: gsiKey, attributeType: S}
keySchema:
- {attributeName: pk, keyType: HASH}
globalSecondaryIndexes:
- indexName: byGsiKey
  keySchema: [{attributeName: gsiKey, keyType: HASH}]
importFrom:
  s3BucketSource: {s3Bucket: my.bucket-1, s3KeyPrefix: exports/2026/, s3BucketOwner: "111122223333"}
  inputFormat: CSV
  inputCompressionType: GZIP
  inputFormatOptions:
    csv: {delimiter: ";", headerList: [pk, gsiKey, note]}
`

// TestImportFromRefusesBadInput: each case makes one mistake AWS's
// ImportTable would refuse, or one that could not make the table the spec
// declares, and the API server says which.
func TestImportFromRefusesBadInput(t *testing.T) {
	if err := env.Client.Create(context.Background(), manifest(t, "import-ok", importSpec)); err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
	// on makes the replacements old1, new1, old2, new2, ... in importSpec.
	on := func(pairs ...string) string {
		spec := importSpec
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(spec, pairs[i]) {
				panic("test case does not match importSpec: " + pairs[i])
			}
			spec = strings.Replace(spec, pairs[i], pairs[i+1], 1)
		}
		return spec
	}
	cases := []struct{ name, spec, message string }{
		{"format AWS does not know", on("inputFormat: CSV", "inputFormat: PARQUET"), `supported values: "CSV", "DYNAMODB_JSON", "ION"`},
		{"compression AWS does not know", on("inputCompressionType: GZIP", "inputCompressionType: BZIP2"), `supported values: "GZIP", "ZSTD", "NONE"`},
		{"CSV options for JSON", on("inputFormat: CSV", "inputFormat: DYNAMODB_JSON"), "inputFormatOptions (csv) needs inputFormat CSV"},
		{"delimiter of two characters", on(`delimiter: ";"`, `delimiter: ";;"`), "spec.importFrom.inputFormatOptions.csv.delimiter"},
		{"delimiter AWS does not take", on(`delimiter: ";"`, `delimiter: "#"`), "spec.importFrom.inputFormatOptions.csv.delimiter"},
		{"bucket owner not an account", on(`s3BucketOwner: "111122223333"`, `s3BucketOwner: "1111"`), "spec.importFrom.s3BucketSource.s3BucketOwner"},
		{"bucket name with a slash", on("s3Bucket: my.bucket-1", "s3Bucket: my/bucket"), "spec.importFrom.s3BucketSource.s3Bucket"},
		{"no bucket", on("s3Bucket: my.bucket-1, ", ""), "s3Bucket: Required value"},
		{"no format", on("  inputFormat: CSV\n", ""), "inputFormat: Required value"},
		{"with restoreFrom", importSpec + "restoreFrom: {backupArn: \"arn:aws:dynamodb:us-east-1:111122223333:table/source/backup/01234567890123-abcdefgh\"}\n",
			"importFrom and restoreFrom cannot both create the table"},
		{"with a local secondary index", on("keySchema:\n- {attributeName: pk, keyType: HASH}\n",
			"keySchema:\n- {attributeName: pk, keyType: HASH}\n- {attributeName: sk, keyType: RANGE}\nlocalSecondaryIndexes:\n- indexName: bySk\n  keySchema: [{attributeName: pk, keyType: HASH}, {attributeName: sk, keyType: RANGE}]\n",
			"- {attributeName: gsiKey, attributeType: S}\n", "- {attributeName: gsiKey, attributeType: S}\n- {attributeName: sk, attributeType: S}\n"),
			"importFrom cannot create localSecondaryIndexes"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), manifest(t, fmt.Sprintf("invalid-import-%d", i), c.spec))
			if err == nil {
				t.Fatalf("accepted; want rejection with %q", c.message)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("rejected with\n  %v\nwant a message containing %q", err, c.message)
			}
		})
	}
}

// TestImportFromCannotChangeAfterCreation: an import only creates a table,
// so a change of importFrom afterwards would do nothing; the API server
// refuses it and says so, while the rest of the spec may change.
func TestImportFromCannotChangeAfterCreation(t *testing.T) {
	ctx := context.Background()
	obj := manifest(t, "imported-table", importSpec)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	changed := obj.DeepCopy()
	changed.Object["spec"].(map[string]any)["importFrom"].(map[string]any)["s3BucketSource"] = map[string]any{"s3Bucket": "other-bucket"}
	if err := env.Client.Update(ctx, changed); err == nil || !strings.Contains(err.Error(), "importFrom cannot be changed after creation (an import only creates a table)") {
		t.Fatalf("changed importFrom: err = %v", err)
	}
	removed := obj.DeepCopy()
	delete(removed.Object["spec"].(map[string]any), "importFrom")
	if err := env.Client.Update(ctx, removed); err == nil || !strings.Contains(err.Error(), "importFrom cannot be added or removed after creation") {
		t.Fatalf("removed importFrom: err = %v", err)
	}
	plain := manifest(t, "not-imported", strings.Split(importSpec, "importFrom:")[0])
	if err := env.Client.Create(ctx, plain); err != nil {
		t.Fatal(err)
	}
	added := plain.DeepCopy()
	added.Object["spec"].(map[string]any)["importFrom"] = map[string]any{"s3BucketSource": map[string]any{"s3Bucket": "b1"}, "inputFormat": "ION"}
	if err := env.Client.Update(ctx, added); err == nil || !strings.Contains(err.Error(), "importFrom cannot be added or removed after creation") {
		t.Fatalf("added importFrom: err = %v", err)
	}
	edited := obj.DeepCopy()
	edited.Object["spec"].(map[string]any)["deletionProtectionEnabled"] = true
	if err := env.Client.Update(ctx, edited); err != nil {
		t.Fatalf("a change beside importFrom rejected: %v", err)
	}
}
