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
	// Stored converts obj, the content of a stored object in whatever
	// version it was stored in, to the resource's version, in place, and
	// coerces it to the schema: unknown fields dropped, malformed metadata
	// dropped rather than refused, defaults applied, apiVersion set to the
	// served version. An error is a failed conversion (a conversion
	// webhook's), the request's answer.
	Stored(obj map[string]any) error
	// StoredAll is Stored for many objects at once (a list's items), with
	// one round trip for a converter that makes one.
	StoredAll(objs []map[string]any) error
	// ToStorage returns obj, in the resource's version, converted to the
	// storage version; obj itself is not modified, and is returned as is
	// when the versions are the same.
	ToStorage(obj map[string]any) (map[string]any, error)
	// ConvertTo returns obj, in any version of the resource's group and
	// kind (its apiVersion says which), converted to version by the same
	// conversion, without coercing it to a schema; obj itself is not
	// modified. Field managers use it to keep the managedFields entries
	// recorded in other versions.
	ConvertTo(obj map[string]any, version string) (map[string]any, error)
	// OpenAPI returns the schema of the resource's objects for an
	// OpenAPI v3 (v3 true) or Swagger 2.0 document, without apiVersion,
	// kind and metadata, which the document adds; nil when the objects
	// have no declared fields. The caller may modify the result.
	OpenAPI(v3 bool) *spec.Schema
	// Fingerprint identifies the schema's content, for caches of
	// documents and type information derived from it.
	Fingerprint() string
	// StorageVersion is the version objects are written in, whatever
	// version a request uses: the versions of a resource share its storage
	// keys. Objects written under an earlier storage version keep theirs
	// until rewritten.
	StorageVersion() string
}
