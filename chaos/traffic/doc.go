// Package traffic is the clients of a chaos run: a register workload
// (per-key Most Recent gets, creates, updates and merge patches with a
// resourceVersion precondition, deletes), a list workload (Most Recent,
// Exact and NotOlderThan lists, paginated or not) and watchers (resuming
// from the last resourceVersion they saw after any disconnect, some with
// bookmarks, some starting with sendInitialEvents). Clients spread their
// requests over every node and record each operation in a
// history.Recorder with its outcome: ok, failed (definitely not applied)
// or unknown. They speak the public Kubernetes HTTP API with net/http.
//
// The registers are objects of two resources used alike (Resource):
// configmaps, the value in data.v, and the custom resource chaosobjects
// (ChaosObjects, whose CustomResourceDefinition and ConversionPolicy a
// run creates first), served in two versions, the value in spec.value
// through v1 and in spec.payload through v2; every value is unique per
// write. Register and list clients pick a resource for each operation,
// watchers follow one each; every request for a resource served in
// several versions goes through one picked at random.
// A 404 for a resource's path rather than an object's (a node that has
// not applied the definition) is recorded as Unserved, never as an absent
// object.
package traffic
