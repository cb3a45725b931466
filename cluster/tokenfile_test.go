package cluster

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeTokenFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadTokenFile reads kube-apiserver's token file format.
func TestLoadTokenFile(t *testing.T) {
	path := writeTokenFile(t, `t-alice,alice,uid-1,"dev,ops"
t-bob,bob,uid-2
,nobody,uid-3
t-carol,carol,uid-4,admins
t-carol,carol2,uid-5,
`)
	tokens, err := loadTokenFile(path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]User{
		"t-alice": {Name: "alice", UID: "uid-1", Groups: []string{"dev", "ops"}},
		"t-bob":   {Name: "bob", UID: "uid-2"},
		"t-carol": {Name: "carol2", UID: "uid-5", Groups: []string{""}},
	}
	if len(tokens) != len(want) {
		t.Fatalf("%d tokens, want %d: %+v", len(tokens), len(want), tokens)
	}
	for tok, w := range want {
		got := tokens[tok]
		if got.Name != w.Name || got.UID != w.UID || !slices.Equal(got.Groups, w.Groups) {
			t.Errorf("%s: %+v, want %+v", tok, got, w)
		}
	}
	_, err = loadTokenFile(writeTokenFile(t, "t1,alice\n"), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "must have at least 3 columns (token, user name, user uid), found 2") {
		t.Fatalf("two columns: %v", err)
	}
}

// TestTokenAndAnonymousAuth: a token of the file authenticates its user
// (system:authenticated added), any other token is 401; without anonymous
// auth a request with no credential is 401 even for /livez.
func TestTokenAndAnonymousAuth(t *testing.T) {
	tokens, err := loadTokenFile(writeTokenFile(t, "t-alice,alice,uid-1,\"dev,ops\"\n"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := UserFrom(r.Context())
		w.Header().Set("X-User", u.Name+"|"+u.UID+"|"+strings.Join(u.Groups, ","))
	})
	for _, tc := range []struct {
		name, token, path string
		noAnonymous       bool
		code              int
		user              string
	}{
		{"file token", "t-alice", "/api/v1/namespaces", false, 200, "alice|uid-1|dev,ops,system:authenticated"},
		{"unknown token", "t-mallory", "/livez", false, 401, ""},
		{"anonymous", "", "/livez", false, 200, "system:anonymous||system:unauthenticated"},
		{"anonymous off", "", "/livez", true, 401, ""},
		{"anonymous off, file token", "t-alice", "/livez", true, 200, "alice|uid-1|dev,ops,system:authenticated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &Node{cfg: Config{NoAnonymousAuth: tc.noAnonymous}, api: &apiSecurity{tls: &tls.Config{}, tokens: tokens}, authz: testPolicy()}
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.token != "" {
				r.Header.Set("Authorization", "Bearer "+tc.token)
			}
			w := httptest.NewRecorder()
			n.withAuth(echo).ServeHTTP(w, r)
			if w.Code != tc.code || w.Header().Get("X-User") != tc.user {
				t.Fatalf("%d %q, want %d %q: %s", w.Code, w.Header().Get("X-User"), tc.code, tc.user, w.Body)
			}
			if tc.code == 401 && !strings.Contains(w.Body.String(), `"reason":"Unauthorized"`) {
				t.Fatalf("401 without kube's Status: %s", w.Body)
			}
		})
	}
}
