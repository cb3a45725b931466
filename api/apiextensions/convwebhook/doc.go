// Package convwebhook is the client of custom resource conversion
// webhooks: it converts the objects of one CRD between its versions by
// posting a ConversionReview to spec.conversion.webhook.clientConfig.url
// and checking the answer, as kube-apiserver's webhook converter does
// (k8s.io/apiextensions-apiserver pkg/apiserver/conversion).
//
// What a call does, step by step:
//
//   - every object of one Convert call goes in one ConversionReview
//     (apiextensions.k8s.io/v1, or v1beta1 when the CRD lists only that
//     among its conversionReviewVersions), with a fresh request UID and
//     desiredAPIVersion "<group>/<to>";
//   - the request is an HTTPS POST verified against clientConfig.caBundle
//     (the system roots when it is empty), with kube's 30 s timeout;
//   - the answer must be a ConversionReview for that UID (v1), whose
//     result is Success, with one converted object per object sent, each
//     in the desired apiVersion, of the same kind, name, namespace and
//     UID; of the metadata only labels and annotations may change (and
//     must stay valid), the rest is restored from the original.
//
// Any failure fails the whole call with kube's message, "conversion
// webhook for <group>/<version>, Kind=<Kind> failed: <cause>", as a 500
// Status with no reason: kube-apiserver's answer to a converter error,
// which is not an API status. <group>/<version> is the version the (first)
// object was sent in, as kube names the object it converts; a call of
// several objects names a bad one by its index, as kube does in a list.
//
// clientConfig.service names an in-cluster Service that cannot be
// resolved here: CRD validation refuses it, and New refuses a CRD that
// has it.
package convwebhook
