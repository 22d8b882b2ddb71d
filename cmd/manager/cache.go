package main

import "sigs.k8s.io/controller-runtime/pkg/cache"

// cacheOptions keep the manager's informer caches small: objects are held
// without their managedFields, which Tether never reads (it writes with
// merge patches, never with server-side apply) and which take a good part
// of each cached object's memory at thousands of objects.
func cacheOptions() cache.Options {
	return cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
}
