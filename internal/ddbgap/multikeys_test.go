package ddbgap_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"
)

func keyOf(spec string) []types.KeySchemaElement {
	var out []types.KeySchemaElement
	for _, f := range strings.Fields(spec) {
		name, kind, _ := strings.Cut(f, "/")
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(name), KeyType: types.KeyType(kind)})
	}
	return out
}

func keyString(ks []types.KeySchemaElement) string {
	var out []string
	for _, k := range ks {
		out = append(out, aws.ToString(k.AttributeName)+"/"+string(k.KeyType))
	}
	return strings.Join(out, " ")
}

// defsOf defines attributes "name" (String) or "name:N".
func defsOf(names ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for _, n := range names {
		name, typ, _ := strings.Cut(n, ":")
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeType(cmp.Or(typ, "S"))})
	}
	return out
}

// defsString is a table's definitions as "name:type", sorted.
func defsString(defs []types.AttributeDefinition) string {
	var out []string
	for _, d := range defs {
		out = append(out, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// indexKeyString is the key of a table's index, "" when it has none.
func indexKeyString(d *types.TableDescription, index string) string {
	for _, g := range d.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == index {
			return keyString(g.KeySchema)
		}
	}
	return ""
}

// TestModelMultiAttributeIndexKeys checks the model against AWS's documented
// behaviour for multi-attribute index keys through the AWS SDK's own client
// (its request shapes and its own validation, none of it written here), on
// DynamoDB Local 1.25.1, which knows one HASH and one RANGE key only. It
// proves that the model: creates such indexes by CreateTable and UpdateTable
// and describes them whole, in their created order, every attribute defined
// with its type (so a test that passes on the model has sent the whole key);
// refuses what AWS refuses (RANGE first, HASH after RANGE, five of a kind, a
// key attribute not defined) and, like AWS, a definition no key uses (the
// model's reduction must not hide it); and forgets the key of an index
// deleted. Each rule's AWS source is cited in multikeys.go.
func TestModelMultiAttributeIndexKeys(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	index := func(name, keys string) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: keyOf(keys), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}
	}
	create := func(name string, defs []types.AttributeDefinition, gsis ...types.GlobalSecondaryIndex) error {
		_, err := w.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: defs, KeySchema: keyOf("pk/HASH"), GlobalSecondaryIndexes: gsis})
		return err
	}
	for _, bad := range []struct{ keys, words string }{
		{"day/RANGE tenant/HASH", "The first KeySchemaElement is not a HASH key type"},
		{"tenant/HASH day/RANGE region/HASH", "All HASH key attributes must precede RANGE key attributes"},
		{"a/HASH b/HASH c/HASH d/HASH e/HASH", "exceeds the maximum allowed number of HASH key attributes"},
		{"tenant/HASH a/RANGE b/RANGE c/RANGE d/RANGE e/RANGE", "exceeds the maximum allowed number of RANGE key attributes"},
		{"tenant/HASH undefined/HASH day/RANGE", "Some index key attributes are not defined in AttributeDefinitions"},
	} {
		err := create("multi-bad", defsOf("pk", "tenant", "region", "day", "a", "b", "c", "d", "e"), index("bad", bad.keys))
		if code(err) != "ValidationException" || !strings.Contains(err.Error(), bad.words) {
			t.Errorf("%s: %v, want %q", bad.keys, err, bad.words)
		}
	}
	// A definition that no key uses: refused, as AWS refuses it, although
	// the model drops the definitions of the attributes it keeps from Local.
	if err := create("multi-unused", defsOf("pk", "tenant", "region", "day", "seq", "unused"), index("byTenant", "tenant/HASH region/HASH day/RANGE seq/RANGE")); code(err) != "ValidationException" {
		t.Errorf("an unused attribute definition beside a multi-attribute key: %v, want a ValidationException", err)
	}
	if err := create("multi-keys", defsOf("pk", "tenant", "region", "day:N", "seq:N"), index("byTenant", "tenant/HASH region/HASH day/RANGE seq/RANGE")); err != nil {
		t.Fatal(err)
	}
	g := NewWithT(t)
	d, err := w.describe("multi-keys")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(indexKeyString(d, "byTenant")).To(Equal("tenant/HASH region/HASH day/RANGE seq/RANGE"))
	g.Expect(defsString(d.AttributeDefinitions)).To(Equal("day:N pk:S region:S seq:N tenant:S"))

	active := func(g Gomega) {
		d, err := w.describe("multi-keys")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.TableStatus).To(Equal(types.TableStatusActive))
		for _, x := range d.GlobalSecondaryIndexes {
			g.Expect(x.IndexStatus).To(Equal(types.IndexStatusActive), aws.ToString(x.IndexName))
		}
	}
	g.Eventually(active, 10*time.Second, 50*time.Millisecond).Should(Succeed())
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("multi-keys"), AttributeDefinitions: defsOf("a", "b:B", "c"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byABC"),
			KeySchema: keyOf("a/HASH b/HASH c/HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	g.Expect(err).NotTo(HaveOccurred())
	d, err = w.describe("multi-keys")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(indexKeyString(d, "byABC")).To(Equal("a/HASH b/HASH c/HASH"))
	g.Expect(defsString(d.AttributeDefinitions)).To(Equal("a:S b:B c:S day:N pk:S region:S seq:N tenant:S"))

	// Deleted, then created again with a key of one attribute: described
	// as created the second time, not with the key the name once had.
	g.Eventually(active, 10*time.Second, 50*time.Millisecond).Should(Succeed())
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("multi-keys"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byTenant")}}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) string {
		d, err := w.describe("multi-keys")
		g.Expect(err).NotTo(HaveOccurred())
		return indexKeyString(d, "byTenant")
	}, 10*time.Second, 50*time.Millisecond).Should(BeEmpty())
	g.Eventually(active, 10*time.Second, 50*time.Millisecond).Should(Succeed())
	_, err = w.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("multi-keys"), AttributeDefinitions: defsOf("tenant"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byTenant"),
			KeySchema: keyOf("tenant/HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	g.Expect(err).NotTo(HaveOccurred())
	d, err = w.describe("multi-keys")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(indexKeyString(d, "byTenant")).To(Equal("tenant/HASH"))
}
