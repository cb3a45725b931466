package builtin

import (
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// secrets describes core/v1 secrets.
func secrets() *resource.Resource {
	return &resource.Resource{
		Version:    "v1",
		Kind:       "Secret",
		ListKind:   "SecretList",
		Plural:     "secrets",
		Singular:   "secret",
		Namespaced: true,
		New:        func() runtime.Object { return &corev1.Secret{} },
		NewList:    func() runtime.Object { return &corev1.SecretList{} },
		Columns: []resource.Column{
			column("Type", corev1.Secret{}.SwaggerDoc()["type"], 0, stringCell("type")),
			column("Data", corev1.Secret{}.SwaggerDoc()["data"], 0, countCell("data")),
		},
		Fields: map[string]string{"type": "type"},
		Strategy: typed[*corev1.Secret]{
			prepareCreate:  normalizeSecret,
			prepareUpdate:  func(s, _ *corev1.Secret) { normalizeSecret(s) },
			validate:       validateSecret,
			validateUpdate: validateSecretUpdate,
		},
		ValidateName: apivalidation.NameIsDNSSubdomain,
	}
}

// normalizeSecret does what decoding a v1 Secret does in kube-apiserver,
// on create and on update alike: stringData is folded into data (a key in
// both takes the stringData value) and dropped, and an empty type becomes
// Opaque. An update that omits type therefore asks for Opaque, and fails
// the type's immutability if the secret had another type.
func normalizeSecret(s *corev1.Secret) {
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// validateSecret checks data's keys, its 1 MiB total, and the keys or
// annotations each well-known type requires.
func validateSecret(s *corev1.Secret) field.ErrorList {
	errs := validateMetaFinalizers(&s.ObjectMeta)
	dataPath := field.NewPath("data")
	size := 0
	for key, value := range s.Data {
		errs = append(errs, validateDataKey(key, dataPath.Key(key))...)
		size += len(value)
	}
	if size > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(dataPath, "", corev1.MaxSecretSize))
	}
	return append(errs, validateSecretType(s, dataPath)...)
}

// validateSecretType checks the requirements of s's type. Unknown types
// have none.
func validateSecretType(s *corev1.Secret, dataPath *field.Path) field.ErrorList {
	required := func(key string) *field.Error { return field.Required(dataPath.Key(key), "") }
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), "")}
		}
	case corev1.SecretTypeDockercfg:
		return validateJSONKey(s, corev1.DockerConfigKey, dataPath)
	case corev1.SecretTypeDockerConfigJson:
		return validateJSONKey(s, corev1.DockerConfigJsonKey, dataPath)
	case corev1.SecretTypeBasicAuth:
		// Either may be empty, but one of them must be there.
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			return field.ErrorList{required(corev1.BasicAuthUsernameKey), required(corev1.BasicAuthPasswordKey)}
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			return field.ErrorList{required(corev1.SSHAuthPrivateKey)}
		}
	case corev1.SecretTypeTLS:
		var errs field.ErrorList
		for _, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
			if _, ok := s.Data[key]; !ok {
				errs = append(errs, required(key))
			}
		}
		return errs
	}
	return nil
}

// validateJSONKey requires data[key] to be present and to hold a JSON
// object. The error does not echo the secret's content.
func validateJSONKey(s *corev1.Secret, key string, dataPath *field.Path) field.ErrorList {
	value, ok := s.Data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(value, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error())}
	}
	return nil
}

// validateSecretUpdate keeps type immutable and, once immutable is true,
// data and immutable too; then it validates the new object.
func validateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := apivalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))
	if isTrue(old.Immutable) {
		if !isTrue(s.Immutable) {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
		}
		if !reflect.DeepEqual(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
		}
	}
	return append(errs, validateSecret(s)...)
}
