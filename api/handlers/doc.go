// Package handlers holds the HTTP adapters of the resource verbs, shaped
// like kube-apiserver's endpoints/handlers: each parses the request
// (path, query, body, Accept), calls the registry and writes the response
// (the negotiated representation, or a Status error). No rule of a verb
// lives here: admission, validation, managedFields, preconditions and
// deletion propagation are the registry's.
package handlers
