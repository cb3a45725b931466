// Package request carries what the serving chain learned about a request
// to the layers below it: who sent it. The cluster layer authenticates and
// stores the user with WithUser; the registry, the review resources and
// the admission of RBAC objects read it with UserFrom. Query reads one
// query parameter without parsing a query that cannot hold it, for the
// filters that each look for one.
package request
