package declarative

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group is the API group of ConversionPolicy, raftapi's own.
const Group = "raftapi.io"

// ConversionPolicy declares how the objects of one CRD convert between
// its versions, in place of a conversion webhook: raftapi.io/v1,
// cluster-scoped, named as the CRD it converts. The CRD itself keeps the
// strategy None, so the same CRD manifest applies to any cluster; here a
// policy for it replaces None.
type ConversionPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ConversionPolicySpec `json:"spec"`
}

// ConversionPolicySpec lists the steps between adjacent versions.
type ConversionPolicySpec struct {
	// Steps chain every version of the CRD, each step joining two
	// adjacent versions (from the older to the newer, by convention), so
	// that together they form one chain through every version, each
	// once: an object converts from one version to another through the
	// steps between them. Each step converts both ways; the way back is
	// the way there inverted. A CRD of one version needs no step.
	Steps []ConversionStep `json:"steps"`
}

// ConversionStep converts between two adjacent versions. Converting an
// object from one to the other starts from the object as it is: renamed
// fields move, dropped fields go, computed fields are set and constants
// fill the fields still unset; a field at the same path in both versions
// is copied as it is; whatever else the target version's schema cannot
// hold is pruned; metadata and kind are carried and apiVersion names the
// target version. What the target cannot say is kept in a reserved
// annotation of the converted object (AnnotationPrefix), so that
// converting back restores the object exactly.
//
// Each field of either version must be accounted for: copied to the same
// path (of the same type) in the other version, or named by one rule. A
// field is named by at most one rule, and not inside a field another rule
// names (a rule on an object covers what it holds).
type ConversionStep struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Renames move a field of From to another path in To, and back.
	Renames []FieldRename `json:"renames,omitempty"`
	// Constants set a field of one version that the other lacks, when
	// converting into that version.
	Constants []FieldConstant `json:"constants,omitempty"`
	// Computed set a field of one version from a CEL expression over the
	// object in the other version (self), when converting into that
	// version.
	Computed []FieldComputed `json:"computed,omitempty"`
	// Dropped are fields of one version the other has no place for.
	Dropped []FieldRef `json:"dropped,omitempty"`
}

// FieldRename is a field at From in the step's From version and at To in
// its To version, of the same type: a rename or a move (into another
// object, created as needed), inverted on the way back. Paths are dotted
// ("spec.size") and name fields of the version's schema through object
// properties only: not a list element or a map entry, nor metadata,
// apiVersion or kind.
type FieldRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// FieldConstant is the value of Path in Version when converting into it
// and Path is still unset (after the renames and computed fields): a
// field the other version lacks. Value must be valid for the field's
// schema.
type FieldConstant struct {
	Version string               `json:"version"`
	Path    string               `json:"path"`
	Value   apiextensionsv1.JSON `json:"value"`
}

// FieldComputed is the value of Path in Version, computed by Expression
// from the object in the step's other version (self, the whole object,
// typed by that version's schema as in x-kubernetes-validations) when
// converting into Version. An expression whose result is null or that
// refers to a field the object lacks leaves Path unset; any other
// failure fails the conversion. Expressions are limited in cost as
// kube-apiserver limits x-kubernetes-validations rules, when the policy
// is written and when they run.
type FieldComputed struct {
	Version    string `json:"version"`
	Path       string `json:"path"`
	Expression string `json:"expression"`
}

// FieldRef names a field of one version that the other version has no
// place for: it is left out on the way to the other version (and kept in
// the reserved annotation).
type FieldRef struct {
	Version string `json:"version"`
	Path    string `json:"path"`
}
