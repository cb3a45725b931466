package registry

import (
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The resourceVersion semantics of get, list and watch (DESIGN.md,
// "Semantics tables"): which state of the store a read sees.

var listGK = schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}

// revision parses a resourceVersion the handlers have checked is a
// number.
func revision(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}

// getReadOptions maps a get's resourceVersion: unset → Most Recent, "0" →
// Any, N → Not older than N.
func getReadOptions(rv string) ReadOptions {
	switch rv {
	case "":
		return ReadOptions{Consistency: MostRecent}
	case "0":
		return ReadOptions{Consistency: Any}
	}
	return ReadOptions{Consistency: NotOlderThan, Revision: revision(rv)}
}

func invalidList(path, value, detail string) error {
	return apierrors.NewInvalid(listGK, "", field.ErrorList{field.Invalid(field.NewPath(path), value, detail)})
}

// listReadOptions maps a list's parameters by the semantics table,
// rejecting the invalid combinations as kube-apiserver does.
func (o ListOptions) listReadOptions() (ReadOptions, error) {
	if o.SendInitialEvents != nil {
		return ReadOptions{}, invalidList("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents), "sendInitialEvents is forbidden for list")
	}
	if err := o.validateMatch(); err != nil {
		return ReadOptions{}, err
	}
	rv := o.ResourceVersion
	if o.Continue != "" {
		if rv != "" && rv != "0" {
			return ReadOptions{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		return ReadOptions{}, nil
	}
	switch {
	case rv == "":
		return ReadOptions{Consistency: MostRecent}, nil
	case rv == "0":
		return ReadOptions{Consistency: Any}, nil
	case o.ResourceVersionMatch == string(metav1.ResourceVersionMatchExact) || (o.ResourceVersionMatch == "" && o.Limit > 0):
		return ReadOptions{Consistency: Exact, Revision: revision(rv)}, nil
	}
	return ReadOptions{Consistency: NotOlderThan, Revision: revision(rv)}, nil
}

func (o ListOptions) validateMatch() error {
	match := o.ResourceVersionMatch
	switch metav1.ResourceVersionMatch(match) {
	case "":
		return nil
	case metav1.ResourceVersionMatchExact, metav1.ResourceVersionMatchNotOlderThan:
	default:
		return invalidList("resourceVersionMatch", match, "must be one of NotOlderThan, Exact")
	}
	if o.Continue != "" {
		return invalidList("resourceVersionMatch", match, "resourceVersionMatch is forbidden when continue is provided")
	}
	if o.ResourceVersion == "" {
		return invalidList("resourceVersionMatch", match, "resourceVersionMatch is forbidden unless resourceVersion is provided")
	}
	if match == string(metav1.ResourceVersionMatchExact) && o.ResourceVersion == "0" {
		return invalidList("resourceVersionMatch", match, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"")
	}
	return nil
}

// watchStart decides whether a watch starts with the current state (and
// read at which consistency) or from a revision.
func (o ListOptions) watchStart() (initial bool, ro ReadOptions, err error) {
	rv, match, send := o.ResourceVersion, o.ResourceVersionMatch, o.SendInitialEvents
	sendInitial := send != nil && *send
	if match != "" && send == nil {
		return false, ReadOptions{}, invalidList("resourceVersionMatch", match, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	}
	if sendInitial && match != string(metav1.ResourceVersionMatchNotOlderThan) {
		return false, ReadOptions{}, invalidList("resourceVersionMatch", match, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	}
	switch {
	case sendInitial && rv != "" && rv != "0":
		return true, ReadOptions{Consistency: NotOlderThan, Revision: revision(rv)}, nil
	case rv == "" && (send == nil || sendInitial):
		return true, ReadOptions{Consistency: MostRecent}, nil
	case rv == "0" && (send == nil || sendInitial):
		return true, ReadOptions{Consistency: Any}, nil
	}
	return false, ReadOptions{}, nil
}
