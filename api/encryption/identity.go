package encryption

import "bytes"

// encryptedPrefix starts every encrypted value; the identity provider
// refuses to read one.
const encryptedPrefix = "k8s:enc:"

// identity is the identity provider: values are stored as they are.
type identity struct{}

var _ transformer = identity{}

func (identity) read(stored, _ []byte) ([]byte, bool, error) {
	if bytes.HasPrefix(stored, []byte(encryptedPrefix)) {
		return nil, false, errEncryptedData
	}
	return stored, false, nil
}

func (identity) write(value, _ []byte) ([]byte, error) { return value, nil }
