// Package apiextensions serves apiextensions.k8s.io/v1
// CustomResourceDefinitions and the custom resources they define.
//
// CRDResource describes the CRD resource: its naming, its Table and its
// strategies, which default, prepare and validate a CRD as kube-apiserver
// v1.37 does with its default feature gates. kube's strategy works on the
// internal apiextensions type; ours prepares the v1 object in place and
// converts a copy to the internal type for kube's validation package, so
// the messages and field paths are kube's (a schema shared by every
// version is reported under spec.validation, as kube reports it).
//
// AcceptNames and Establish are the pure part of kube's naming and
// establishing controllers: given a CRD, the other CRDs and the built-in
// resources, they compute status.acceptedNames and the NamesAccepted and
// Established conditions. api/controllers/crd runs them on the leader.
//
// Resources describes the served versions of a CRD as untyped resources
// whose resource.Schema is the version's compiled structural schema
// (schema.go: pruning, defaulting, OpenAPI) and whose strategy validates
// as kube's custom resource strategy does (strategy.go: OpenAPI schema,
// list types, embedded metadata, CEL rules, ratcheting). Serving keeps a
// node's served resources in step with the CRDs in its committed state.
// Everything schema-related is apiextensions-apiserver's own code, called
// as functions; its server and registry are not used.
package apiextensions
