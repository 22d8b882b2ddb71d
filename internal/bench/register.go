package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// registerAlone adds a figure with a world of its own: its number, title,
// how it is measured, and whether `make bench` measures it by default. Each
// such figure registers itself from its own file, so that adding one
// touches no list shared with the others.
func registerAlone(id int, title string, byDefault bool, measure func(r *run, ctx context.Context, bin string) error) {
	if _, taken := figureTitles[id]; taken {
		panic(fmt.Sprintf("bench: figure %d registered twice (%q and %q)", id, figureTitles[id], title))
	}
	figureTitles[id] = title
	aloneFigures[id] = measure
	if byDefault {
		DefaultFigures = append(DefaultFigures, id)
	}
}

// aloneFigureIDs are the figures with a world of their own, in order.
func aloneFigureIDs() []int { return slices.Sorted(maps.Keys(aloneFigures)) }
