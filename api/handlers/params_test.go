package handlers

import (
	"fmt"
	"net/http/httptest"
	"testing"
)

// Boolean query parameters read as kube-apiserver's parameter codec
// reads them: only "0" and "false" (in any case) are false, and any other
// value, the empty one included, is true rather than a 400; an absent
// sendInitialEvents stays unset.
func TestBoolParamsReadAsKubeReadsThem(t *testing.T) {
	for _, tc := range []struct {
		query             string
		watch, bookmarks  bool
		sendInitialEvents string
	}{
		{"", false, false, "<nil>"},
		{"watch=true&allowWatchBookmarks=1&sendInitialEvents=true", true, true, "true"},
		{"watch=True&allowWatchBookmarks=t&sendInitialEvents=FALSE", true, true, "false"},
		{"watch=yes&allowWatchBookmarks=on&sendInitialEvents=x", true, true, "true"},
		{"watch&allowWatchBookmarks=&sendInitialEvents=", true, true, "true"},
		{"watch=false&allowWatchBookmarks=0&sendInitialEvents=0", false, false, "false"},
		{"watch=FALSE&allowWatchBookmarks=False", false, false, "<nil>"},
		{"watch=0&watch=1", false, false, "<nil>"}, // the first value counts
	} {
		q, err := parseQuery(httptest.NewRequest("GET", "/api/v1/configmaps?"+tc.query, nil), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		sie := "<nil>"
		if q.list.SendInitialEvents != nil {
			sie = fmt.Sprint(*q.list.SendInitialEvents)
		}
		if q.watch != tc.watch || q.bookmarks != tc.bookmarks || sie != tc.sendInitialEvents {
			t.Errorf("%q: watch %v, allowWatchBookmarks %v, sendInitialEvents %s; want %v, %v, %s",
				tc.query, q.watch, q.bookmarks, sie, tc.watch, tc.bookmarks, tc.sendInitialEvents)
		}
	}
}
