package huetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// TestBadManifests: one table of careless or hostile manifests for all three
// kinds. Each is refused by the API server with a message a person
// understands (the substrings below, as kubectl prints them), and nothing is
// half-applied: a refused create leaves no object, a refused update leaves
// the previous spec. Like kubectl, requests ask for strict field validation,
// so a misspelt field is an error rather than silently dropped.
//
// hue_validation_test.go and api/aws/v1alpha1/validation_test.go hold the
// first rules each kind got; the cases here are others.
func TestBadManifests(t *testing.T) {
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "badmanifests"
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}

	type obj = map[string]any
	secret := obj{"namespace": "tether-system", "name": "hue"}
	okLight := func() obj { return obj{"name": "hallway"} }
	okBridge := func() obj { return obj{"address": "192.168.1.20", "credentialsSecretRef": secret} }
	okTable := func() obj {
		return obj{
			"attributeDefinitions": []any{obj{"attributeName": "id", "attributeType": "S"}},
			"keySchema":            []any{obj{"attributeName": "id", "keyType": "HASH"}},
		}
	}
	with := func(base obj, key string, value any) obj { base[key] = value; return base }
	without := func(base obj, key string) obj { delete(base, key); return base }
	gsi := func(name string, keys ...any) obj {
		return obj{"indexName": name, "keySchema": keys}
	}
	hash := func(a string) obj { return obj{"attributeName": a, "keyType": "HASH"} }
	rng := func(a string) obj { return obj{"attributeName": a, "keyType": "RANGE"} }
	attr := func(a, typ string) obj { return obj{"attributeName": a, "attributeType": typ} }
	tableWithGSI := func(index obj, defs ...any) obj {
		t := okTable()
		t["attributeDefinitions"] = append(t["attributeDefinitions"].([]any), defs...)
		t["globalSecondaryIndexes"] = []any{index}
		return t
	}
	many := func(n int, f func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	manyTags := obj{}
	for i := range 46 {
		manyTags[fmt.Sprintf("tag%02d", i)] = "v"
	}

	const light, bridge, table = "HueLight", "HueBridge", "DynamoDBTable"
	creates := []struct {
		name string
		kind string
		meta string // metadata.name, default from the case number
		spec obj    // nil: no spec at all
		want []string
	}{
		// HueLight
		{"light: no spec", light, "", nil, []string{"spec: Required value"}},
		{"light: misspelt field", light, "", with(okLight(), "brightnes", 10), []string{`unknown field "spec.brightnes"`}},
		{"light: name longer than the bridge allows", light, "", with(okLight(), "name", strings.Repeat("x", 33)), []string{"spec.name", "32"}},
		{"light: empty name", light, "", obj{"name": ""}, []string{"spec.name", "at least 1 chars long"}},
		{"light: id 0", light, "", obj{"id": "0"}, []string{"spec.id in body should match"}},
		{"light: id with six digits", light, "", obj{"id": "123456"}, []string{"spec.id in body should match"}},
		{"light: negative brightness", light, "", with(okLight(), "brightness", -5), []string{"spec.brightness", "greater than or equal to 1"}},
		{"light: brightness as a word", light, "", with(okLight(), "brightness", "bright"), []string{"spec.brightness", "must be of type integer"}},
		{"light: on as a word", light, "", with(okLight(), "on", "yes"), []string{"spec.on", "must be of type boolean"}},
		{"light: fractional brightness", light, "", with(okLight(), "brightness", 12.5), []string{"spec.brightness", "must be of type integer"}},
		{"light: xy with one number", light, "", with(okLight(), "color", obj{"xy": []any{0.3}}), []string{"spec.color.xy", "at least 2 items"}},
		{"light: negative xy", light, "", with(okLight(), "color", obj{"xy": []any{-0.1, 0.3}}), []string{"greater than or equal to 0"}},
		{"light: xy as words", light, "", with(okLight(), "color", obj{"xy": []any{"red", "green"}}), []string{"spec.color.xy[0]", "must be of type number"}},
		{"light: colour as a name", light, "", with(okLight(), "color", "red"), []string{"spec.color", "must be of type object"}},
		{"light: negative hue", light, "", with(okLight(), "color", obj{"hue": -1, "saturation": 10}), []string{"spec.color.hue", "greater than or equal to 0"}},
		{"light: saturation without hue", light, "", with(okLight(), "color", obj{"saturation": 10}), []string{"hue and saturation go together"}},
		{"light: xy and hue", light, "", with(okLight(), "color", obj{"xy": []any{0.3, 0.3}, "hue": 1, "saturation": 1}), []string{"color must set exactly one of"}},
		{"light: fractional colour temperature", light, "", with(okLight(), "color", obj{"colorTemperature": 200.5}), []string{"spec.color.colorTemperature", "must be of type integer"}},
		{"light: negative transition", light, "", with(okLight(), "transitionTime", "-1s"), []string{"spec.transitionTime in body should match"}},
		{"light: transition in hundredths", light, "", with(okLight(), "transitionTime", "1.05s"), []string{"transitionTime must be a multiple of 100ms"}},
		{"light: onDelete in lower case", light, "", with(okLight(), "onDelete", "keep"), []string{`Unsupported value: "keep"`, `"TurnOff", "Keep"`}},
		{"light: bridgeRef without name", light, "", with(okLight(), "bridgeRef", obj{}), []string{"spec.bridgeRef.name: Required value"}},
		{"light: bridgeRef with empty name", light, "", with(okLight(), "bridgeRef", obj{"name": ""}), []string{"spec.bridgeRef.name", "at least 1 chars long"}},
		{"light: object name with capitals", light, "Hallway_Light", okLight(), []string{"RFC 1123"}},
		// HueBridge
		{"bridge: no spec", bridge, "", nil, []string{"spec: Required value"}},
		{"bridge: misspelt field", bridge, "", with(okBridge(), "adress", "x"), []string{`unknown field "spec.adress"`}},
		{"bridge: empty address", bridge, "", with(okBridge(), "address", ""), []string{"spec.address", "at least 1 chars long"}},
		{"bridge: address too long", bridge, "", with(okBridge(), "address", strings.Repeat("a", 256)), []string{"spec.address", "255"}},
		{"bridge: file URL", bridge, "", with(okBridge(), "address", "file:///etc/passwd"), []string{"address scheme must be http:// or https://"}},
		{"bridge: secret without name", bridge, "", with(okBridge(), "credentialsSecretRef", obj{"namespace": "tether-system"}), []string{"spec.credentialsSecretRef.name: Required value"}},
		{"bridge: secret with empty namespace", bridge, "", with(okBridge(), "credentialsSecretRef", obj{"namespace": "", "name": "hue"}), []string{"spec.credentialsSecretRef.namespace", "at least 1 chars long"}},
		{"bridge: polling every two hours", bridge, "", with(okBridge(), "pollInterval", "2h"), []string{"pollInterval must be between 1s and 1h"}},
		{"bridge: poll interval as a word", bridge, "", with(okBridge(), "pollInterval", "often"), []string{"spec.pollInterval in body should match"}},
		{"bridge: zero commands per second", bridge, "", with(okBridge(), "commandsPerSecond", 0), []string{"spec.commandsPerSecond", "greater than or equal to 1"}},
		{"bridge: flooding commands per second", bridge, "", with(okBridge(), "commandsPerSecond", 26), []string{"spec.commandsPerSecond", "less than or equal to 25"}},
		{"bridge: namespace allowed twice", bridge, "", with(okBridge(), "allowedNamespaces", []any{"a", "a"}), []string{"spec.allowedNamespaces[1]", "Duplicate value"}},
		// DynamoDBTable
		{"table: no key schema", table, "", without(okTable(), "keySchema"), []string{"spec.keySchema: Required value"}},
		{"table: no attribute definitions", table, "", without(okTable(), "attributeDefinitions"), []string{"spec.attributeDefinitions: Required value"}},
		{"table: empty key schema", table, "", with(okTable(), "keySchema", []any{}), []string{"spec.keySchema", "at least 1 items"}},
		{"table: misspelt field", table, "", with(okTable(), "billingmode", "PROVISIONED"), []string{`unknown field "spec.billingmode"`}},
		{"table: table name with a space", table, "", with(okTable(), "tableName", "my orders"), []string{"spec.tableName in body should match"}},
		{"table: table name too long", table, "", with(okTable(), "tableName", strings.Repeat("t", 256)), []string{"spec.tableName", "255"}},
		{"table: region in capitals", table, "", with(okTable(), "region", "EU-WEST-1"), []string{"spec.region in body should match"}},
		{"table: zero write capacity", table, "", with(with(okTable(), "billingMode", "PROVISIONED"), "provisionedThroughput", obj{"readCapacityUnits": 1, "writeCapacityUnits": 0}), []string{"spec.provisionedThroughput.writeCapacityUnits", "greater than or equal to 1"}},
		{"table: capacity as a word", table, "", with(with(okTable(), "billingMode", "PROVISIONED"), "provisionedThroughput", obj{"readCapacityUnits": "ten", "writeCapacityUnits": 1}), []string{"readCapacityUnits", "must be of type integer"}},
		{"table: index name too short", table, "", tableWithGSI(gsi("ab", hash("g")), attr("g", "S")), []string{"spec.globalSecondaryIndexes[0].indexName", "at least 3 chars long"}},
		{"table: index with only a RANGE key", table, "", tableWithGSI(gsi("byG", rng("g")), attr("g", "S")), []string{"keySchema must start with the HASH key"}},
		{"table: index with five HASH keys", table, "", tableWithGSI(gsi("byG", hash("g"), hash("h"), hash("i"), hash("j"), hash("k")), attr("g", "S"), attr("h", "S"), attr("i", "S"), attr("j", "S"), attr("k", "S")), []string{"a global secondary index keySchema may have at most four HASH keys"}},
		{"table: index with a HASH key after a RANGE key", table, "", tableWithGSI(gsi("byG", hash("g"), rng("h"), hash("i")), attr("g", "S"), attr("h", "S"), attr("i", "S")), []string{"keySchema must list every HASH key before the RANGE keys"}},
		{"table: two HASH keys", table, "", with(with(okTable(), "keySchema", []any{hash("id"), hash("h")}), "attributeDefinitions", []any{attr("id", "S"), attr("h", "S")}), []string{"keySchema must have exactly one HASH key"}},
		{"table: index with an empty projection attribute", table, "", tableWithGSI(with(gsi("byG", hash("g")), "projection", obj{"projectionType": "INCLUDE", "nonKeyAttributes": []any{""}}), attr("g", "S")), []string{"nonKeyAttributes[0]", "at least 1 chars long"}},
		{"table: 51 attribute definitions", table, "", with(okTable(), "attributeDefinitions", many(51, func(i int) any { return attr(fmt.Sprintf("a%d", i), "S") })), []string{"spec.attributeDefinitions", "at most 50 items"}},
		{"table: 46 tags", table, "", with(okTable(), "tags", manyTags), []string{"spec.tags", "at most 45"}},
		{"table: SSE type AES256", table, "", with(okTable(), "sseSpecification", obj{"sseEnabled": true, "sseType": "AES256"}), []string{`Unsupported value: "AES256"`, `"KMS"`}},
		{"table: KMS key id too long", table, "", with(okTable(), "sseSpecification", obj{"sseEnabled": true, "kmsMasterKeyId": strings.Repeat("k", 2049)}), []string{"spec.sseSpecification.kmsMasterKeyId", "2048"}},
		{"table: TTL on an unnamed attribute", table, "", with(okTable(), "timeToLiveSpecification", obj{"attributeName": "", "enabled": true}), []string{"spec.timeToLiveSpecification.attributeName", "at least 1 chars long"}},
		{"table: stream without view type", table, "", with(okTable(), "streamSpecification", obj{}), []string{"spec.streamSpecification.streamViewType: Required value"}},
		{"table: deletion protection as a word", table, "", with(okTable(), "deletionProtectionEnabled", "yes"), []string{"spec.deletionProtectionEnabled", "must be of type boolean"}},
		{"table: LSI with three keys", table, "", with(with(with(okTable(), "keySchema", []any{hash("id"), rng("sk")}), "attributeDefinitions", []any{attr("id", "S"), attr("sk", "S"), attr("l", "N")}),
			"localSecondaryIndexes", []any{obj{"indexName": "byL", "keySchema": []any{hash("id"), rng("l"), rng("sk")}}}), []string{"must have at most 2 items"}},
	}

	newObj := func(kind, name string, spec obj) *unstructured.Unstructured {
		group := "hue.tether.dev/v1alpha1"
		if kind == table {
			group = "aws.tether.dev/v1alpha1"
		}
		u := &unstructured.Unstructured{Object: obj{"apiVersion": group, "kind": kind,
			"metadata": obj{"name": name, "annotations": obj{
				// No controller of this test may touch anything outside.
				commonv1alpha1.AnnotationReconcile: commonv1alpha1.ReconcilePaused}}}}
		if kind != bridge {
			u.SetNamespace(ns)
		}
		if spec != nil {
			u.Object["spec"] = spec
		}
		return u
	}

	rejectedCreates := 0
	for i, tc := range creates {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			name := tc.meta
			if name == "" {
				name = fmt.Sprintf("bad-manifest-%02d", i)
			}
			u := newObj(tc.kind, name, tc.spec)
			err := c.Create(ctx, u, client.FieldValidation("Strict"))
			if err == nil {
				_ = c.Delete(ctx, u)
				t.Fatalf("accepted; want a rejection mentioning %q", tc.want)
			}
			for _, w := range tc.want {
				g.Expect(err.Error()).To(ContainSubstring(w), "the message a person reads")
			}
			g.Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "a client error, not a server fault: %v", err)
			if tc.meta == "" { // a name the API server accepts: prove nothing was stored
				check := newObj(tc.kind, name, nil)
				g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(check), check))).To(BeTrue(), "a refused object must not exist")
			}
			rejectedCreates++
		})
	}

	// Updates the API server refuses: the stored spec stays as it was.
	updates := []struct {
		name   string
		kind   string
		spec   obj
		change func(spec obj)
		want   []string
	}{
		{"light: brightness raised past 254", light, with(okLight(), "brightness", 100),
			func(s obj) { s["brightness"] = 300 }, []string{"less than or equal to 254"}},
		{"light: a second colour added", light, with(okLight(), "color", obj{"colorTemperature": 300}),
			func(s obj) { s["color"].(obj)["xy"] = []any{0.3, 0.3} }, []string{"color must set exactly one of"}},
		{"light: name removed without an id", light, okLight(),
			func(s obj) { delete(s, "name") }, []string{"set exactly one of name"}},
		{"bridge: address changed to ftp", bridge, okBridge(),
			func(s obj) { s["address"] = "ftp://bridge" }, []string{"address scheme must be http:// or https://"}},
		{"table: RANGE key added", table, okTable(),
			func(s obj) {
				s["attributeDefinitions"] = []any{attr("id", "S"), attr("sk", "S")}
				s["keySchema"] = []any{hash("id"), rng("sk")}
			}, []string{"keySchema cannot be changed after creation"}},
		{"table: tableName added", table, okTable(),
			func(s obj) { s["tableName"] = "another-table" }, []string{"tableName cannot be added or removed after creation"}},
		{"table: switched to PROVISIONED without capacity", table, okTable(),
			func(s obj) { s["billingMode"] = "PROVISIONED" }, []string{"provisionedThroughput is required when billingMode is PROVISIONED"}},
		{"table: LSI added later", table, with(with(okTable(), "keySchema", []any{hash("id"), rng("sk")}), "attributeDefinitions", []any{attr("id", "S"), attr("sk", "S")}),
			func(s obj) {
				s["attributeDefinitions"] = append(s["attributeDefinitions"].([]any), attr("l", "N"))
				s["localSecondaryIndexes"] = []any{obj{"indexName": "byL", "keySchema": []any{hash("id"), rng("l")}}}
			}, []string{"localSecondaryIndexes cannot be added or removed after creation"}},
	}
	rejectedUpdates := 0
	for i, tc := range updates {
		t.Run("update "+tc.name, func(t *testing.T) {
			g := NewWithT(t)
			u := newObj(tc.kind, fmt.Sprintf("bad-update-%02d", i), tc.spec)
			g.Expect(c.Create(ctx, u, client.FieldValidation("Strict"))).To(Succeed(), "the starting point is valid")
			t.Cleanup(func() { deleteAndWait(t, c, u) })
			before := fmt.Sprint(u.Object["spec"])

			changed := u.DeepCopy()
			tc.change(changed.Object["spec"].(obj))
			err := c.Update(ctx, changed, client.FieldValidation("Strict"))
			g.Expect(err).To(HaveOccurred(), "update accepted; want a rejection mentioning %q", tc.want)
			for _, w := range tc.want {
				g.Expect(err.Error()).To(ContainSubstring(w))
			}
			stored := newObj(tc.kind, u.GetName(), nil)
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(u), stored)).To(Succeed())
			g.Expect(fmt.Sprint(stored.Object["spec"])).To(Equal(before), "a refused update must leave the old spec")
			g.Expect(stored.GetGeneration()).To(Equal(u.GetGeneration()))
			rejectedUpdates++
		})
	}
	if !t.Failed() && rejectedCreates+rejectedUpdates < 40 {
		t.Fatalf("only %d bad manifests were checked; issue 7 asks for at least 40", rejectedCreates+rejectedUpdates)
	}
}

