package registry

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// GetOptions are the options of a get.
type GetOptions struct {
	// ResourceVersion: "" is Most Recent, "0" Any, N Not older than N.
	ResourceVersion string
}

// ListOptions are the options of a list, watch or deletecollection, as
// the query parameters of the request carry them (already checked for
// form: a resourceVersion is a number, selectors parse).
type ListOptions struct {
	// ResourceVersion is "" when unset.
	ResourceVersion      string
	ResourceVersionMatch string
	Limit                int64
	Continue             string
	// LabelSelector and FieldSelector filter the objects; nil matches
	// everything.
	LabelSelector labels.Selector
	FieldSelector fields.Selector
	// SendInitialEvents is the watch's sendInitialEvents, nil when unset.
	SendInitialEvents *bool
}

// WriteOptions are the options of a create, update or patch.
type WriteOptions struct {
	// DryRun runs every step but the write.
	DryRun bool
	// FieldValidation is Ignore, Warn or Strict (metav1.FieldValidation*):
	// how unknown and duplicate fields of a patched object are treated.
	FieldValidation string
	// FieldManager is the fieldManager parameter ("" when unset); an
	// apply requires one.
	FieldManager string
	// Manager is the name managedFields record the write under: the
	// fieldManager parameter, or the client's User-Agent up to its first
	// "/".
	Manager string
	// Force takes over conflicting fields in an apply.
	Force bool
}

// Result is the outcome of a create, update or patch.
type Result struct {
	// Data is the object's stored form (or, for a dry run, the form it
	// would have been stored in).
	Data []byte
	// Warnings are for the client (Warning headers).
	Warnings []string
	// Created is set when the write created the object (an apply of a
	// missing object).
	Created bool
}

// DeleteResult is the outcome of a delete: the object is gone, or it
// stays, being deleted, held by finalizers.
type DeleteResult struct {
	// Data is the object's last stored form.
	Data []byte
	Gone bool
	// decided is set when the outcome stands on the state read: a
	// committed write or a dry run (see decideAgain).
	decided bool
}

// writeParams are a write's options and the warnings it collects on the
// way.
type writeParams struct {
	WriteOptions
	warnings []string
	// unchanged is set by a commit that found nothing to write: the
	// object read is returned as it is. A caller that read the node's own
	// state rather than the most recent must confirm that with a Most
	// Recent read, since the object may have changed since.
	unchanged bool
}

// decided reports whether a successful commit's outcome stands on the
// state it read (see decideAgain): it wrote, or it is a dry run, which
// writes nothing and is answered from the state read, as kube-apiserver
// answers one from its watch cache. An update that changed nothing does
// not stand.
func (wp *writeParams) decided() bool { return !wp.unchanged }
