// Package declarative is raftapi's declarative conversion of custom
// resources: a ConversionPolicy (raftapi.io/v1) declares, per pair of
// adjacent versions of a CRD, the fields renamed or moved, the constants
// and CEL-computed values of fields one version lacks and the fields
// dropped. Validate checks a policy against the CRD's schemas when it is
// written; New compiles it into a Converter, which converts objects from
// any version to any other through the steps between them, losslessly:
// what a version cannot hold travels in a reserved annotation
// (AnnotationPrefix) and comes back when the object is converted back.
// DESIGN.md says why it works this way.
package declarative
