package kubernetes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifests is every object the kustomization in this directory renders,
// by kind, plus the kustomization itself.
type manifests struct {
	kustomization kustomization
	statefulSets  []*appsv1.StatefulSet
	services      []*corev1.Service
	pdbs          []*policyv1.PodDisruptionBudget
	// secrets are the ones the secretGenerator makes (their data keys
	// hold no values: the token is the operator's).
	secrets []*corev1.Secret
}

// kustomization is the part of kustomize's Kustomization these manifests
// use; decoding it strictly refuses any other field.
type kustomization struct {
	APIVersion      string            `json:"apiVersion"`
	Kind            string            `json:"kind"`
	Resources       []string          `json:"resources"`
	SecretGenerator []secretGenerator `json:"secretGenerator"`
}

type secretGenerator struct {
	Name    string   `json:"name"`
	Files   []string `json:"files"`
	Options struct {
		DisableNameSuffixHash bool              `json:"disableNameSuffixHash"`
		Labels                map[string]string `json:"labels"`
	} `json:"options"`
}

// strictDecoder decodes YAML into the k8s.io/api types of the kinds the
// manifests may hold, as strictly as kube-apiserver's
// fieldValidation=Strict: an unknown field, a field in the wrong case or
// a duplicate field is an error.
var strictDecoder = newStrictDecoder()

func newStrictDecoder() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
}

// decodeStrict decodes one YAML document.
func decodeStrict(doc []byte) (runtime.Object, error) {
	obj, _, err := strictDecoder.Decode(doc, nil, nil)
	if err != nil {
		return nil, err
	}
	return obj, nil
}

// loadManifests reads kustomization.yaml and every resource it lists,
// failing the test on anything that does not decode strictly.
func loadManifests(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{}
	b, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, &m.kustomization); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	for _, file := range m.kustomization.Resources {
		if err := m.addFile(file); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	for _, g := range m.kustomization.SecretGenerator {
		m.secrets = append(m.secrets, generatedSecret(g))
	}
	return m
}

// addFile decodes every document of file.
func (m *manifests) addFile(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	docs, err := splitYAML(b)
	if err != nil {
		return err
	}
	for i, doc := range docs {
		obj, err := decodeStrict(doc)
		if err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		if err := m.add(obj); err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	return nil
}

func (m *manifests) add(obj runtime.Object) error {
	switch o := obj.(type) {
	case *appsv1.StatefulSet:
		m.statefulSets = append(m.statefulSets, o)
	case *corev1.Service:
		m.services = append(m.services, o)
	case *policyv1.PodDisruptionBudget:
		m.pdbs = append(m.pdbs, o)
	case *corev1.Secret:
		m.secrets = append(m.secrets, o)
	default:
		return fmt.Errorf("unexpected kind %T", obj)
	}
	return nil
}

// splitYAML splits a YAML stream into its non-empty documents.
func splitYAML(b []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

// stripComments drops whole-line comments, to tell an empty document.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}

// generatedSecret is the Secret a secretGenerator makes: each file entry
// is "key=path" or "path" (the key is then the file's base name).
func generatedSecret(g secretGenerator) *corev1.Secret {
	s := &corev1.Secret{Data: map[string][]byte{}}
	s.Name = g.Name
	s.Labels = g.Options.Labels
	for _, f := range g.Files {
		key, _, ok := strings.Cut(f, "=")
		if !ok {
			key = filepath.Base(f)
		}
		s.Data[key] = nil
	}
	return s
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := loadManifests(t)
	if k := m.kustomization; k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("kustomization.yaml is %s %s, want kustomize.config.k8s.io/v1beta1 Kustomization", k.APIVersion, k.Kind)
	}
	if len(m.statefulSets) != 1 || len(m.pdbs) != 1 || len(m.services) != 2 {
		t.Fatalf("want 1 StatefulSet, 2 Services, 1 PodDisruptionBudget; have %d, %d, %d",
			len(m.statefulSets), len(m.services), len(m.pdbs))
	}
	listed := map[string]bool{}
	for _, r := range m.kustomization.Resources {
		listed[r] = true
	}
	files, _ := filepath.Glob("*.yaml")
	for _, f := range files {
		if f != "kustomization.yaml" && !listed[f] {
			t.Errorf("%s is not among the kustomization's resources: kubectl apply -k would leave it out", f)
		}
	}
}

// TestStrictDecodingRejects shows that the decoding above is strict: each
// of these documents is a valid StatefulSet but for one mistake that a
// lenient decoder (and kubectl apply without validation) would drop
// silently.
func TestStrictDecodingRejects(t *testing.T) {
	const valid = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x\nspec:\n  serviceName: x\n  replicas: 3\n"
	if _, err := decodeStrict([]byte(valid)); err != nil {
		t.Fatalf("the valid document fails: %v", err)
	}
	for _, tc := range []struct{ name, doc string }{
		{"unknown field", valid + "  replica: 3\n"},
		{"duplicate field", valid + "  replicas: 5\n"},
		{"field in the wrong case", strings.Replace(valid, "serviceName", "servicename", 1)},
		{"field at the wrong level", valid + "  containers: []\n"},
		{"unknown kind", strings.Replace(valid, "StatefulSet", "StatefulSets", 1)},
		{"wrong type", strings.Replace(valid, "replicas: 3", "replicas: three", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeStrict([]byte(tc.doc)); err == nil {
				t.Errorf("decoded without error:\n%s", tc.doc)
			} else {
				t.Logf("rejected: %v", err)
			}
		})
	}
}
