package accessreview

import (
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// resourceAttributes are the authorizer's attributes of u doing what in
// says to a resource, as kube-apiserver builds them: an empty version is
// every version ("*"), and the selectors are parsed, a selector that does
// not parse (in part) being left out with its error kept.
func resourceAttributes(u user.Info, in *authorizationv1.ResourceAttributes) authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{
		User: u, Verb: in.Verb, Namespace: in.Namespace, APIGroup: in.Group,
		APIVersion: in.Version, Resource: in.Resource, Subresource: in.Subresource,
		Name: in.Name, ResourceRequest: true,
	}
	if a.APIVersion == "" {
		a.APIVersion = "*"
	}
	if s := in.LabelSelector; s != nil {
		if s.RawSelector != "" {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = parseLabelSelector(s.RawSelector)
		}
		if len(s.Requirements) > 0 {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = labelRequirements(s.Requirements)
		}
	}
	if s := in.FieldSelector; s != nil {
		if s.RawSelector != "" {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = parseFieldSelector(s.RawSelector)
		}
		if len(s.Requirements) > 0 {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = fieldRequirements(s.Requirements)
		}
	}
	return a
}

// nonResourceAttributes are the authorizer's attributes of u doing verb
// on a path.
func nonResourceAttributes(u user.Info, in *authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Path: in.Path, Verb: in.Verb}
}

// attributes are the attributes of whichever of res and nonRes is set
// (validation made sure one is).
func attributes(u user.Info, res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	if res != nil {
		return resourceAttributes(u, res)
	}
	return nonResourceAttributes(u, nonRes)
}

// specUser is the user a SubjectAccessReview's spec asks about.
func specUser(spec *authorizationv1.SubjectAccessReviewSpec) user.Info {
	u := &user.DefaultInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if spec.Extra != nil {
		u.Extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

func parseLabelSelector(raw string) (labels.Requirements, error) {
	sel, err := labels.Parse(raw)
	if err != nil {
		return nil, err
	}
	reqs, _ := sel.Requirements()
	return reqs, nil
}

func parseFieldSelector(raw string) (fields.Requirements, error) {
	sel, err := fields.ParseSelector(raw)
	if err != nil {
		return nil, err
	}
	return sel.Requirements(), nil
}

// evaluationError is the status.evaluationError of a review: the
// authorizer's error, and a note for each selector left out in whole or
// in part because it did not parse.
func evaluationError(err error, a authorizer.AttributesRecord) string {
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	if reqs, err := a.GetFieldSelector(); err != nil {
		msgs = append(msgs, selectorNote("fieldSelector", len(reqs) > 0))
	}
	if reqs, err := a.GetLabelSelector(); err != nil {
		msgs = append(msgs, selectorNote("labelSelector", len(reqs) > 0))
	}
	return strings.Join(msgs, "; ")
}

func selectorNote(name string, partly bool) string {
	if partly {
		return "spec.resourceAttributes." + name + " partially ignored due to parse error"
	}
	return "spec.resourceAttributes." + name + " ignored due to parse error"
}
