package api

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestEveryFieldIsDescribed: `kubectl explain` shows a description for
// every field of every kind, read from the CRDs `make manifests` generates
// from the doc comments of the api types. A field without one (a type
// whose comment is missing, a field that inherits none) fails here with its
// path; write the doc comment on the Go field and run make manifests.
func TestEveryFieldIsDescribed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			var missing []string
			undescribed(*v.Schema.OpenAPIV3Schema, crd.Spec.Names.Kind, &missing)
			sort.Strings(missing)
			for _, m := range missing {
				t.Errorf("%s %s: no description for `kubectl explain %s`", crd.Spec.Names.Kind, v.Name, m)
			}
		}
	}
}

// undescribed adds the paths under s whose schema has no description.
func undescribed(s apiextensionsv1.JSONSchemaProps, path string, missing *[]string) {
	for name, p := range s.Properties {
		child := path + "." + name
		// The API server describes an object's metadata itself (ObjectMeta's
		// documentation), whatever the CRD says.
		if child == path+".metadata" && !strings.Contains(path, ".") {
			continue
		}
		if p.Description == "" {
			*missing = append(*missing, child)
		}
		undescribed(p, child, missing)
	}
	if s.Items != nil && s.Items.Schema != nil {
		undescribed(*s.Items.Schema, path, missing)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		undescribed(*s.AdditionalProperties.Schema, path+".<key>", missing)
	}
}

// TestEveryKindIsDiscoverable: every kind is in the tether category (kubectl
// get tether lists them all) and in its group's (hue or aws), and shows its
// Ready condition's status and reason among the columns kubectl get prints
// by default.
func TestEveryKindIsDiscoverable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatal(err)
		}
		kind := crd.Spec.Names.Kind
		group := strings.SplitN(crd.Spec.Group, ".", 2)[0]
		if cats := strings.Join(crd.Spec.Names.Categories, ","); cats != "tether,"+group {
			t.Errorf("%s: categories %q, want tether,%s", kind, cats, group)
		}
		for _, v := range crd.Spec.Versions {
			columns := map[string]string{}
			for _, c := range v.AdditionalPrinterColumns {
				if c.Priority == 0 {
					columns[c.Name] = c.JSONPath
				}
			}
			for name, path := range map[string]string{
				"READY":  `.status.conditions[?(@.type=="Ready")].status`,
				"REASON": `.status.conditions[?(@.type=="Ready")].reason`,
			} {
				if columns[name] != path {
					t.Errorf("%s %s: the default columns have no %s from %s", kind, v.Name, name, path)
				}
			}
		}
	}
}
