package docstest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestDocumentedSamplesAreAccepted applies, as a server-side dry run
// against a real API server with Tether's CRDs, every sample file the
// README and docs/ name (config/samples/...) and every object they show in
// full in a yaml block (apiVersion, kind and name): the schema, the CEL
// rules and the defaults must take them as they are written. Blocks that
// show part of a spec are not objects, and are left out.
func TestDocumentedSamplesAreAccepted(t *testing.T) {
	root := repoRoot(t)
	samples := documentedSamples(t, root)
	kinds := map[string]bool{}
	for _, s := range samples {
		kinds[s.obj.GetKind()] = true
	}
	for _, kind := range []string{"HueLight", "HueBridge", "HueGroup", "HueScene", "DynamoDBTable", "AWSAccount"} {
		if !kinds[kind] {
			t.Errorf("the docs show no %s sample, or the sample reader is broken", kind)
		}
	}

	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx := context.Background()
	for _, s := range samples {
		// As kubectl apply does: a namespaced object without one goes
		// to the default namespace.
		if namespaced, err := env.Client.IsObjectNamespaced(s.obj); err == nil && namespaced && s.obj.GetNamespace() == "" {
			s.obj.SetNamespace(metav1.NamespaceDefault)
		}
		if ns := s.obj.GetNamespace(); ns != "" {
			err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
		// AlreadyExists comes after validation: a sample's Namespace that
		// an earlier sample's object needed is accepted all the same.
		if err := env.Client.Create(ctx, s.obj, client.DryRunAll); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Errorf("%s: %s %s is refused: %v", s.where, s.obj.GetKind(), s.obj.GetName(), err)
		}
	}
}

type sample struct {
	where string // the page and the file or block
	obj   *unstructured.Unstructured
}

var sampleFile = regexp.MustCompile(`config/samples/[A-Za-z0-9_.-]+\.ya?ml`)

// documentedSamples are the objects of every sample file the pages name and
// of every yaml block that is a whole object.
func documentedSamples(t *testing.T, root string) []sample {
	t.Helper()
	var out []sample
	files := map[string]string{} // sample file -> the first page naming it
	for _, page := range pages(t, root) {
		text := readFile(t, root, page)
		for _, f := range sampleFile.FindAllString(text, -1) {
			if _, ok := files[f]; !ok {
				files[f] = page
			}
		}
		for i, block := range fencedBlocks(text, "yaml") {
			for j, doc := range strings.Split(block, "\n---\n") {
				obj := &unstructured.Unstructured{}
				if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
					t.Errorf("%s: yaml block %d is not YAML: %v", page, i+1, err)
					continue
				}
				if obj.GetAPIVersion() == "" || obj.GetKind() == "" || obj.GetName() == "" {
					continue // a part of a spec, not an object
				}
				out = append(out, sample{where: fmt.Sprintf("%s, yaml block %d (document %d)", page, i+1, j+1), obj: obj})
			}
		}
	}
	for f, page := range files {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s names %s, which does not exist", page, f)
			continue
		}
		for _, obj := range testenv.ReadManifest(t, filepath.Join(root, f)) {
			out = append(out, sample{where: page + ", " + f, obj: obj})
		}
	}
	return out
}
