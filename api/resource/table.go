package resource

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

var nameColumn = metav1.TableColumnDefinition{
	Name: "Name", Type: "string", Format: "name", Priority: 0,
	Description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
}

var ageColumn = Column{
	TableColumnDefinition: metav1.TableColumnDefinition{
		Name: "Age", Type: "string",
		Description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.",
	},
	Path: "metadata.creationTimestamp",
}

// tableColumns returns every column: Name, the resource's own, Age.
func (r *Resource) tableColumns() []Column {
	hasName, hasAge := false, r.OmitAge
	for _, c := range r.Columns {
		hasName = hasName || c.Format == "name"
		hasAge = hasAge || c.Name == ageColumn.Name
	}
	var cols []Column
	if !hasName {
		cols = append(cols, Column{TableColumnDefinition: nameColumn, Path: "metadata.name"})
	}
	cols = append(cols, r.Columns...)
	if !hasAge {
		cols = append(cols, ageColumn)
	}
	return cols
}

// TableColumns returns the column definitions of the resource's Tables.
func (r *Resource) TableColumns() []metav1.TableColumnDefinition {
	cols := r.tableColumns()
	out := make([]metav1.TableColumnDefinition, len(cols))
	for i, c := range cols {
		out[i] = c.TableColumnDefinition
	}
	return out
}

// TableCells returns the cells of one object's row; now is the reference
// time for ages.
func (r *Resource) TableCells(obj map[string]any, now time.Time) []any {
	cols := r.tableColumns()
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.cell(obj, now)
	}
	return out
}

func (c Column) cell(obj map[string]any, now time.Time) any {
	if c.Value != nil {
		return c.Value(obj)
	}
	v, ok := Lookup(obj, c.Path)
	if !ok {
		return nil
	}
	if c.Path == ageColumn.Path {
		return Age(v, now)
	}
	return v
}

// Age renders a timestamp value as kubectl shows ages ("5m", "3d4h");
// "<unknown>" when it is not a timestamp.
func Age(v any, now time.Time) string {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}
