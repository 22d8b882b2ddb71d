package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// The two sides of a multi-account global table wake each other: a table
// that comes to join a source (or goes) changes what the source's policy
// must grant, and a source whose policy or status changed may now admit a
// join AWS refused before (providers/dynamodb/multiaccount.go). Without
// this, each would wait for its next resync.

// membersOfGlobalTable maps a DynamoDBTable to the other side of the
// multi-account global tables it is part of: the tables that join it, and
// the source it joins (by tableRef, or the tables of the name its tableArn
// names: a wider set than needed, which costs a pass each). Both are found
// by the table-name index, never by listing every table.
func membersOfGlobalTable(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		t, ok := obj.(*awsv1alpha1.DynamoDBTable)
		if !ok {
			return nil
		}
		var out []reconcile.Request
		add := func(namespace, name string) {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}})
		}
		joiners, err := dynamodb.JoinersOf(ctx, c, t)
		if err != nil {
			log.FromContext(ctx).Error(err, "listing the DynamoDBTables that join a table")
			return nil
		}
		for _, j := range joiners {
			if dynamodb.NamesSource(j, "", []*awsv1alpha1.DynamoDBTable{t}) {
				add(j.Namespace, j.Name)
			}
		}
		src := t.Spec.GlobalTableSource
		if src == nil {
			return out
		}
		// The other members that joined the same source: each one's policy
		// names every member (AWS checks them all on each join).
		siblings, err := dynamodb.SiblingsOf(ctx, c, t)
		if err != nil {
			log.FromContext(ctx).Error(err, "listing the DynamoDBTables that join the same source")
			return out
		}
		for _, j := range siblings {
			add(j.Namespace, j.Name)
		}
		if ns, name, ok := dynamodb.SourceRef(t); ok {
			add(ns, name)
			return out
		}
		_, _, _, name, ok := plan.ArnParts(src.TableArn)
		if !ok {
			return out
		}
		return append(out, requestsFor(ctx, c, t, &awsv1alpha1.DynamoDBTableList{}, func(o *awsv1alpha1.DynamoDBTable) bool {
			return o.UID != t.UID && o.ResolvedTableName() == name
		}, client.MatchingFields{dynamodb.IndexTableName: name})...)
	}
}

// globalTableMemberChanged passes what may change the other side: a table
// created or deleted, its spec changed, its policy's revision, its table's
// status, or its Ready condition (a source is Ready once the last of what a
// join needs is in place).
func globalTableMemberChanged() predicate.Predicate {
	return updatesWhere(func(o, n *awsv1alpha1.DynamoDBTable) bool {
		return o.Generation != n.Generation || o.Status.ResourcePolicyRevisionID != n.Status.ResourcePolicyRevisionID ||
			o.Status.TableStatus != n.Status.TableStatus || !o.DeletionTimestamp.Equal(n.DeletionTimestamp) ||
			readiness(o) != readiness(n)
	})
}

// readiness is the object's Ready condition's status, "" when it has none.
func readiness(t *awsv1alpha1.DynamoDBTable) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(t.Status.Conditions, commonv1alpha1.Ready); c != nil {
		return c.Status
	}
	return ""
}
