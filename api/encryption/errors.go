package encryption

import (
	"errors"
	"fmt"
)

// Errors of reading a stored value. Their messages are kube-apiserver's,
// which clients see in the 500 Status of a read that fails, so they do
// not carry the package prefix.
var (
	// errNoMatchingPrefix: no provider of the resource matches the
	// stored value (the key or provider that wrote it is not configured).
	errNoMatchingPrefix = errors.New("no matching prefix found")
	// errEncryptedData: the identity provider, or a resource without
	// providers, read an encrypted value.
	errEncryptedData = errors.New("identity transformer tried to read encrypted data")
	// errShortData: a value shorter than its nonce or IV.
	errShortData = errors.New("the stored data was shorter than the required size")
)

// TransformError says that the stored value at Key could not be turned
// back into its object: no configured key decrypts it, or it is corrupt.
// Nothing is wrong with the request, so the API answers 500 InternalError,
// as kube-apiserver does.
type TransformError struct {
	// Key is the storage key of the value.
	Key string
	// Err is why it failed.
	Err error
}

// Error is kube-apiserver's message for the same failure.
func (e *TransformError) Error() string {
	return fmt.Sprintf("unable to transform key %q: %v", e.Key, e.Err)
}

// Unwrap returns the cause.
func (e *TransformError) Unwrap() error { return e.Err }

// IsTransformError reports whether err is, or wraps, a TransformError.
func IsTransformError(err error) bool {
	var te *TransformError
	return errors.As(err, &te)
}
