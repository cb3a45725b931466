package builtin

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func secret(typ corev1.SecretType, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"},
		Type:       typ,
		Data:       data,
	}
}

func TestSecretStringDataFolding(t *testing.T) {
	tests := []struct {
		name       string
		data       map[string][]byte
		stringData map[string]string
		want       map[string][]byte
	}{
		{"none", nil, nil, nil},
		{"only stringData", nil, map[string]string{"a": "1"}, map[string][]byte{"a": []byte("1")}},
		{"merged", map[string][]byte{"a": []byte("0"), "b": []byte("2")}, map[string]string{"a": "1"}, map[string][]byte{"a": []byte("1"), "b": []byte("2")}},
	}
	s := mustResource(t, "secrets").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			create := secret("", tt.data)
			create.StringData = tt.stringData
			s.PrepareForCreate(create)

			update := secret(corev1.SecretTypeOpaque, tt.data)
			update.StringData = tt.stringData
			s.PrepareForUpdate(update, secret(corev1.SecretTypeOpaque, nil))

			for _, got := range []*corev1.Secret{create, update} {
				if !reflect.DeepEqual(got.Data, tt.want) || got.StringData != nil {
					t.Errorf("data %q stringData %q, want data %q", got.Data, got.StringData, tt.want)
				}
			}
		})
	}
}

func TestSecretTypeDefaulting(t *testing.T) {
	s := mustResource(t, "secrets").GetStrategy()
	created := secret("", nil)
	s.PrepareForCreate(created)
	if created.Type != corev1.SecretTypeOpaque {
		t.Errorf("type = %q", created.Type)
	}
	kept := secret(corev1.SecretTypeBasicAuth, nil)
	s.PrepareForCreate(kept)
	if kept.Type != corev1.SecretTypeBasicAuth {
		t.Errorf("type = %q", kept.Type)
	}

	// An update without type asks for Opaque, as decoding defaults it.
	old := secret(corev1.SecretTypeTLS, map[string][]byte{"tls.crt": nil, "tls.key": nil})
	update := secret("", old.Data)
	s.PrepareForUpdate(update, old)
	got := s.ValidateUpdate(update, old)
	checkErrs(t, got, errs{"FieldValueInvalid type"})
	if got[0].Error() != `type: Invalid value: "Opaque": field is immutable` {
		t.Errorf("error %q", got[0].Error())
	}
}

func TestSecretValidate(t *testing.T) {
	sa := secret(corev1.SecretTypeServiceAccountToken, nil)
	sa.Annotations = map[string]string{corev1.ServiceAccountNameKey: "default"}
	tests := []struct {
		name   string
		secret *corev1.Secret
		want   errs
	}{
		{"opaque", secret(corev1.SecretTypeOpaque, map[string][]byte{"a": nil}), nil},
		{"custom type", secret("example.com/thing", nil), nil},
		{"bad key", secret(corev1.SecretTypeOpaque, map[string][]byte{"bad key": nil}), errs{"FieldValueInvalid data[bad key]"}},
		{"over 1 MiB", secret(corev1.SecretTypeOpaque, map[string][]byte{"a": make([]byte, corev1.MaxSecretSize), "b": {1}}), errs{"FieldValueTooLong data"}},
		{"exactly 1 MiB", secret(corev1.SecretTypeOpaque, map[string][]byte{"a": make([]byte, corev1.MaxSecretSize)}), nil},
		{"service account token", sa, nil},
		{"service account token without name", secret(corev1.SecretTypeServiceAccountToken, nil), errs{"FieldValueRequired metadata.annotations[kubernetes.io/service-account.name]"}},
		{"dockercfg", secret(corev1.SecretTypeDockercfg, map[string][]byte{".dockercfg": []byte(`{}`)}), nil},
		{"dockercfg missing", secret(corev1.SecretTypeDockercfg, nil), errs{"FieldValueRequired data[.dockercfg]"}},
		{"dockercfg not JSON", secret(corev1.SecretTypeDockercfg, map[string][]byte{".dockercfg": []byte(`{`)}), errs{"FieldValueInvalid data[.dockercfg]"}},
		{"dockerconfigjson", secret(corev1.SecretTypeDockerConfigJson, map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}), nil},
		{"dockerconfigjson missing", secret(corev1.SecretTypeDockerConfigJson, nil), errs{"FieldValueRequired data[.dockerconfigjson]"}},
		{"dockerconfigjson not an object", secret(corev1.SecretTypeDockerConfigJson, map[string][]byte{".dockerconfigjson": []byte(`[]`)}), errs{"FieldValueInvalid data[.dockerconfigjson]"}},
		{"basic-auth username only", secret(corev1.SecretTypeBasicAuth, map[string][]byte{"username": nil}), nil},
		{"basic-auth password only", secret(corev1.SecretTypeBasicAuth, map[string][]byte{"password": []byte("p")}), nil},
		{"basic-auth neither", secret(corev1.SecretTypeBasicAuth, nil), errs{"FieldValueRequired data[username]", "FieldValueRequired data[password]"}},
		{"ssh-auth", secret(corev1.SecretTypeSSHAuth, map[string][]byte{"ssh-privatekey": []byte("k")}), nil},
		{"ssh-auth empty key", secret(corev1.SecretTypeSSHAuth, map[string][]byte{"ssh-privatekey": {}}), errs{"FieldValueRequired data[ssh-privatekey]"}},
		{"tls", secret(corev1.SecretTypeTLS, map[string][]byte{"tls.crt": nil, "tls.key": nil}), nil},
		{"tls missing key", secret(corev1.SecretTypeTLS, map[string][]byte{"tls.crt": nil}), errs{"FieldValueRequired data[tls.key]"}},
		{"tls missing both", secret(corev1.SecretTypeTLS, nil), errs{"FieldValueRequired data[tls.crt]", "FieldValueRequired data[tls.key]"}},
		{"metadata finalizer", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Finalizers: []string{"foo"}}, Type: corev1.SecretTypeOpaque}, errs{"FieldValueInvalid metadata.finalizers[0]"}},
	}
	s := mustResource(t, "secrets").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(tt.secret), tt.want)
			old := tt.secret.DeepCopy()
			old.Data = nil
			checkErrs(t, s.ValidateUpdate(tt.secret, old), tt.want)
		})
	}
}

