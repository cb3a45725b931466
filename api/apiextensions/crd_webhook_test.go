package apiextensions_test

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/raftapi/raftapi/api/apiextensions"
)

// serviceRefused is the error of a conversion webhook named by a Service.
const serviceRefused = "FieldValueInvalid spec.conversion.webhook.clientConfig.service: raftapi reaches conversion webhooks only by clientConfig.url; a clientConfig.service cannot be resolved"

// webhookConversion sets c's conversion to a webhook reached through cc.
func webhookConversion(cc apiextensionsv1.WebhookClientConfig) func(*apiextensionsv1.CustomResourceDefinition) {
	return func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.Versions = append(c.Spec.Versions, version("v2", false))
		c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: &cc, ConversionReviewVersions: []string{"v1"}},
		}
	}
}

// byURL and byService are the two ways to name a webhook.
var (
	byURL     = "https://conv.example.com/convert"
	byService = &apiextensionsv1.ServiceReference{Namespace: "conv", Name: "converter"}
)

func TestCRDValidateWebhookConversion(t *testing.T) {
	tests := []struct {
		name string
		cc   apiextensionsv1.WebhookClientConfig
		want []string
	}{
		{"by url", apiextensionsv1.WebhookClientConfig{URL: &byURL}, nil},
		{"by service", apiextensionsv1.WebhookClientConfig{Service: byService}, []string{serviceRefused}},
		{"by both, which kube refuses too", apiextensionsv1.WebhookClientConfig{URL: &byURL, Service: byService}, []string{
			"FieldValueRequired spec.conversion.webhookClientConfig: exactly one of url or service is required",
			serviceRefused,
		}},
	}
	s := apiextensions.CRDResource().GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(created(webhookConversion(tt.cc))), tt.want...)
		})
	}
}

func TestCRDValidateWebhookServiceMessage(t *testing.T) {
	got := apiextensions.CRDResource().GetStrategy().Validate(created(webhookConversion(apiextensionsv1.WebhookClientConfig{Service: byService})))
	want := `spec.conversion.webhook.clientConfig.service: Invalid value: "conv/converter": raftapi reaches conversion webhooks only by clientConfig.url; a clientConfig.service cannot be resolved`
	if len(got) != 1 || got[0].Error() != want {
		t.Errorf("errors = %v, want %q", got, want)
	}
}

func TestCRDValidateUpdateToAWebhookService(t *testing.T) {
	s := apiextensions.CRDResource().GetStrategy()
	old := stored()
	webhookConversion(apiextensionsv1.WebhookClientConfig{URL: &byURL})(old)
	old.Status.StoredVersions = []string{"v1"}

	byURLStill := old.DeepCopy()
	byURLStill.Spec.Names.ShortNames = []string{"f"}
	s.PrepareForUpdate(byURLStill, old)
	checkErrs(t, s.ValidateUpdate(byURLStill, old))

	toService := old.DeepCopy()
	toService.Spec.Conversion.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{Service: byService}
	s.PrepareForUpdate(toService, old)
	checkErrs(t, s.ValidateUpdate(toService, old), serviceRefused)
}

func TestCRDValidateNoneConversionHasNoWebhookCheck(t *testing.T) {
	s := apiextensions.CRDResource().GetStrategy()
	checkErrs(t, s.Validate(created(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	})))
}
