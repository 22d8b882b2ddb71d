package controllers

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb"
)

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

// wakesWorld holds objects of every kind a map function lists, so that
// each case also shows what it leaves out.
func wakesWorld(t *testing.T) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, huev1alpha1.AddToScheme, awsv1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	ref := func(name string) *huev1alpha1.BridgeReference { return &huev1alpha1.BridgeReference{Name: name} }
	account := func(name string) *awsv1alpha1.AccountReference { return &awsv1alpha1.AccountReference{Name: name} }
	objs := []client.Object{
		&huev1alpha1.HueLight{ObjectMeta: objectMeta("home", "hall"), Spec: huev1alpha1.HueLightSpec{BridgeRef: ref("upstairs")}},
		&huev1alpha1.HueLight{ObjectMeta: objectMeta("home", "desk"), Spec: huev1alpha1.HueLightSpec{BridgeRef: ref("downstairs")}},
		&huev1alpha1.HueLight{ObjectMeta: objectMeta("garden", "porch")},
		&huev1alpha1.HueGroup{ObjectMeta: objectMeta("home", "living"), Spec: huev1alpha1.HueGroupSpec{BridgeRef: ref("upstairs"), Scene: "evening"}},
		&huev1alpha1.HueGroup{ObjectMeta: objectMeta("home", "kitchen"), Spec: huev1alpha1.HueGroupSpec{BridgeRef: ref("downstairs"), Scene: "morning"}},
		&huev1alpha1.HueGroup{ObjectMeta: objectMeta("garden", "terrace"), Spec: huev1alpha1.HueGroupSpec{Scene: "evening"}},
		&huev1alpha1.HueScene{ObjectMeta: objectMeta("home", "evening"), Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "living"}}},
		&huev1alpha1.HueScene{ObjectMeta: objectMeta("home", "morning"), Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "kitchen"}}},
		&huev1alpha1.HueScene{ObjectMeta: objectMeta("garden", "dusk"), Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: "living"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Annotations: map[string]string{awsv1alpha1.AnnotationNamespaceAccount: "prod"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab"}},
		&awsv1alpha1.DynamoDBTable{ObjectMeta: objectMeta("shop", "orders")},
		&awsv1alpha1.DynamoDBTable{ObjectMeta: objectMeta("shop", "audit"), Spec: awsv1alpha1.DynamoDBTableSpec{AccountRef: account("staging")}},
		&awsv1alpha1.DynamoDBTable{ObjectMeta: objectMeta("lab", "trials"), Spec: awsv1alpha1.DynamoDBTableSpec{AccountRef: account("prod")}},
		&awsv1alpha1.DynamoDBTable{ObjectMeta: objectMeta("lab", "scratch")},
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

// TestMapFunctionsWakeWhatTheChangeConcerns: each map function wakes the
// objects that name (or default to) the object that changed, and no other.
func TestMapFunctionsWakeWhatTheChangeConcerns(t *testing.T) {
	c := wakesWorld(t)
	bridge := func(name string) client.Object {
		return &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	cases := []struct {
		name    string
		mapFunc handler.MapFunc
		changed client.Object
		want    []string
	}{
		{"a bridge's lights, by name or by default", lightsOfBridge(c), bridge("upstairs"), []string{"garden/porch", "home/hall"}},
		{"a bridge's groups, by name or by default", groupsOfBridge(c), bridge("downstairs"), []string{"garden/terrace", "home/kitchen"}},
		{"the groups of a scene's namespace showing it", groupsShowing(c), &huev1alpha1.HueScene{ObjectMeta: objectMeta("home", "evening")}, []string{"home/living"}},
		{"the scenes of a group's namespace for it", scenesOfGroup(c), &huev1alpha1.HueGroup{ObjectMeta: objectMeta("home", "living")}, []string{"home/evening"}},
		{"an account's tables, by ref or by their namespace's default", tablesOfAccount(c), &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: "prod"}}, []string{"lab/trials", "shop/orders"}},
		{"a namespace's tables", tablesInNamespace(c), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lab"}}, []string{"lab/scratch", "lab/trials"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range tc.mapFunc(context.Background(), tc.changed) {
				got = append(got, r.String())
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("woke %v, want %v", got, tc.want)
			}
		})
	}
}

// failingLists is a cache whose lists fail.
type failingLists struct{ client.Reader }

func (failingLists) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("the cache is not synced")
}

// TestAFailedListWakesNothing: a list that fails wakes no object (they
// still look at their resync) rather than a wrong one.
func TestAFailedListWakesNothing(t *testing.T) {
	got := lightsOfBridge(failingLists{})(context.Background(), &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "upstairs"}})
	if len(got) != 0 {
		t.Fatalf("woke %v after a failed list", got)
	}
}

