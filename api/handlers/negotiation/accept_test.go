package negotiation

import (
	"reflect"
	"testing"
)

// TestParseAcceptCached: a header parsed again answers as the first parse
// did, and what one caller does with its slice (ParseAccept sorts it) is
// not seen by the next.
func TestParseAcceptCached(t *testing.T) {
	h := "application/json;q=0.5, application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, */*;q=0.1"
	want := parseAcceptInOrder(h)
	first := ParseAcceptInOrder(h)
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("first parse %+v, want %+v", first, want)
	}
	first[0] = Accept{Type: "changed/by-caller"}
	sorted := ParseAccept(h)
	if sorted[0].Type != "application/vnd.kubernetes.protobuf" || sorted[0].Params["as"] != "Table" {
		t.Fatalf("ParseAccept after a caller changed its slice: %+v", sorted)
	}
	if again := ParseAcceptInOrder(h); !reflect.DeepEqual(again, want) {
		t.Fatalf("third parse %+v, want %+v (ParseAccept's sort must not reach the cache)", again, want)
	}
}
