// Package codec holds what the handlers and the registry share about an
// object's bytes: the media types the API speaks, the scheme and
// serializers of the typed resources, the two forms of an object (its
// stored JSON and its working Go value) and the decoding of request bodies
// with field validation.
package codec
