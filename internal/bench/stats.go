package bench

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// percentile is the nearest-rank percentile p (0-100] of ds; 0 when empty.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// Median of xs (the mean of the middle two for an even count).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// maxWindowMean is the highest mean of n consecutive values (of all of them
// when there are fewer).
func maxWindowMean(xs []float64, n int) float64 {
	if len(xs) == 0 {
		return 0
	}
	n = min(n, len(xs))
	best := 0.0
	for i := 0; i+n <= len(xs); i++ {
		best = max(best, mean(xs[i:i+n]))
	}
	return best
}

func sumOf(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// ratioOf is v over its floor (0 when there is no floor).
func ratioOf(v, floor float64) float64 {
	if floor <= 0 {
		return 0
	}
	return v / floor
}

// FormatCounts lists counts as "kind 3, other 1", sorted by kind; "none"
// when there are none.
func FormatCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
