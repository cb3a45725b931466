// Package pki holds a cluster's public-key infrastructure: the join token,
// the certificate authorities and keys derived from it, the certificates a
// node issues itself, and the admin kubeconfig.
//
// A cluster is defined by its token's secret. Every node derives from the
// secret, deterministically and without talking to anyone, the same three
// keys (see Derive):
//
//   - the cluster CA, which signs the API serving certificates and the
//     client certificates the API accepts (the admin's among them);
//   - the peer CA, which signs the certificates nodes present to each
//     other on the peer address (raft, forwarded writes, read index,
//     snapshot streaming);
//   - the service-account signing key.
//
// A node that knows the secret can therefore prove it belongs to the
// cluster (it holds a certificate from the peer CA), and a node that does
// not can neither join nor impersonate one. Both CAs are Ed25519, whose
// signatures are deterministic, so every node derives byte-identical CA
// certificates and the token's CA hash is the same everywhere.
package pki
