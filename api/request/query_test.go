package request

import (
	"net/http/httptest"
	"testing"
)

// TestQuery checks Query against r.URL.Query() on the forms a query can
// take: absent, empty, repeated, escaped names and values, a name that
// another name contains, and a parameter that parsing drops.
func TestQuery(t *testing.T) {
	cases := []struct {
		raw, key string
		value    string
		ok       bool
	}{
		{"", "watch", "", false},
		{"resourceVersion=0", "watch", "", false},
		{"watch=true", "watch", "true", true},
		{"watch=", "watch", "", true},
		{"watch", "watch", "", true},
		{"watch=1&watch=0", "watch", "1", true},
		{"allowWatchBookmarks=true", "watch", "", false},
		{"allowWatchBookmarks=true&watch=1", "watch", "1", true},
		{"w%61tch=1", "watch", "1", true},
		{"timeout=5s%20", "timeout", "5s ", true},
		{"timeout=1s;x=2", "timeout", "", false},
		{"includeObject=Object&timeout=1m", "includeObject", "Object", true},
		{"access_token=%20abc", "access_token", " abc", true},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/api/v1/pods?"+c.raw, nil)
		value, ok := Query(r, c.key)
		if value != c.value || ok != c.ok {
			t.Errorf("Query(?%s, %q) = %q, %v; want %q, %v", c.raw, c.key, value, ok, c.value, c.ok)
		}
		want, wantOK := r.URL.Query()[c.key]
		if wantOK != ok || wantOK && want[0] != value {
			t.Errorf("Query(?%s, %q) = %q, %v; r.URL.Query() has %q, %v", c.raw, c.key, value, ok, want, wantOK)
		}
	}
}
