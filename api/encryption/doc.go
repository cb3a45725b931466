// Package encryption encrypts stored objects at rest, configured as
// kube-apiserver's --encryption-provider-config is: LoadFile reads an
// EncryptionConfiguration (apiserver.config.k8s.io/v1) and Storage wraps
// the registry's Storage so that the objects of the resources it names
// are encrypted on their way to the store and decrypted on their way
// back. The store, its raft log, snapshots and backups only ever hold
// the ciphertext; the keys never leave the configuration file.
//
// # Providers
//
// The providers and their value formats are kube-apiserver's, byte for
// byte:
//
//   - aesgcm: "k8s:enc:aesgcm:v1:<key name>:" + 12-byte nonce + AES-GCM
//     ciphertext, with the storage key as additional authenticated data;
//   - aescbc: "k8s:enc:aescbc:v1:<key name>:" + 16-byte IV + AES-CBC
//     ciphertext of the PKCS#7-padded value;
//   - secretbox: "k8s:enc:secretbox:v1:<key name>:" + 24-byte nonce +
//     NaCl secretbox;
//   - identity: the value as it is.
//
// kms is refused: raftapi has no KMS plugin client. For each resource the
// first provider (and its first key) writes; every provider reads the
// values that start with its prefix, identity those that do not start
// with "k8s:enc:". A read by anything but the first provider and key is
// stale (registry.Object.Stale), and an update of a stale object is
// written even if it changes nothing: so kube's key rotation works —
// add the new key second, restart; move it first, restart; rewrite every
// object (kubectl get secrets -A -o json | kubectl replace -f -); remove
// the old key.
//
// Resources are matched as kube-apiserver does, by storage group and
// resource taken from the storage key ("/registry/<group, or core>/
// <resource>/..."): "secrets", "widgets.example.com", "*.example.com",
// "*." (the core group), "*.*". A resource no rule names is stored as it
// is, and an encrypted value found there is an error.
//
// # Envelope
//
// The store needs every stored value to be a JSON object: it stamps
// metadata.resourceVersion into it on each write and reads metadata.uid
// for UID preconditions. An encrypted object is therefore stored as an
// envelope that carries, in the clear, only what the store needs and
// what its storage key already says:
//
//	{"metadata":{"name":"db","namespace":"prod","uid":"6f1c…","resourceVersion":"42"},
//	 "raftapi.io/encrypted":"azhzOmVuYzphZXNnY206djE6a2V5MTo…"}
//
// The second member is the provider's value ("k8s:enc:aesgcm:v1:key1:…"),
// base64-encoded: the whole object, labels, annotations and all, is
// inside it. An envelope has exactly these two members. Reading one
// decrypts the value and sets its metadata.resourceVersion to the
// envelope's. A provider that does not encrypt (identity first) stores
// the object itself, as before encryption was configured.
//
// # Failures
//
// A value no configured key decrypts (a missing or wrong key, corrupt
// data) never stops the node: the read fails with a *TransformError,
// which the API answers with kube-apiserver's 500 InternalError
// ("Internal error occurred: unable to transform key …"), and is logged.
// A list that contains such an object fails as a whole, as in kube; a
// watch sends an ERROR event and ends. Label and field selectors are
// evaluated on decrypted objects; an object that cannot be decrypted
// matches, so the failure shows instead of hiding the object.
package encryption
