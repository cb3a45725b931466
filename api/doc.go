// Package api assembles the Kubernetes HTTP API of one node: the
// resource descriptions (api/resource, api/builtin), the registry that
// carries out the verbs over the store (api/registry), the HTTP handlers
// (api/handlers), discovery and OpenAPI, and the controllers that are
// clients of the registry (api/controllers). DESIGN.md beside this file
// walks through the request path.
//
// Resources are descriptions: handlers and registry are generic and know
// no resource by name, so a resource is added as data (Server.Register),
// also while the server runs.
package api
