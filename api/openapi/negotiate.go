package openapi

import (
	"strconv"
	"strings"
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

// negotiate returns the representation an Accept header prefers, JSON or
// the protobuf media types given: the acceptable clause with the highest
// q-value wins and the earlier clause a tie. An empty header gets JSON. ok
// is false when the header accepts neither.
//
// The protobuf media types contain "@", which mime.ParseMediaType rejects,
// so clauses are split by hand.
func negotiate(header string, protobufTypes ...string) (rep representation, ok bool) {
	if strings.TrimSpace(header) == "" {
		return asJSON, true
	}
	bestQ := 0.0
	for _, clause := range strings.Split(header, ",") {
		mediaType, params, _ := strings.Cut(clause, ";")
		mediaType = strings.ToLower(strings.TrimSpace(mediaType))
		var r representation
		switch {
		case mediaType == "application/json" || mediaType == "application/*" || mediaType == "*/*":
			r = asJSON
		case contains(protobufTypes, mediaType):
			r = asProtobuf
		default:
			continue
		}
		if q := quality(params); q > bestQ {
			rep, bestQ, ok = r, q, true
		}
	}
	return rep, ok
}

// quality is the q parameter among a clause's parameters, 1 when absent
// or malformed.
func quality(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.TrimSpace(k) != "q" {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || q > 1 {
			return 1
		}
		return q
	}
	return 1
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
