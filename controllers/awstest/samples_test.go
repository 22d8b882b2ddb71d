package awstest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestSamplesAreAcceptedByTheAPIServer keeps config/samples honest: every
// object in them passes the CRDs' schema and CEL rules (server-side dry run).
func TestSamplesAreAcceptedByTheAPIServer(t *testing.T) {
	g := NewWithT(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	files, err := filepath.Glob(filepath.Join(root, "config", "samples", "*_v1alpha1_*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).NotTo(BeEmpty())

	kinds := map[string]bool{}
	for _, file := range files {
		for _, obj := range readObjects(t, file) {
			kinds[obj.GetKind()] = true
			if ns := obj.GetNamespace(); ns != "" {
				ensureNamespace(t, ns)
			}
			err := env.Client.Create(context.Background(), obj, client.DryRunAll)
			g.Expect(err).NotTo(HaveOccurred(), "%s: %s/%s", filepath.Base(file), obj.GetKind(), obj.GetName())
		}
	}
	g.Expect(kinds).To(HaveKey("HueLight"))
	g.Expect(kinds).To(HaveKey("HueBridge"))
	g.Expect(kinds).To(HaveKey("DynamoDBTable"))
	g.Expect(kinds).To(HaveKey("HueGroup"))
	g.Expect(kinds).To(HaveKey("HueScene"))
}

func readObjects(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs
			}
			t.Fatalf("%s: %v", file, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}
