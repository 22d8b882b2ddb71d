package v1alpha1

import (
	"os"
	"strings"
	"testing"
)

// The CEL rule that refuses STRONG in MRSCUnsupportedRegion writes the
// Region as a literal (a marker cannot name a Go constant): it is checked
// here against the one definition, in the source of the marker and in the
// generated CRD, so that they cannot part.
func TestMRSCUnsupportedRegionIsTheCELRules(t *testing.T) {
	for _, c := range []struct{ file, quote string }{
		{"dynamodbtable_types.go", "'"},
		{"../../../config/crd/bases/aws.tether.dev_dynamodbtables.yaml", "''"},
	} {
		raw, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(raw)), " ") // the YAML folds long rules
		for _, want := range []string{
			"self.region != " + c.quote + MRSCUnsupportedRegion + c.quote,
			"r.regionName != " + c.quote + MRSCUnsupportedRegion + c.quote,
			"self.globalTableWitness.regionName != " + c.quote + MRSCUnsupportedRegion + c.quote,
			"not available in " + MRSCUnsupportedRegion,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the MRSC rule does not say %q", c.file, want)
			}
		}
	}
}
