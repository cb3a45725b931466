// Package serviceaccount keeps what kube-controller-manager's
// serviceaccounts controller and root-ca-cert-publisher keep in every
// namespace:
//
//   - a ServiceAccount named "default" in every active namespace, created
//     again when it is deleted;
//   - when the node has a CA bundle, a ConfigMap "kube-root-ca.crt" whose
//     data "ca.crt" is the bundle a client inside the cluster trusts to
//     reach the API, with kube's kubernetes.io/description annotation,
//     created again when deleted and put back when its data is changed.
//
// Algorithm: every node runs a Controller; only the leader acts. On
// becoming leader it lists the namespaces (its own state) and brings each
// in order, then watches, from the revision of that list, namespaces (an
// added or changed namespace), service accounts (a deleted "default")
// and configmaps (a changed or deleted "kube-root-ca.crt"), and brings in
// order the namespace each event names, within a moment of the change. A
// namespace whose writes fail is tried again every second; every minute,
// and whenever a watch ends, all namespaces are looked at again.
//
// Guarantees under leader change: the controller keeps no state. A new
// leader starts with a full pass. Creates carry "must not exist" and
// updates the revision read, so two leaders (an old one not yet aware it
// was deposed) cannot undo each other's or a client's newer write; a
// lost race is simply looked at again. Terminating namespaces are left
// alone (the registry refuses creates in them anyway).
package serviceaccount
