// Package negotiation is the one place where the API reads Accept,
// Accept-Encoding and Content-Type: the resource handlers, discovery and
// OpenAPI all pick their representation here.
package negotiation
