// Package eventhub is the hub of the Event versions: one internal Event
// type that carries the union of the fields of core/v1 and
// events.k8s.io/v1 events, and the conversions of each version to and from
// it. Versions never convert to each other directly; they meet here, the
// centre of a star, as kube-apiserver's versions meet in its internal
// types. The validation of events, which depends on the version of the
// request, is written once over the hub.
//
// Every conversion is lossless: versioned → hub → versioned gives back an
// equal object for each version, and the fuzz tests of this package hold
// the conversions to that.
package eventhub
