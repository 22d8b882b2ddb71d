package chartdoc

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestTable(t *testing.T) {
	cases := []struct {
		name, values, want, err string
	}{
		{name: "a leaf", values: "# -- How many.\n# Two by default.\nreplicaCount: 2\n",
			want: "| `replicaCount` | int | `2` | How many. Two by default. |\n"},
		{name: "a map without a description: key by key", values: "image:\n  # -- The tag.\n  tag: \"\"\n",
			want: "| `image.tag` | string | `\"\"` | The tag. |\n"},
		{name: "a map with one: one row", values: "# -- Requests and limits.\nresources:\n  limits:\n    memory: 1Gi\n",
			want: "| `resources` | object | `{\"limits\":{\"memory\":\"1Gi\"}}` | Requests and limits. |\n"},
		{name: "a pipe in a default", values: "# -- A pattern.\np: a|b\n", want: "| `p` | string | `\"a\\|b\"` | A pattern. |\n"},
		{name: "a plain comment is no description", values: "# Not for the table.\nx: 1\n", err: "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := Table([]byte(tc.values))
			if tc.err != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.err)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal("| Key | Type | Default | Description |\n|---|---|---|---|\n" + tc.want))
		})
	}
}
