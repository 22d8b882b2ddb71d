package main

import (
	"slices"
	"testing"
)

func TestResolveCredentialsNamespaces(t *testing.T) {
	defaults := []string{"tether-system"}
	cases := []struct {
		flag string
		want []string
	}{
		{"home, office", []string{"home", "office"}},
		{"home,,", []string{"home"}},
		// Outside a pod (no ServiceAccount namespace file): the defaults.
		{"", defaults},
	}
	for _, tc := range cases {
		if got := resolveCredentialsNamespaces(tc.flag, defaults); !slices.Equal(got, tc.want) {
			t.Errorf("--credentials-namespaces=%q: got %v, want %v", tc.flag, got, tc.want)
		}
	}
}
