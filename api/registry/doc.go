// Package registry holds the rules of each verb for each resource: create,
// get, list, watch, update, patch, apply, delete and deletecollection, on a
// resource or a subresource. Admission, defaulting, validation,
// managedFields, generation, finalizers and deletion propagation live
// here; HTTP does not (see api/handlers), and neither does storage (the
// registry consumes the Storage interface, which raftstore implements).
//
// A Registry is built from resource descriptions (api/resource) and takes
// new ones while it serves: a resource is data, not code.
package registry
