// Package rbac keeps kube-apiserver's default RBAC policy in the cluster
// and runs the ClusterRole aggregation controller, as kube-apiserver's
// rbac/bootstrap-roles post-start hook and kube-controller-manager's
// clusterrole-aggregation controller do.
//
// The bootstrap policy (ClusterRoles, ClusterRoleBindings) is the one
// kube-apiserver installs, restricted to the resources this server
// serves: cluster-admin, the aggregated admin, edit and view roles and
// the system:aggregate-to-* roles that feed them, system:basic-user,
// system:discovery, system:public-info-viewer, system:monitoring,
// system:auth-delegator, system:service-account-issuer-discovery, and a
// system:controller:* role and binding for each of the server's own
// controllers (which run in process and bypass HTTP authorization: their
// roles document what they do). Every object carries the label
// kubernetes.io/bootstrapping=rbac-defaults and the annotation
// rbac.authorization.kubernetes.io/autoupdate=true.
//
// Reconciliation (Controller) follows kube-apiserver, through
// k8s.io/component-helpers' reconciliation package: a missing object is
// created; an existing one whose autoupdate annotation is not "false"
// gains the rules, aggregation selectors, subjects, labels and
// annotations it lacks, and keeps whatever users added; one annotated
// autoupdate=false is left alone. A binding whose roleRef changed is
// deleted and created again (a roleRef is immutable).
//
// Aggregation (Aggregator) follows kube-controller-manager: the rules of
// a ClusterRole with an aggregationRule are the union of the rules of
// every other ClusterRole matching one of its clusterRoleSelectors, taken
// selector by selector and role by role in name order, each rule once.
//
// Algorithm and guarantees under leader change: both controllers run on
// every node and write only while the node leads. The Controller
// reconciles the whole policy at the start of each term of leadership of
// its node, and again every retry period until a pass succeeds; the
// Aggregator watches the ClusterRoles and recomputes every aggregated
// role after any change (and at the start of each term, and
// periodically). Both keep no state a new leader needs: their writes are
// updates carrying the resourceVersion they read, so a deposed leader's
// late write fails with a conflict instead of undoing a newer one, and
// the next pass reads again.
package rbac
