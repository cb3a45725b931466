package builtin

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// fixedNow is the clock of the tests' Table cells.
var fixedNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return fixedNow }

// mustResource returns the built-in resource with the given plural.
func mustResource(t *testing.T, plural string) *resource.Resource {
	t.Helper()
	for _, r := range Resources() {
		if r.Plural == plural {
			return r
		}
	}
	t.Fatalf("no built-in resource %q", plural)
	return nil
}

// mustMap is obj as the API layer sees it after JSON decoding.
func mustMap(t *testing.T, obj any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return m
}

// errs is the expected errors, each "Type field" as in fieldErrs.
type errs []string

// fieldErrs renders errors as sorted "Type field" strings, for comparing
// without depending on map iteration order.
func fieldErrs(list field.ErrorList) errs {
	out := errs{}
	for _, e := range list {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	sort.Strings(out)
	return out
}

// checkErrs fails unless got holds exactly the errors in want.
func checkErrs(t *testing.T, got field.ErrorList, want errs) {
	t.Helper()
	w := append(errs{}, want...)
	sort.Strings(w)
	g := fieldErrs(got)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("errors:\n got %q\nwant %q\n(%v)", g, w, got)
	}
}

// cell returns the cell of the column named name for obj.
func cell(t *testing.T, r *resource.Resource, name string, obj any) any {
	t.Helper()
	m := mustMap(t, obj)
	for _, c := range r.Columns {
		if c.Name != name {
			continue
		}
		if c.Value != nil {
			return c.Value(m)
		}
		v, _ := resource.Lookup(m, c.Path)
		return v
	}
	t.Fatalf("%s has no column %q", r.Plural, name)
	return nil
}

// columnNames lists r's column names in order.
func columnNames(r *resource.Resource) []string {
	var names []string
	for _, c := range r.Columns {
		names = append(names, c.Name)
	}
	return names
}

// fieldValue is the field-selector value of fieldName for obj.
func fieldValue(t *testing.T, r *resource.Resource, obj any, fieldName string) string {
	t.Helper()
	v, ok := r.FieldValue(mustMap(t, obj), fieldName)
	if !ok {
		t.Fatalf("%s: field %q not supported", r.Plural, fieldName)
	}
	return v
}

func ptr[T any](v T) *T { return &v }
