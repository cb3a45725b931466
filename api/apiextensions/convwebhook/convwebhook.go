package convwebhook

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultTimeout bounds one call to a conversion webhook, kube-apiserver's
// timeout for every webhook request (k8s.io/apiserver pkg/util/webhook),
// reading the answer included. A conversion webhook has no timeoutSeconds
// of its own.
const DefaultTimeout = 30 * time.Second

// Converter calls one CRD's conversion webhook. It holds no state that a
// call changes, so one Converter serves any number of concurrent calls,
// over one HTTP client whose connections they share.
type Converter struct {
	group    string
	endpoint string // the POST URL, with kube's ?timeout= query
	review   string // the ConversionReview version sent, "" if none is supported
	client   *http.Client
}

// New returns the client of crd's conversion webhook. It fails when crd
// has no webhook conversion, when the webhook is named by a Service (raftapi
// reaches webhooks only by URL) or when its URL or caBundle cannot be used,
// the cases where kube-apiserver cannot build the webhook's client either.
func New(crd *apiextensionsv1.CustomResourceDefinition) (*Converter, error) {
	return newConverter(crd, DefaultTimeout)
}

// newConverter is New with the timeout of each call.
func newConverter(crd *apiextensionsv1.CustomResourceDefinition, timeout time.Duration) (*Converter, error) {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, fmt.Errorf("convwebhook: %s: spec.conversion has no webhook clientConfig", crd.Name)
	}
	cc := conv.Webhook.ClientConfig
	if cc.Service != nil {
		return nil, fmt.Errorf("convwebhook: %s: %w", crd.Name, ErrService)
	}
	if cc.URL == nil || *cc.URL == "" {
		return nil, fmt.Errorf("convwebhook: %s: webhook configuration must have either service or URL", crd.Name)
	}
	endpoint, err := endpointURL(*cc.URL, timeout)
	if err != nil {
		return nil, fmt.Errorf("convwebhook: %s: %w", crd.Name, err)
	}
	client, err := newHTTPClient(cc.CABundle, timeout)
	if err != nil {
		return nil, fmt.Errorf("convwebhook: %s: %w", crd.Name, err)
	}
	return &Converter{
		group:    crd.Spec.Group,
		endpoint: endpoint,
		review:   reviewVersion(conv.Webhook.ConversionReviewVersions),
		client:   client,
	}, nil
}

// ErrService is New's error for a webhook named by clientConfig.service.
var ErrService = errors.New("raftapi reaches conversion webhooks only by clientConfig.url; a clientConfig.service cannot be resolved")

// Convert converts objs to version to through the webhook, all of them in
// one ConversionReview, and returns the converted objects in order. It
// does not modify objs. An error is an *apierrors.StatusError, 500 with
// kube-apiserver's message. One object is answered as kube answers for
// one object, several as kube answers for a list.
func (c *Converter) Convert(objs []map[string]any, to string) ([]map[string]any, error) {
	if len(objs) == 0 {
		return []map[string]any{}, nil
	}
	desired := schema.GroupVersion{Group: c.group, Version: to}
	if len(objs) == 1 && isEmptyObject(objs[0]) {
		return []map[string]any{{"apiVersion": desired.String(), "kind": objs[0]["kind"]}}, nil
	}
	call := newCall(objs, desired)
	raw, err := c.roundTrip(call)
	if err != nil {
		return nil, err
	}
	return call.converted(raw)
}

// isEmptyObject reports whether o holds nothing but apiVersion and kind:
// kube converts such an object without calling the webhook.
func isEmptyObject(o map[string]any) bool {
	_, hasKind := o["kind"]
	_, hasAPIVersion := o["apiVersion"]
	return len(o) == 2 && hasKind && hasAPIVersion
}
