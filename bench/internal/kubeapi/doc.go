// Package kubeapi is a raw HTTP client for the part of the Kubernetes
// API the benchmarks drive: namespaces, ConfigMaps (create, update,
// delete, get, list) and ConfigMap watches, JSON bodies over the TLS
// configuration of an admin kubeconfig. It is built for load generation:
// it decodes only what it needs and scans watch events for their names
// instead of decoding them.
package kubeapi
