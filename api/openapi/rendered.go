package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"sync"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

// rendered is one document encoded as JSON, its hash, and its protobuf
// form, made on first demand.
type rendered struct {
	json []byte
	// hash is the upper-case hex SHA-512 of json, kube-apiserver's ETag
	// and ?hash= value.
	hash string

	toProto func([]byte) ([]byte, error)
	once    sync.Once
	pb      []byte
	pbErr   error
}

// render encodes doc; toProto converts the JSON to protobuf.
func render(doc any, toProto func([]byte) ([]byte, error)) (*rendered, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: encode document: %w", err)
	}
	return &rendered{json: b, hash: fmt.Sprintf("%X", sha512.Sum512(b)), toProto: toProto}, nil
}

// protobuf returns the protobuf encoding of the document.
func (r *rendered) protobuf() ([]byte, error) {
	r.once.Do(func() { r.pb, r.pbErr = r.toProto(r.json) })
	return r.pb, r.pbErr
}

// v2Proto converts a Swagger 2.0 JSON document to gnostic's protobuf
// encoding, which client-go's OpenAPISchema decodes.
func v2Proto(b []byte) ([]byte, error) {
	doc, err := openapiv2.ParseDocument(b)
	if err != nil {
		return nil, fmt.Errorf("openapi: parse v2 document: %w", err)
	}
	return proto.Marshal(doc)
}

// v3Proto converts an OpenAPI 3.0 JSON document to gnostic's protobuf
// encoding.
func v3Proto(b []byte) ([]byte, error) {
	doc, err := openapiv3.ParseDocument(b)
	if err != nil {
		return nil, fmt.Errorf("openapi: parse v3 document: %w", err)
	}
	return proto.Marshal(doc)
}