func TestSecretRedactsContent(t *testing.T) {
	s := secret(corev1.SecretTypeDockercfg, map[string][]byte{".dockercfg": []byte(`{"password": hunter2`)})
	got := mustResource(t, "secrets").GetStrategy().Validate(s)
	if len(got) != 1 || strings.Contains(got.ToAggregate().Error(), "hunter2") || got[0].BadValue != "<secret contents redacted>" {
		t.Errorf("errors = %v", got)
	}
}

func TestSecretImmutable(t *testing.T) {
	old := secret(corev1.SecretTypeOpaque, map[string][]byte{"a": []byte("1")})
	old.Immutable = ptr(true)
	tests := []struct {
		name   string
		change func(*corev1.Secret)
		want   errs
	}{
		{"unchanged", func(*corev1.Secret) {}, nil},
		{"data", func(s *corev1.Secret) { s.Data["a"] = []byte("2") }, errs{"FieldValueForbidden data"}},
		{"stringData", func(s *corev1.Secret) { s.StringData = map[string]string{"b": "2"} }, errs{"FieldValueForbidden data"}},
		{"stringData same value", func(s *corev1.Secret) { s.StringData = map[string]string{"a": "1"} }, nil},
		{"immutable unset", func(s *corev1.Secret) { s.Immutable = nil }, errs{"FieldValueForbidden immutable"}},
		{"type", func(s *corev1.Secret) {
			s.Type = corev1.SecretTypeBasicAuth
			s.Data["username"] = nil
		}, errs{"FieldValueInvalid type", "FieldValueForbidden data"}},
	}
	s := mustResource(t, "secrets").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := old.DeepCopy()
			tt.change(sec)
			s.PrepareForUpdate(sec, old)
			checkErrs(t, s.ValidateUpdate(sec, old), tt.want)
		})
	}
}

func TestSecretFieldsAndColumns(t *testing.T) {
	r := mustResource(t, "secrets")
	s := secret(corev1.SecretTypeTLS, map[string][]byte{"tls.crt": {1}, "tls.key": {2}})
	if got := fieldValue(t, r, s, "type"); got != "kubernetes.io/tls" {
		t.Errorf("type = %q", got)
	}
	if got := fieldValue(t, r, s, "metadata.namespace"); got != "default" {
		t.Errorf("metadata.namespace = %q", got)
	}
	if got := cell(t, r, "Type", s); got != "kubernetes.io/tls" {
		t.Errorf("Type cell = %v", got)
	}
	if got := cell(t, r, "Data", s); got != int64(2) {
		t.Errorf("Data cell = %#v", got)
	}
}
