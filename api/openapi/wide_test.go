package openapi_test

import (
	"encoding/json"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	openapiproto "k8s.io/kube-openapi/pkg/util/proto"

	"github.com/raftapi/raftapi/api/openapi"
	apiresource "github.com/raftapi/raftapi/api/resource"
)

// wideRegistry serves pods and deployments, whose types reach most of
// k8s.io/api's shapes: quantities, int-or-strings, nested lists and maps.
func wideRegistry() *apiresource.Registry {
	return apiresource.NewRegistry(
		&apiresource.Resource{
			Version: "v1", Kind: "Pod", ListKind: "PodList", Plural: "pods", Singular: "pod", Namespaced: true,
			New: func() runtime.Object { return &corev1.Pod{} }, NewList: func() runtime.Object { return &corev1.PodList{} },
		},
		&apiresource.Resource{
			Group: "apps", Version: "v1", Kind: "Deployment", ListKind: "DeploymentList", Plural: "deployments", Singular: "deployment", Namespaced: true,
			New: func() runtime.Object { return &appsv1.Deployment{} }, NewList: func() runtime.Object { return &appsv1.DeploymentList{} },
		},
	)
}

// widePod uses quantities and int-or-strings.
func widePod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "c",
			Ports: []corev1.ContainerPort{{ContainerPort: 80}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"),
			}},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("http")},
			}},
		}}},
	}
}

func TestWideTypesV2Models(t *testing.T) {
	b, err := json.Marshal(openapi.V2(wideRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapiv2.ParseDocument(b)
	if err != nil {
		t.Fatal(err)
	}
	models, err := openapiproto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatal(err)
	}
	parser, err := managedfields.NewGVKParser(models, false)
	if err != nil {
		t.Fatal(err)
	}
	pod := parser.Type(corev1.SchemeGroupVersion.WithKind("Pod"))
	if pod == nil {
		t.Fatal("no Pod type")
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(widePod())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pod.FromUnstructured(u); err != nil {
		t.Errorf("Pod does not fit its v2 schema: %v", err)
	}
}

func TestWideTypesV3TypeConverter(t *testing.T) {
	reg := wideRegistry()
	core, _ := openapi.V3(reg, corev1.SchemeGroupVersion)
	apps, _ := openapi.V3(reg, appsv1.SchemeGroupVersion)
	schemas := core.Components.Schemas
	for name, s := range apps.Components.Schemas {
		schemas[name] = s
	}
	tc, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		t.Fatal(err)
	}
	deployment := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		Spec: appsv1.DeploymentSpec{
			Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &intstr.IntOrString{IntVal: 1}}},
			Template: corev1.PodTemplateSpec{Spec: widePod().Spec},
		},
	}
	for _, obj := range []runtime.Object{widePod(), deployment} {
		if _, err := tc.ObjectToTyped(obj); err != nil {
			t.Errorf("ObjectToTyped(%T): %v", obj, err)
		}
	}
}
