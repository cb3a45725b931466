package encryption

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/raftapi/raftapi/raftstore"
)

// encryptedField is the member of an envelope that holds the encrypted
// object. It cannot be a member of a Kubernetes object.
const encryptedField = "raftapi.io/encrypted"

// envelope is the stored form of an encrypted object: a JSON object, as
// the store requires, whose metadata holds only what is in the clear
// anyway or that the store must read (see the package documentation),
// and whose encryptedField holds the provider's output (a
// "k8s:enc:<provider>:v1:<key>:" value), base64-encoded by encoding/json.
type envelope struct {
	Metadata  envelopeMeta `json:"metadata"`
	Encrypted []byte       `json:"raftapi.io/encrypted"`
}

// envelopeMeta is the clear metadata of an envelope.
type envelopeMeta struct {
	// Name and Namespace are those of the storage key: they let a
	// predicate find the key, which an aesgcm value is bound to.
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// UID is the object's, which the store checks UID preconditions
	// against.
	UID string `json:"uid,omitempty"`
	// ResourceVersion is stamped by the store on every write.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// seal returns the envelope of obj, a JSON object, whose encrypted form
// is encrypted.
func seal(obj, encrypted []byte) ([]byte, error) {
	var o struct {
		Metadata envelopeMeta `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		return nil, fmt.Errorf("encryption: object is not a JSON object: %w", err)
	}
	env := envelope{Encrypted: encrypted, Metadata: envelopeMeta{
		Name: o.Metadata.Name, Namespace: o.Metadata.Namespace, UID: o.Metadata.UID,
	}}
	return json.Marshal(env)
}

// maybeEnvelope is a quick test that stored is not an envelope: false
// for almost every plain object.
func maybeEnvelope(stored []byte) bool {
	return bytes.Contains(stored, []byte(`"`+encryptedField+`"`))
}

// openEnvelope returns the envelope stored is, or nil when it is not one
// (a plain object, stored before encryption or by identity): an object
// with exactly the members metadata and encryptedField.
func openEnvelope(stored []byte) *envelope {
	var top map[string]json.RawMessage
	if json.Unmarshal(stored, &top) != nil || len(top) != 2 || top["metadata"] == nil || top[encryptedField] == nil {
		return nil
	}
	var env envelope
	if json.Unmarshal(top["metadata"], &env.Metadata) != nil || json.Unmarshal(top[encryptedField], &env.Encrypted) != nil {
		return nil
	}
	return &env
}

// stamp sets metadata.resourceVersion of obj to the envelope's, as the
// store stamped it.
func (e *envelope) stamp(obj []byte) ([]byte, error) {
	if e.Metadata.ResourceVersion == "" {
		return obj, nil
	}
	rev, err := strconv.ParseUint(e.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("envelope resourceVersion %q: %w", e.Metadata.ResourceVersion, err)
	}
	return raftstore.StampResourceVersion(obj, rev)
}
