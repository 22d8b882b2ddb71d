package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// Each figure registers itself from its own file, so that adding one
// touches no list shared with the others, and the harness (bench.go) and
// the report name no figure's code.

// mainFigures are the figures of the main world, 1 to 6, measured one
// after the other in mainOrder (bench.go); aloneFigures are the figures
// with a world of their own.
var (
	mainFigures  = map[int]func(r *run, ctx context.Context) error{}
	aloneFigures = map[int]func(r *run, ctx context.Context, bin string) error{}
)

// registerMain adds a figure of the main world: its number, title and how
// it is measured. `make bench` measures them all by default.
func registerMain(id int, title string, measure func(r *run, ctx context.Context) error) {
	entitle(id, title)
	mainFigures[id] = measure
	byDefault(id)
}

// registerAlone adds a figure with a world of its own: its number, title,
// how it is measured, and whether `make bench` measures it by default.
func registerAlone(id int, title string, isDefault bool, measure func(r *run, ctx context.Context, bin string) error) {
	entitle(id, title)
	aloneFigures[id] = measure
	if isDefault {
		byDefault(id)
	}
}

// entitle gives figure id its title, once.
func entitle(id int, title string) {
	if _, taken := figureTitles[id]; taken {
		panic(fmt.Sprintf("bench: figure %d registered twice (%q and %q)", id, figureTitles[id], title))
	}
	figureTitles[id] = title
}

// byDefault adds figure id to DefaultFigures, which stay in order.
func byDefault(id int) {
	DefaultFigures = append(DefaultFigures, id)
	slices.Sort(DefaultFigures)
}

// aloneFigureIDs are the figures with a world of their own, in order.
func aloneFigureIDs() []int { return slices.Sorted(maps.Keys(aloneFigures)) }