// TestAJoinerByARNWakesItsSourceAndSiblings: a table that joins a source
// named by ARN wakes the other joiners of that source and the tables of
// the source's name (found by the table-name index), not itself and not
// a table of another name.
func TestAJoinerByARNWakesItsSourceAndSiblings(t *testing.T) {
	s := runtime.NewScheme()
	if err := awsv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	orders := &awsv1alpha1.GlobalTableSource{TableArn: "arn:aws:dynamodb:us-east-1:111122223333:table/orders"}
	table := func(ns, name, uid string, src *awsv1alpha1.GlobalTableSource) *awsv1alpha1.DynamoDBTable {
		o := &awsv1alpha1.DynamoDBTable{ObjectMeta: objectMeta(ns, name), Spec: awsv1alpha1.DynamoDBTableSpec{GlobalTableSource: src}}
		o.UID = types.UID(uid)
		return o
	}
	joiner := table("lab", "replica-a", "1", orders)
	c := fake.NewClientBuilder().WithScheme(s).
		WithIndex(&awsv1alpha1.DynamoDBTable{}, dynamodb.IndexTableName, dynamodb.TableNameOf).
		WithObjects(joiner, table("lab2", "replica-b", "2", orders), table("shop", "orders", "3", nil), table("shop", "invoices", "4", nil)).
		Build()
	var got []string
	for _, r := range membersOfGlobalTable(c)(context.Background(), joiner) {
		got = append(got, r.String())
	}
	slices.Sort(got)
	if want := []string{"lab2/replica-b", "shop/orders"}; !slices.Equal(got, want) {
		t.Fatalf("woke %v, want %v", got, want)
	}
}

// TestWatchesPassOnlyWhatConcernsOthers: each watch's predicate passes the
// changes the objects it wakes depend on and not a status write that
// concerns nobody else; creations, deletions and objects of another type
// pass.
func TestWatchesPassOnlyWhatConcernsOthers(t *testing.T) {
	ready := func(gen int64) []metav1.Condition {
		return []metav1.Condition{{Type: commonv1alpha1.Ready, Status: metav1.ConditionTrue, ObservedGeneration: gen}}
	}
	paired := []metav1.Condition{{Type: huev1alpha1.ConditionPaired, Status: metav1.ConditionTrue}}
	scene := changedFrom(func() *huev1alpha1.HueScene { return &huev1alpha1.HueScene{ObjectMeta: objectMeta("home", "evening")} })
	group := changedFrom(func() *huev1alpha1.HueGroup { return &huev1alpha1.HueGroup{ObjectMeta: objectMeta("home", "living")} })
	bridge := changedFrom(func() *huev1alpha1.HueBridge { return &huev1alpha1.HueBridge{ObjectMeta: objectMeta("", "upstairs")} })
	table := changedFrom(func() *awsv1alpha1.DynamoDBTable {
		return &awsv1alpha1.DynamoDBTable{ObjectMeta: objectMeta("shop", "orders")}
	})
	cases := []struct {
		name     string
		watch    predicate.Predicate
		old, new client.Object
		pass     bool
	}{
		{"a scene's spec", sceneStoredOrChanged(), scene(nil), scene(func(s *huev1alpha1.HueScene) { s.Generation = 2 }), true},
		{"a scene stored", sceneStoredOrChanged(), scene(nil), scene(func(s *huev1alpha1.HueScene) { s.Status.SceneID = "abc" }), true},
		{"a scene Ready", sceneStoredOrChanged(), scene(nil), scene(func(s *huev1alpha1.HueScene) { s.Status.Conditions = ready(0) }), true},
		{"a scene's light count", sceneStoredOrChanged(), scene(nil), scene(func(s *huev1alpha1.HueScene) { s.Status.LightCount = 3 }), false},
		{"a group moved", groupPlaced(), group(nil), group(func(g *huev1alpha1.HueGroup) { g.Status.Bridge = "upstairs" }), true},
		{"a group's room", groupPlaced(), group(nil), group(func(g *huev1alpha1.HueGroup) { g.Status.GroupID = "3" }), true},
		{"a group's lights", groupPlaced(), group(nil), group(func(g *huev1alpha1.HueGroup) { g.Status.MemberCount = 2 }), true},
		{"a group's active scene", groupPlaced(), group(nil), group(func(g *huev1alpha1.HueGroup) { g.Status.ActiveScene = "evening" }), false},
		{"a bridge paired", bridgeReadinessChanged(), bridge(nil), bridge(func(b *huev1alpha1.HueBridge) { b.Status.Conditions = paired }), true},
		{"a bridge's spec", bridgeReadinessChanged(), bridge(nil), bridge(func(b *huev1alpha1.HueBridge) { b.Generation = 2 }), true},
		{"a bridge's last contact", bridgeReadinessChanged(), bridge(nil), bridge(func(b *huev1alpha1.HueBridge) { b.Status.LastContactTime = &metav1.Time{} }), false},
		{"a table's status", globalTableMemberChanged(), table(nil), table(func(tb *awsv1alpha1.DynamoDBTable) { tb.Status.TableStatus = "ACTIVE" }), true},
		{"a table Ready", globalTableMemberChanged(), table(nil), table(func(tb *awsv1alpha1.DynamoDBTable) { tb.Status.Conditions = ready(1) }), true},
		{"a table's policy", globalTableMemberChanged(), table(nil), table(func(tb *awsv1alpha1.DynamoDBTable) { tb.Status.ResourcePolicyRevisionID = "r2" }), true},
		{"a table's stream", globalTableMemberChanged(), table(nil), table(func(tb *awsv1alpha1.DynamoDBTable) { tb.Status.LatestStreamArn = "arn" }), false},
		{"another type", groupPlaced(), scene(nil), scene(nil), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.watch.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.pass {
				t.Errorf("update passes: %v, want %v", got, tc.pass)
			}
			if !tc.watch.Create(event.CreateEvent{Object: tc.new}) || !tc.watch.Delete(event.DeleteEvent{Object: tc.new}) {
				t.Error("a creation or deletion does not pass")
			}
		})
	}
}

// changedFrom makes objects from base, each with one change (none for nil).
func changedFrom[T client.Object](base func() T) func(change func(T)) client.Object {
	return func(change func(T)) client.Object {
		obj := base()
		if change != nil {
			change(obj)
		}
		return obj
	}
}
