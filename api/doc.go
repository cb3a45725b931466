// Package api serves the Kubernetes HTTP API on top of the replicated
// store: request parsing, resource registration, the resourceVersion
// semantics of list, get and watch, and Status errors.
//
// Resources are descriptions (see Resource): handlers are generic and know
// no resource by name, so more resources are added as data.
package api
