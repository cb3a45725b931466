// Package kubernetes holds no code: it is the Kubernetes manifests beside
// it (a StatefulSet of three raftapi nodes, its Services, its
// PodDisruptionBudget, and a kustomization generating the token Secret)
// and their tests. The tests decode every manifest strictly into the
// k8s.io/api types, check the invariants that tie the objects to each
// other and to the raftapi binary, and start a three-node cluster on
// loopback with the StatefulSet's own arguments. See README.md.
package kubernetes
