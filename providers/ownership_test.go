package providers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestClaimPrecedes(t *testing.T) {
	at := func(sec int) metav1.Time { return metav1.NewTime(time.Unix(int64(1_800_000_000+sec), 0)) }
	claim := func(ns string, created metav1.Time, holds bool) Claim {
		return Claim{Key: types.NamespacedName{Namespace: ns, Name: "x"}, Created: created, Holds: holds}
	}
	cases := []struct {
		name string
		a, b Claim
		want bool
	}{
		{"the older first", claim("b", at(0), false), claim("a", at(1), false), true},
		{"not the newer", claim("a", at(1), false), claim("b", at(0), false), false},
		{"the holder over an older one", claim("b", at(5), true), claim("a", at(0), false), true},
		{"the older of two holders", claim("b", at(0), true), claim("a", at(5), true), true},
		{"same second: by namespace/name", claim("a", at(0), false), claim("b", at(0), false), true},
		{"same second, the other way", claim("b", at(0), false), claim("a", at(0), false), false},
		{"not itself", claim("a", at(0), false), claim("a", at(0), false), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Precedes(c.b); got != c.want {
				t.Errorf("%+v precedes %+v = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}
