package declarative

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// link is a step seen from one of its versions: the step's index and the
// version at its other end.
type link struct {
	step  int
	other string
}

// chainOf orders versions as steps join them, from one end of the chain
// to the other, and returns the errors that keep them from forming one
// chain that covers every version exactly.
func chainOf(versions []string, steps []ConversionStep, fld *field.Path) ([]string, field.ErrorList) {
	links, errs := linksOf(versions, steps, fld)
	if len(errs) > 0 {
		return nil, errs
	}
	start := ""
	for _, v := range versions {
		if len(links[v]) > 2 {
			errs = append(errs, field.Invalid(fld, v, fmt.Sprintf("version %s is joined by %d steps: each version joins at most two others, one step each, in a single chain", v, len(links[v]))))
		}
		if len(links[v]) == 1 && start == "" {
			start = v
		}
	}
	if start == "" {
		start = versions[0]
	}
	if len(errs) > 0 {
		return nil, errs
	}
	order := walk(start, links)
	for _, v := range versions {
		if !slices.Contains(order, v) {
			errs = append(errs, field.Required(fld, fmt.Sprintf("version %s is not chained to version %s: the steps must join every version of the definition in one chain", v, start)))
		}
	}
	if len(errs) == 0 && len(steps) != len(versions)-1 {
		errs = append(errs, field.Invalid(fld, len(steps), fmt.Sprintf("the steps form a cycle: %d versions are chained by %d steps, not %d", len(versions), len(versions)-1, len(steps))))
	}
	return order, errs
}

// linksOf indexes steps by version, refusing unknown versions, steps
// that join a version to itself and pairs joined twice.
func linksOf(versions []string, steps []ConversionStep, fld *field.Path) (map[string][]link, field.ErrorList) {
	var errs field.ErrorList
	links := map[string][]link{}
	seen := map[[2]string]bool{}
	for i, st := range steps {
		p := fld.Index(i)
		bad := false
		for _, end := range [][2]string{{"from", st.From}, {"to", st.To}} {
			if !slices.Contains(versions, end[1]) {
				errs = append(errs, field.NotFound(p.Child(end[0]), end[1]))
				bad = true
			}
		}
		pair := [2]string{min(st.From, st.To), max(st.From, st.To)}
		switch {
		case bad:
		case st.From == st.To:
			errs = append(errs, field.Invalid(p.Child("to"), st.To, "must differ from from: a step joins two versions"))
		case seen[pair]:
			errs = append(errs, field.Duplicate(p, st.From+" and "+st.To))
		default:
			seen[pair] = true
			links[st.From] = append(links[st.From], link{step: i, other: st.To})
			links[st.To] = append(links[st.To], link{step: i, other: st.From})
		}
	}
	return links, errs
}

// walk follows links from start, each version once.
func walk(start string, links map[string][]link) []string {
	order := []string{start}
	for prev, cur := "", start; ; {
		next := ""
		for _, l := range links[cur] {
			if l.other != prev && !slices.Contains(order, l.other) {
				next = l.other
				break
			}
		}
		if next == "" {
			return order
		}
		order = append(order, next)
		prev, cur = cur, next
	}
}
