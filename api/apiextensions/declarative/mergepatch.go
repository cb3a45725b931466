package declarative

// createMergePatch returns the JSON merge patch (RFC 7386) that turns
// from into to, empty when they are equal. A null in to that from lacks
// cannot be said by a merge patch (null deletes); such a value is left
// out.
func createMergePatch(from, to map[string]any) map[string]any {
	patch := map[string]any{}
	for k := range from {
		if _, ok := to[k]; !ok {
			patch[k] = nil
		}
	}
	for k, tv := range to {
		fv, ok := from[k]
		switch {
		case !ok && tv == nil:
		case !ok:
			patch[k] = tv
		case jsonEqual(fv, tv):
		default:
			fm, fok := fv.(map[string]any)
			tm, tok := tv.(map[string]any)
			if fok && tok {
				if sub := createMergePatch(fm, tm); len(sub) > 0 {
					patch[k] = sub
				}
				continue
			}
			patch[k] = tv
		}
	}
	return patch
}

// applyMergePatch applies patch to target as RFC 7386 says, modifying
// target (which must not be shared) and returning it. Values of patch are
// taken as they are: the caller must not share patch either.
func applyMergePatch(target, patch map[string]any) map[string]any {
	if target == nil {
		target = map[string]any{}
	}
	for k, pv := range patch {
		if pv == nil {
			delete(target, k)
			continue
		}
		pm, ok := pv.(map[string]any)
		if !ok {
			target[k] = pv
			continue
		}
		tm, _ := target[k].(map[string]any)
		target[k] = applyMergePatch(tm, pm)
	}
	return target
}

// jsonEqual reports whether a and b are the same JSON value: numbers are
// compared by value, whatever their Go type.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	if ai, ok := a.(int64); ok {
		if bi, ok := b.(int64); ok {
			return ai == bi
		}
	}
	if an, ok := number(a); ok {
		bn, ok := number(b)
		return ok && an == bn
	}
	return a == b
}

// number returns v as a float64 when v is a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}
