// Package apiextensions serves apiextensions.k8s.io/v1
// CustomResourceDefinitions.
//
// CRDResource describes the resource: its naming, its Table and its
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
// Established conditions. Running them, writing the status and
// re-examining the CRDs of a group whose names changed is the caller's.
package apiextensions
