package apiextensions

import (
	"fmt"
	"reflect"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"

	"github.com/raftapi/raftapi/api/resource"
)

// NeedsNaming reports whether AcceptNames has work to do on c: kube's
// naming controller leaves a CRD alone, conditions included, when its
// spec.names equal its status.acceptedNames.
func NeedsNaming(c *apiextensionsv1.CustomResourceDefinition) bool {
	return !equality.Semantic.DeepEqual(c.Spec.Names, c.Status.AcceptedNames)
}

// AcceptNames computes what kube's naming controller writes into c's
// status: the accepted names and the NamesAccepted and Established
// conditions (without lastTransitionTime; see SetCondition).
//
// Each requested name (plural, singular, short names; kind, list kind) is
// accepted when it is already c's accepted name or no CRD of c's group
// (others, plus c's own accepted names) nor built-in resource of that
// group uses it; a refused name keeps its previously accepted value. The
// last conflict found sets NamesAccepted False with reason
// PluralConflict, SingularConflict, ShortNamesConflict, KindConflict or
// ListKindConflict and a message like `"foos" is already in use`;
// otherwise NamesAccepted is True, NoConflicts. Categories are always
// accepted. An entry of others with c's name is ignored.
//
// Established is c's own while it is True; otherwise False, Installing
// once the names are accepted (Establish then makes it True) or
// NotAccepted when c had none.
func AcceptNames(c *apiextensionsv1.CustomResourceDefinition, others []*apiextensionsv1.CustomResourceDefinition, builtins []*resource.Resource) (accepted apiextensionsv1.CustomResourceDefinitionNames, namesAccepted, established apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := namesInUse(c, others, builtins)
	accepted, namesAccepted = acceptNames(c.Spec.Names, c.Status.AcceptedNames, resources, kinds)
	return accepted, namesAccepted, namingEstablished(c, namesAccepted)
}

// namesInUse returns the resource names (plural, singular, short names)
// and kinds (kind, list kind) used in c's group.
func namesInUse(c *apiextensionsv1.CustomResourceDefinition, others []*apiextensionsv1.CustomResourceDefinition, builtins []*resource.Resource) (resources, kinds sets.Set[string]) {
	resources, kinds = sets.New[string](), sets.New[string]()
	add := func(n apiextensionsv1.CustomResourceDefinitionNames) {
		resources.Insert(n.Plural, n.Singular)
		resources.Insert(n.ShortNames...)
		kinds.Insert(n.Kind, n.ListKind)
	}
	add(c.Status.AcceptedNames)
	for _, o := range others {
		if o != nil && o.Name != c.Name && o.Spec.Group == c.Spec.Group {
			add(o.Status.AcceptedNames)
		}
	}
	for _, r := range builtins {
		if r != nil && r.Group == c.Spec.Group {
			add(apiextensionsv1.CustomResourceDefinitionNames{Plural: r.Plural, Singular: r.Singular, ShortNames: r.ShortNames, Kind: r.Kind, ListKind: r.ListKind})
		}
	}
	return resources, kinds
}

// acceptNames is kube's calculateNamesAndConditions less Established:
// each requested name replaces the accepted one unless it conflicts.
func acceptNames(requested, prev apiextensionsv1.CustomResourceDefinitionNames, resources, kinds sets.Set[string]) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition) {
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	out := prev
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	accept := func(reason string, name, was string, used sets.Set[string], set *string) {
		if err := equalToAcceptedOrFresh(name, was, used); err != nil {
			conflict(reason, err)
		} else {
			*set = name
		}
	}
	accept("PluralConflict", requested.Plural, prev.Plural, resources, &out.Plural)
	accept("SingularConflict", requested.Singular, prev.Singular, resources, &out.Singular)
	if !reflect.DeepEqual(requested.ShortNames, prev.ShortNames) {
		if err := shortNamesConflict(requested.ShortNames, prev.ShortNames, resources); err != nil {
			conflict("ShortNamesConflict", err)
		} else {
			out.ShortNames = requested.ShortNames
		}
	}
	accept("KindConflict", requested.Kind, prev.Kind, kinds, &out.Kind)
	accept("ListKindConflict", requested.ListKind, prev.ListKind, kinds, &out.ListKind)
	out.Categories = requested.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	return out, cond
}

// shortNamesConflict returns the conflicts of the requested short names
// that are not already accepted, aggregated, or nil.
func shortNamesConflict(requested, prev []string, used sets.Set[string]) error {
	own := sets.New(prev...)
	var errs []error
	for _, s := range requested {
		if own.Has(s) {
			continue
		}
		if err := equalToAcceptedOrFresh(s, "", used); err != nil {
			errs = append(errs, err)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// equalToAcceptedOrFresh accepts a name that is the accepted one or that
// nothing uses.
func equalToAcceptedOrFresh(requested, accepted string, used sets.Set[string]) error {
	if requested == accepted || !used.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// namingEstablished is the Established condition kube's naming controller
// writes: c's own while True, False Installing once the names are
// accepted, else c's own or False NotAccepted.
func namingEstablished(c *apiextensionsv1.CustomResourceDefinition, namesAccepted apiextensionsv1.CustomResourceDefinitionCondition) apiextensionsv1.CustomResourceDefinitionCondition {
	cond := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := apihelpers.FindCRDCondition(c, apiextensionsv1.Established); old != nil {
		cond = *old
	}
	if cond.Status != apiextensionsv1.ConditionTrue && namesAccepted.Status == apiextensionsv1.ConditionTrue {
		cond = apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: "Installing", Message: "the initial names have been accepted",
		}
	}
	return cond
}

// Establish is kube's establishing controller, to run once c's resource
// is served: when c's names are accepted (NamesAccepted True) and it is
// not yet Established, it returns the Established condition to set (True,
// InitialNamesAccepted; False, InvalidCABundle when c's conversion
// webhook has an invalid caBundle) and true; otherwise false.
func Establish(c *apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionCondition, bool) {
	if !apihelpers.IsCRDConditionTrue(c, apiextensionsv1.NamesAccepted) || apihelpers.IsCRDConditionTrue(c, apiextensionsv1.Established) {
		return apiextensionsv1.CustomResourceDefinitionCondition{}, false
	}
	if invalidCABundle(c) {
		return apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: "InvalidCABundle", Message: "The conversion webhook CABundle is invalid",
		}, true
	}
	return apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue,
		Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
	}, true
}

// invalidCABundle reports whether c's conversion webhook has a caBundle
// that is not valid PEM certificates.
func invalidCABundle(c *apiextensionsv1.CustomResourceDefinition) bool {
	conv := c.Spec.Conversion
	if conv == nil || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return false
	}
	return len(webhook.ValidateCABundle(field.NewPath(""), conv.Webhook.ClientConfig.CABundle)) > 0
}

// SetCondition sets cond in status, as kube's apihelpers.SetCRDCondition
// does but with the time given: a new condition, or one whose status
// changes, gets lastTransitionTime now; an existing one keeps its
// lastTransitionTime (unless unset) and takes cond's reason and message.
func SetCondition(status *apiextensionsv1.CustomResourceDefinitionStatus, cond apiextensionsv1.CustomResourceDefinitionCondition, now time.Time) {
	cond.LastTransitionTime.Time = now
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if old.Status != cond.Status || old.LastTransitionTime.IsZero() {
			old.LastTransitionTime = cond.LastTransitionTime
		}
		old.Status, old.Reason, old.Message = cond.Status, cond.Reason, cond.Message
		return
	}
	status.Conditions = append(status.Conditions, cond)
}
