package resource

import "k8s.io/kube-openapi/pkg/validation/spec"

// Schema is what the API knows of the shape of a resource without a Go
// type: a custom resource's structural schema. It plays the part the Go
// type plays for built-in resources. Decoding a request body prunes
// unknown fields through it and defaults the rest; reading a stored object
// does the same, so that objects stored before a default or a schema
// change read as the schema says now; OpenAPI publishes it and server-side
// apply merges by it.
//
// Implementations are immutable and safe for concurrent use.
type Schema interface {
	// Decoded coerces obj, the JSON content of a request body, to the
	// schema: it drops the fields the schema does not know and applies
	// defaults, and returns the paths of the fields it dropped
	// ("spec.extra", "metadata.bogus"), for fieldValidation. An error
	// means obj cannot be coerced (malformed metadata); it is the
	// client's.
	Decoded(obj map[string]any) (unknown []string, err error)
	// Stored coerces obj, the content of a stored object, to the schema
	// and the resource's version: unknown fields dropped, malformed
	// metadata dropped rather than refused, defaults applied, apiVersion
	// set to the served version.
	Stored(obj map[string]any)
	// OpenAPI returns the schema of the resource's objects for an
	// OpenAPI v3 (v3 true) or Swagger 2.0 document, without apiVersion,
	// kind and metadata, which the document adds; nil when the objects
	// have no declared fields. The caller may modify the result.
	OpenAPI(v3 bool) *spec.Schema
	// Fingerprint identifies the schema's content, for caches of
	// documents and type information derived from it.
	Fingerprint() string
	// StorageVersion is the version whose apiVersion stored objects
	// carry, whatever version they were written in: the versions of a
	// resource share its storage keys.
	StorageVersion() string
}
