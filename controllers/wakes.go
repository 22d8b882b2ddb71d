package controllers

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The map functions that wake objects when another one changes (a bridge's
// lights, an account's tables, a scene's groups, ...) list the cache with
// client.UnsafeDisableDeepCopy: they only read names and references, and
// copying every object of a kind at each event was nearly all they
// allocated. Whatever may change an object it listed copies it first.

// requestsFor lists the objects of list's kind (opts narrow the list) and
// wakes those match says the change of changed concerns. A list that
// fails wakes none and is logged: the objects still look at their next
// resync.
func requestsFor[T client.Object](ctx context.Context, c client.Reader, changed client.Object, list client.ObjectList, match func(T) bool, opts ...client.ListOption) []reconcile.Request {
	if err := c.List(ctx, list, slices.Concat(opts, []client.ListOption{client.UnsafeDisableDeepCopy})...); err != nil {
		log.FromContext(ctx).Error(err, "listing the objects a change wakes", "list", fmt.Sprintf("%T", list),
			"changed", fmt.Sprintf("%T", changed), "name", client.ObjectKeyFromObject(changed))
		return nil
	}
	var out []reconcile.Request
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		if obj, ok := o.(T); ok && match(obj) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
		}
		return nil
	})
	return out
}

// updatesWhere passes the creations and deletions of a watched kind, and
// those of its updates that changed says concern the objects it wakes (a
// status write of its own, such as a contact time, wakes nobody). An
// object not of type T, which a watch of T never gets, passes.
func updatesWhere[T client.Object](changed func(old, new T) bool) predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(T)
			n, ok2 := e.ObjectNew.(T)
			return !ok1 || !ok2 || changed(o, n)
		},
	}
}
