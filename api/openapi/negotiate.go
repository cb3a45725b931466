package openapi

import (
	"strings"

	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// representation is one encoding of an OpenAPI document.
type representation int

const (
	asJSON representation = iota + 1
	asProtobuf
)

// Protobuf media types of the documents: the name clients send (with "@")
// and the name kube-apiserver answers with, both accepted.
const (
	protobufV2         = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	protobufV2Accepted = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	protobufV3         = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	protobufV3Accepted = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// clientNames rewrites the protobuf media types clients send to the names
// the documents are served as.
var clientNames = strings.NewReplacer(
	protobufV2Accepted, protobufV2,
	protobufV3Accepted, protobufV3,
)

// negotiate returns the representation an Accept header prefers, JSON or
// the protobuf media types given: the acceptable entry with the highest
// q-value wins and the earlier entry a tie. An empty header gets JSON. ok
// is false when the header accepts neither.
func negotiate(header string, protobufTypes ...string) (rep representation, ok bool) {
	if strings.TrimSpace(header) == "" {
		return asJSON, true
	}
	bestQ := 0.0
	for _, a := range negotiation.ParseAcceptInOrder(header) {
		r, known := representationOf(a, protobufTypes)
		if !known {
			continue
		}
		if q := quality(a); q > bestQ {
			rep, bestQ, ok = r, q, true
		}
	}
	return rep, ok
}

// representationOf maps one Accept entry to the representation it asks
// for: JSON for JSON and wildcards, protobuf for protobufTypes under
// either name.
func representationOf(a negotiation.Accept, protobufTypes []string) (representation, bool) {
	switch {
	case a.Type == "application/json" || a.Type == "application/*" || a.Type == "*/*":
		return asJSON, true
	case offered(protobufTypes, a.Type):
		return asProtobuf, true
	}
	return 0, false
}

// quality is an entry's q-value with anything above 1 counted as 1, so
// that an out-of-range q-value ties with the default instead of beating
// it.
func quality(a negotiation.Accept) float64 {
	return min(a.Q, 1)
}

// offered reports whether protobufTypes hold mediaType, either named
// either way.
func offered(protobufTypes []string, mediaType string) bool {
	for _, t := range protobufTypes {
		if clientNames.Replace(t) == clientNames.Replace(mediaType) {
			return true
		}
	}
	return false
}
