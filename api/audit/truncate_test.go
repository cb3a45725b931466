package audit

import (
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// TestTruncate: with --audit-log-truncate-enabled an event over the size
// loses its objects and says so; one still too large is dropped.
func TestTruncate(t *testing.T) {
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("v", 4000) + `"}}`
	a, path := newTestAuditor(t, policyAt("RequestResponse"), func(o *Options) {
		o.LogTruncateEnabled, o.LogTruncateMaxEventSize = true, 2000
	})
	serve(a.Handler(withTestAuth(testAPI)), request{method: "POST", target: "/api/v1/namespaces/ns/configmaps", body: big})
	evs := readEvents(t, path)
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	ev := evs[1]
	if ev.RequestObject != nil || ev.ResponseObject != nil || ev.Annotations["audit.k8s.io/truncated"] != "true" || ev.ObjectRef.Name != "big" {
		t.Errorf("truncated event: %+v", ev)
	}

	a, path = newTestAuditor(t, policyAt("Metadata"), func(o *Options) {
		o.LogTruncateEnabled, o.LogTruncateMaxEventSize = true, 100
	})
	serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
	if evs := readEvents(t, path); len(evs) != 0 {
		t.Errorf("events over the limit written: %+v", evs)
	}
}

// TestProtobufBodies: Protobuf requests and responses are recorded as
// JSON.
func TestProtobufBodies(t *testing.T) {
	codecs := codec.NewCodecs(resource.NewRegistry(builtin.Resources()...))
	a, path := newTestAuditor(t, policyAt("RequestResponse"))
	a.protobuf = codecs.Proto
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "p"}, Data: map[string]string{"k": "v"}}
	body, err := codecs.Protobuf(cm)
	if err != nil {
		t.Fatal(err)
	}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	})
	serve(a.Handler(withTestAuth(readBody(echo))), request{method: "POST", target: "/api/v1/namespaces/ns/configmaps", body: string(body),
		header: map[string]string{"Content-Type": "application/vnd.kubernetes.protobuf"}})
	evs := readEvents(t, path)
	ev := evs[len(evs)-1]
	want := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"p"},"data":{"k":"v"}}`
	if ev.RequestObject == nil || string(ev.RequestObject.Raw) != want || ev.ResponseObject == nil || string(ev.ResponseObject.Raw) != want {
		t.Errorf("requestObject %v responseObject %v, want %s", ev.RequestObject, ev.ResponseObject, want)
	}
	if ev.ObjectRef.Name != "p" {
		t.Errorf("objectRef %+v", ev.ObjectRef)
	}
}

// readBody reads the request body before next answers.
func readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 512)
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
		next.ServeHTTP(w, r)
	})
}
