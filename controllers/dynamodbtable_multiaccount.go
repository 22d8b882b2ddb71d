package controllers

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// The two sides of a multi-account global table wake each other: a table
// that comes to join a source (or goes) changes what the source's policy
// must grant, and a source whose policy or status changed may now admit a
// join AWS refused before (providers/dynamodb/multiaccount.go). Without
// this, each would wait for its next resync.

// membersOfGlobalTable maps a DynamoDBTable to the other side of the
// multi-account global tables it is part of: the source it joins, and the
// tables that join it (by tableRef, or by a tableArn that names a table of
// its name: a wider set than needed, which costs a pass each).
func membersOfGlobalTable(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		t, ok := obj.(*awsv1alpha1.DynamoDBTable)
		if !ok {
			return nil
		}
		var all awsv1alpha1.DynamoDBTableList
		if err := c.List(ctx, &all); err != nil {
			log.FromContext(ctx).Error(err, "listing DynamoDBTables for a multi-account global table")
			return nil
		}
		var out []reconcile.Request
		add := func(o *awsv1alpha1.DynamoDBTable) {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.Namespace, Name: o.Name}})
		}
		for i := range all.Items {
			o := &all.Items[i]
			if o.UID == t.UID {
				continue
			}
			if joins(t, o) || joins(o, t) {
				add(o)
			}
		}
		return out
	}
}

// joins says whether joiner's spec.globalTableSource may name source.
func joins(joiner, source *awsv1alpha1.DynamoDBTable) bool {
	src := joiner.Spec.GlobalTableSource
	if src == nil {
		return false
	}
	if ref := src.TableRef; ref != nil {
		ns := ref.Namespace
		if ns == "" {
			ns = joiner.Namespace
		}
		return ns == source.Namespace && ref.Name == source.Name
	}
	return strings.HasSuffix(src.TableArn, ":table/"+source.ResolvedTableName())
}

// globalTableMemberChanged passes what may change the other side: a table
// created or deleted, its spec changed, its policy's revision or its
// table's status.
func globalTableMemberChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		DeleteFunc: func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*awsv1alpha1.DynamoDBTable)
			n, ok2 := e.ObjectNew.(*awsv1alpha1.DynamoDBTable)
			if !ok1 || !ok2 {
				return false
			}
			return o.Generation != n.Generation || o.Status.ResourcePolicyRevisionID != n.Status.ResourcePolicyRevisionID ||
				o.Status.TableStatus != n.Status.TableStatus || !o.DeletionTimestamp.Equal(n.DeletionTimestamp)
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
