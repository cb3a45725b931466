package builtin

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// configMaps describes core/v1 configmaps.
func configMaps() *resource.Resource {
	return &resource.Resource{
		Version:    "v1",
		Kind:       "ConfigMap",
		ListKind:   "ConfigMapList",
		Plural:     "configmaps",
		Singular:   "configmap",
		Namespaced: true,
		ShortNames: []string{"cm"},
		New:        func() runtime.Object { return &corev1.ConfigMap{} },
		NewList:    func() runtime.Object { return &corev1.ConfigMapList{} },
		Columns: []resource.Column{
			column("Data", corev1.ConfigMap{}.SwaggerDoc()["data"], 0, countCell("data", "binaryData")),
		},
		Strategy: typed[*corev1.ConfigMap]{
			validate:       validateConfigMap,
			validateUpdate: validateConfigMapUpdate,
		},
		ValidateName: apivalidation.NameIsDNSSubdomain,
	}
}

// validateConfigMap checks the keys of data and binaryData (valid
// config-map keys, no key in both) and that their values total at most
// 1 MiB; the size error names the whole object (field "[]").
func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	errs := validateMetaFinalizers(&cm.ObjectMeta)
	dataPath, binaryPath := field.NewPath("data"), field.NewPath("binaryData")
	size := 0
	for key, value := range cm.Data {
		errs = append(errs, validateDataKey(key, dataPath.Key(key))...)
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(dataPath.Key(key), key, "duplicate of key present in binaryData"))
		}
		size += len(value)
	}
	for key, value := range cm.BinaryData {
		errs = append(errs, validateDataKey(key, binaryPath.Key(key))...)
		size += len(value)
	}
	if size > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", corev1.MaxSecretSize))
	}
	return errs
}

// validateConfigMapUpdate forbids any change to data, binaryData or
// immutable once immutable is true, then validates the new object.
func validateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	if isTrue(old.Immutable) {
		if !isTrue(cm.Immutable) {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
		}
		if !reflect.DeepEqual(cm.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
		}
		if !reflect.DeepEqual(cm.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableMsg))
		}
	}
	return append(errs, validateConfigMap(cm)...)
}

// validateDataKey checks one key of a configmap's or secret's data.
func validateDataKey(key string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(fldPath, key, msg))
	}
	return errs
}
