package convwebhook

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// NewWithTimeout is New with a timeout of its own, so that a test of the
// timeout need not wait kube's 30 s.
func NewWithTimeout(crd *apiextensionsv1.CustomResourceDefinition, timeout time.Duration) (*Converter, error) {
	return newConverter(crd, timeout)
}
