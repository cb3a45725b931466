package convwebhook_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/apiextensions/convwebhook"
)

// group is the API group of the test CRD, foos.example.com.
const group = "example.com"

// answer turns the review a test webhook received into its answer, any
// value encoded as JSON.
type answer func(t *testing.T, req *apiextensionsv1.ConversionReview) any

// received is one request a test webhook received.
type received struct {
	review *apiextensionsv1.ConversionReview
	body   []byte
	url    string
	header http.Header
}

// hook is a conversion webhook over TLS for the tests.
type hook struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []received
}

// newHook starts a webhook that answers with answer, stopped at the end
// of the test.
func newHook(t *testing.T, answer answer) *hook {
	t.Helper()
	h := &hook{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("webhook: read request: %v", err)
			return
		}
		review := &apiextensionsv1.ConversionReview{}
		if err := json.Unmarshal(body, review); err != nil {
			t.Errorf("webhook: decode request: %v", err)
		}
		h.mu.Lock()
		h.got = append(h.got, received{review: review, body: body, url: r.URL.String(), header: r.Header.Clone()})
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(answer(t, review)); err != nil {
			t.Errorf("webhook: encode answer: %v", err)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// newRawHook starts a webhook served by handler, stopped at the end of
// the test.
func newRawHook(t *testing.T, handler http.HandlerFunc) *hook {
	t.Helper()
	h := &hook{srv: httptest.NewTLSServer(handler)}
	t.Cleanup(h.srv.Close)
	return h
}

// requests returns what the webhook received so far.
func (h *hook) requests() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

// caBundle is the PEM certificate of the webhook's server.
func (h *hook) caBundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
}

// crd is foos.example.com (v1 storage, v2) converted by the webhook,
// trusted through its caBundle, speaking reviewVersions (v1 when none).
func (h *hook) crd(reviewVersions ...string) *apiextensionsv1.CustomResourceDefinition {
	return webhookCRD(h.srv.URL+"/convert", h.caBundle(), reviewVersions...)
}

// webhookCRD is foos.example.com converted by the webhook at url.
func webhookCRD(url string, caBundle []byte, reviewVersions ...string) *apiextensionsv1.CustomResourceDefinition {
	if len(reviewVersions) == 0 {
		reviewVersions = []string{"v1"}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foos." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Kind: "Foo"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true}, {Name: "v2", Served: true},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
					ConversionReviewVersions: reviewVersions,
				},
			},
		},
	}
}

// mustNew is convwebhook.New that fails the test on error.
func mustNew(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *convwebhook.Converter {
	t.Helper()
	c, err := convwebhook.New(crd)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// convertAll is a webhook answer converting every object with convert.
func convertAll(convert func(obj map[string]any, desired string)) answer {
	return func(t *testing.T, req *apiextensionsv1.ConversionReview) any {
		out := make([]runtime.RawExtension, len(req.Request.Objects))
		for i, raw := range req.Request.Objects {
			obj := decodeObject(t, raw.Raw)
			convert(obj, req.Request.DesiredAPIVersion)
			out[i].Raw = mustJSON(t, obj)
		}
		return success(req, out)
	}
}

// success is the successful answer to req with objs.
func success(req *apiextensionsv1.ConversionReview, objs []runtime.RawExtension) *apiextensionsv1.ConversionReview {
	return &apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Response: &apiextensionsv1.ConversionResponse{
			UID:              req.Request.UID,
			ConvertedObjects: objs,
			Result:           metav1.Status{Status: metav1.StatusSuccess},
		},
	}
}

// rename is the conversion between v1's spec.replicas and v2's
// spec.count; anything else is kept.
func rename(obj map[string]any, desired string) {
	from, to := "replicas", "count"
	if desired == group+"/v1" {
		from, to = to, from
	}
	obj["apiVersion"] = desired
	if spec, ok := obj["spec"].(map[string]any); ok {
		if v, ok := spec[from]; ok {
			spec[to] = v
			delete(spec, from)
		}
	}
}

// decodeObject decodes a JSON object keeping its numbers exact.
func decodeObject(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		t.Fatalf("decode object %s: %v", raw, err)
	}
	return obj
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

// otherCA is the PEM certificate of a CA that signed none of the test
// servers' certificates.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "other test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// foo is a v1 Foo named name in namespace ns with spec.replicas.
func foo(name string, replicas int64) map[string]any {
	return map[string]any{
		"apiVersion": group + "/v1",
		"kind":       "Foo",
		"metadata": map[string]any{
			"name": name, "namespace": "ns", "uid": "uid-" + name,
			"resourceVersion": "7", "generation": int64(2),
			"labels": map[string]any{"app": name},
		},
		"spec": map[string]any{"replicas": replicas},
	}
}
