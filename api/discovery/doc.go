// Package discovery serves the Kubernetes discovery documents of a
// resource.Registry: the legacy documents (/api, /api/{version}, /apis,
// /apis/{group}, /apis/{group}/{version}), aggregated discovery
// (apidiscovery.k8s.io v2 and v2beta1, chosen by the Accept header on /api
// and /apis) and /version.
//
// Documents are computed from the registry on every request, so resources
// added while serving appear at once. Mount the handler beside the resource
// routes with Routes, which registers exact GET paths only:
//
//	r := mux.NewRouter()
//	discovery.NewHandler(reg).Routes(r)
//	// then the resource routes (/api/v1/namespaces/..., ...)
//
// or use the Handler itself as an http.Handler, which answers every path it
// does not serve with a 404 Status.
package discovery
