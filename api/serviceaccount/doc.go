// Package serviceaccount issues and verifies ServiceAccount tokens as
// kube-apiserver does (kubernetes pkg/serviceaccount): JWTs signed with
// the cluster's service-account key, carrying the issuer, the subject
// system:serviceaccount:NS:NAME, the audiences, the issue, not-before and
// expiry times, an ID (jti) and the private claim "kubernetes.io" naming
// the service account (and the secret a token is bound to).
//
// It serves, as descriptions and handlers for the API layer to mount:
//
//   - the token subresource of serviceaccounts (TokenRequest,
//     TokenRequestFunc), which signs a token for an existing service
//     account;
//   - tokenreviews (TokenReviewResource), which authenticates a token
//     with the node's token authenticators and reports the user;
//   - the OpenID Connect discovery document and key set of the issuer
//     (Tokens.Discovery), which let relying parties verify tokens.
//
// Authenticator verifies tokens for the node's authentication: the
// signature with any verification key, the issuer, the audiences, the
// times with go-jose's leeway of one minute, and that the service account
// (and the bound secret) still exists with the UID the token names, so a
// token dies with its service account even when one of the same name is
// created again. Every node derives the same signing key from the cluster
// token, so a token issued by one node is accepted by every other.
package serviceaccount
