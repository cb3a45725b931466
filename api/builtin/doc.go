// Package builtin describes the built-in resources the API serves:
// namespaces, configmaps, secrets, serviceaccounts and events in core/v1
// and leases in coordination.k8s.io/v1.
//
// Each description carries kube-apiserver v1.32's naming (kind, plural,
// singular, short names), its strategy (defaulting and type-specific
// validation, with the same field paths, error types and messages), its
// field-selector fields and its Table columns. Metadata validation, server
// managed metadata and storage are the API layer's; what is here is what
// differs per type.
//
// Where kube-apiserver's behaviour depends on the request's API version or
// on a feature gate, the code follows the core/v1 (or coordination/v1)
// request with v1.32's default gates, and says so where it matters.
package builtin