// deleteAndWait deletes obj and waits until it is gone (a finalizer of a
// running controller may hold it briefly).
func deleteAndWait(t *testing.T, c client.Client, obj *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	_ = c.Delete(ctx, obj)
	NewWithT(t).Eventually(func() bool {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.FromAPIVersionAndKind(obj.GetAPIVersion(), obj.GetKind()))
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(obj), u))
	}, hueTimeout, huePoll).Should(BeTrue(), "%s %s left behind", obj.GetKind(), obj.GetName())
}

// TestBadManifestsReportedInConditions: mistakes only the outside world can
// reveal pass the API server; the controller names them in the Ready
// condition and sends nothing to the bridge.
func TestBadManifestsReportedInConditions(t *testing.T) {
	h := newHueEnv(t, "badrefs", false, "hallway")
	g := NewWithT(t)
	ctx := context.Background()
	// A username the bridge never issued.
	h.writeSecret("not-a-username-the-bridge-knows")
	g.Eventually(func(g Gomega) string {
		c := meta.FindStatusCondition(h.hueBridge(g).Status.Conditions, "Ready")
		g.Expect(c).NotTo(BeNil())
		return string(c.Status) + "/" + c.Reason + ": " + c.Message
	}, hueTimeout, huePoll).Should(And(HavePrefix("False/Unauthorized"), ContainSubstring("does not accept the stored username")))

	cases := []struct {
		name  string
		light func() *huev1alpha1.HueLight
		want  string
		msg   string
	}{
		{"a bridge that does not exist", func() *huev1alpha1.HueLight {
			l := h.newLight("entrance", "ghost-bridge", "hallway")
			l.Spec.BridgeRef.Name = "no-such-bridge"
			return l
		}, "False/BridgeNotFound", `HueBridge "no-such-bridge" does not exist`},
		// It never switched a bulb, so deleting it does not wait for a
		// re-pairing (a HueLight that did waits, and pausing lets go).
		{"a bridge that refuses the credentials", func() *huev1alpha1.HueLight {
			return h.newLight("entrance", "refused", "hallway")
		}, "False/Unauthorized", "delete the credentials Secret and press the link button"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			l := tc.light()
			h.create(l)
			g.Eventually(func(g Gomega) string {
				c := meta.FindStatusCondition(h.light(g, l.Namespace, l.Name).Status.Conditions, "Ready")
				g.Expect(c).NotTo(BeNil())
				return string(c.Status) + "/" + c.Reason + ": " + c.Message
			}, hueTimeout, huePoll).Should(And(HavePrefix(tc.want+": "), ContainSubstring(tc.msg)))
			g.Expect(h.sim.Commands()).To(BeEmpty(), "nothing may reach the bulb")
			g.Expect(h.c.Delete(ctx, l)).To(Succeed())
			g.Eventually(func() bool {
				return apierrors.IsNotFound(h.c.Get(ctx, client.ObjectKeyFromObject(l), &huev1alpha1.HueLight{}))
			}, hueTimeout, huePoll).Should(BeTrue(), "the HueLight lets go")
		})
	}

	// A bridge at an address where nothing answers (pairing cannot start).
	nowhere := &huev1alpha1.HueBridge{
		ObjectMeta: metav1.ObjectMeta{Name: "badrefs-nowhere"},
		Spec: huev1alpha1.HueBridgeSpec{Address: "127.0.0.1:1",
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: hueSecretsNS, Name: "badrefs-nowhere"}},
	}
	g.Expect(h.c.Create(ctx, nowhere)).To(Succeed())
	defer func() {
		_ = h.c.Delete(ctx, nowhere)
		g.Eventually(func() bool {
			return apierrors.IsNotFound(h.c.Get(ctx, client.ObjectKeyFromObject(nowhere), &huev1alpha1.HueBridge{}))
		}, hueTimeout, huePoll).Should(BeTrue())
	}()
	g.Eventually(func(g Gomega) string {
		var b huev1alpha1.HueBridge
		g.Expect(h.c.Get(ctx, client.ObjectKeyFromObject(nowhere), &b)).To(Succeed())
		c := meta.FindStatusCondition(b.Status.Conditions, "Ready")
		g.Expect(c).NotTo(BeNil())
		return string(c.Status) + "/" + c.Reason + ": " + c.Message
	}, hueTimeout, huePoll).Should(And(HavePrefix("False/BridgeUnreachable"), ContainSubstring("badrefs-nowhere is unreachable")))
}
