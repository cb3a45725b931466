// Package openapi serves the OpenAPI documents of a resource.Registry, as
// kube-apiserver serves them:
//
//	/openapi/v2                          one Swagger 2.0 document, JSON or protobuf
//	/openapi/v3                          the index of group/version documents
//	/openapi/v3/api/{version}            OpenAPI 3.0, one per group/version,
//	/openapi/v3/apis/{group}/{version}   JSON or protobuf
//
// Schemas are built by reflection over the resources' Go types (json tags,
// patch-strategy tags, SwaggerDoc descriptions); resources without a Go
// type get an object schema that keeps unknown fields. Paths and operations
// follow kube-apiserver's names, so kubectl explain, kubectl's field
// validation check and client-go's OpenAPI clients work unchanged.
//
// Mount the handler beside the resource routes with Routes, which registers
// exact GET paths only:
//
//	r := mux.NewRouter()
//	openapi.NewHandler(reg).Routes(r)
//
// or use the Handler itself as an http.Handler. V2 and V3 return the
// documents for use in process.
package openapi
