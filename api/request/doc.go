// Package request carries what the serving chain learned about a request
// to the layers below it: who sent it. The cluster layer authenticates and
// stores the user with WithUser; the registry, the review resources and
// the admission of RBAC objects read it with UserFrom.
package request
