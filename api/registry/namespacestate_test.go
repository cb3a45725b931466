package registry

import "testing"

func TestNamespaceStatesFollowTheRevision(t *testing.T) {
	var c namespaceStates
	active := Object{Key: NamespaceKey("a"), Rev: 5, Data: []byte(`{"metadata":{"name":"a"},"status":{"phase":"Active"}}`)}
	deleting := Object{Key: NamespaceKey("a"), Rev: 9, Data: []byte(`{"metadata":{"name":"a","deletionTimestamp":"2026-11-28T10:00:00Z"},"status":{"phase":"Active"}}`)}
	terminating := Object{Key: NamespaceKey("a"), Rev: 11, Data: []byte(`{"metadata":{"name":"a"},"status":{"phase":"Terminating"}}`)}
	for _, tc := range []struct {
		name string
		obj  Object
		want bool
	}{
		{"active", active, false},
		{"active again, cached", active, false},
		{"deletionTimestamp at a new revision", deleting, true},
		{"Terminating phase", terminating, true},
		{"an older read", active, false},
	} {
		got, err := c.terminating("a", tc.obj)
		if err != nil || got != tc.want {
			t.Errorf("%s: terminating = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := c.terminating("b", Object{Rev: 1, Data: []byte(`{`)}); err == nil {
		t.Error("a namespace that does not decode gave no error")
	}
}
