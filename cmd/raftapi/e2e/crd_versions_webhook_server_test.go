package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// thingWebhook is the conversion webhook of the things CRD, served over
// TLS by the test with a CA of its own: v1 spec.count is v2 spec.total.
// It refuses to convert a thing whose name starts with "broken", with
// the message brokenMessage gives.
type thingWebhook struct {
	srv   *httptest.Server
	caPEM []byte

	mu      sync.Mutex
	reviews []thingReview // one per request, in order
}

// thingReview is what one ConversionReview asked.
type thingReview struct {
	desired string   // desiredAPIVersion
	names   []string // of the objects, in order
}

// brokenMessage is the webhook's answer for the thing named name.
func brokenMessage(name string) string { return "thing " + name + " cannot be converted" }

// startThingWebhook starts the webhook on 127.0.0.1, with a serving
// certificate for that address from a new CA.
func startThingWebhook(t *testing.T) *thingWebhook {
	t.Helper()
	ca := secNewTestCA(t, "e2e conversion webhook CA")
	certFile, keyFile := ca.issue(t, t.TempDir(), "webhook", x509.Certificate{
		Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	wh := &thingWebhook{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})}
	wh.srv = httptest.NewUnstartedServer(http.HandlerFunc(wh.serve))
	wh.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	wh.srv.StartTLS()
	t.Cleanup(wh.srv.Close)
	return wh
}

// url is where the CRD's clientConfig points.
func (wh *thingWebhook) url() string { return wh.srv.URL + "/convert" }

// since returns the reviews received after the first n.
func (wh *thingWebhook) since(n int) []thingReview {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	return slices.Clone(wh.reviews[n:])
}

// count returns how many reviews have been received.
func (wh *thingWebhook) count() int {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	return len(wh.reviews)
}

// serve answers one ConversionReview.
func (wh *thingWebhook) serve(w http.ResponseWriter, r *http.Request) {
	var review apiextensionsv1.ConversionReview
	if r.URL.Path != "/convert" || r.Method != http.MethodPost {
		http.Error(w, "POST /convert only", http.StatusNotFound)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("not a ConversionReview request: %v", err), http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	rec := thingReview{desired: review.Request.DesiredAPIVersion}
	for _, raw := range review.Request.Objects {
		out, name, err := convertThing(raw.Raw, review.Request.DesiredAPIVersion)
		rec.names = append(rec.names, name)
		if err != nil {
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
			resp.ConvertedObjects = nil
			break
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
	}
	wh.mu.Lock()
	wh.reviews = append(wh.reviews, rec)
	wh.mu.Unlock()
	review.Request, review.Response = nil, resp
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// convertThing converts one thing to apiVersion desired and returns it
// with its name.
func convertThing(raw []byte, desired string) ([]byte, string, error) {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, "", err
	}
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if strings.HasPrefix(name, "broken") {
		return nil, name, fmt.Errorf("%s", brokenMessage(name))
	}
	from, to := "count", "total"
	if strings.HasSuffix(desired, "/v1") {
		from, to = to, from
	}
	if spec, ok := obj["spec"].(map[string]any); ok {
		if v, ok := spec[from]; ok {
			delete(spec, from)
			spec[to] = v
		}
	}
	obj["apiVersion"] = desired
	out, err := json.Marshal(obj)
	return out, name, err
}
