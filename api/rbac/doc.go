// Package rbac is kube-apiserver's RBAC authorizer over a node's own
// committed state, and the escalation check of writes of the RBAC kinds.
//
// # Following the state
//
// Authorizer.Run lists the Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings under their storage prefixes and watches each
// prefix from the revision it listed at; a watch that ends (stopped,
// compacted history, cut off for lagging) is followed by a new list and a
// new watch. The first list of each kind is a Most Recent (quorum) read,
// so a node that (re)starts never authorizes against state older than its
// start; later ones read the node's own state. Every node follows its own
// applied log: a binding committed anywhere is enforced on a node as soon
// as that node has applied it (the watch delivers it, the index is
// rebuilt at once), well within a second on a healthy cluster.
//
// Each change rebuilds an immutable index (index.go) that Authorize reads
// without a lock: the bindings by subject — a User or ServiceAccount
// subject under the user name it matches, a Group subject under the
// group —, each binding with the rules of its role already resolved and
// the reason string of each subject already formatted. Authorize therefore
// looks only at the bindings that name the user or one of its groups, and
// allocates nothing unless it reports missing roles.
//
// # Evaluation
//
// Exactly kube's (plugin/pkg/auth/authorizer/rbac and
// pkg/registry/rbac/validation/rule.go): the ClusterRoleBindings, then the
// RoleBindings of the request's namespace; a binding applies through its
// first subject that matches the user; the first rule of its role that
// allows the request allows it, with kube's reason. A binding whose role
// is missing is skipped and reported in the reason of a NoOpinion. The
// decision is DecisionAllow or DecisionNoOpinion, never DecisionDeny.
// Bindings are visited in name order (kube's order is its cache's, which
// is unspecified); only the binding named in an allow's reason depends on
// the order.
//
// # Escalation prevention
//
// Authorizer.Admission is the resources' Admit hook (see
// resource.AdmitFunc and Guard): kube's policy-based storage of the four
// kinds (pkg/registry/rbac/*/policybased, escalation_check.go). A user may
// write a Role or ClusterRole if it may "escalate" it or already holds
// every permission it grants; a binding if it may "bind" the role it
// refers to or already holds every permission of that role. Requests
// without a user (in-process controllers) and members of system:masters
// are not checked; an update that changes only owner references and
// finalizers is not checked. The user's own permissions come from the
// index; the role a binding refers to is read from the store (Most
// Recent), so a role created a moment ago on another node is found.
package rbac
