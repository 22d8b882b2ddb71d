package providers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Released is the External of an object being deleted that lets go of its
// external thing without a call: its deletion policy retains it, another
// object manages it, or nothing is left to switch off or remove. Connect
// has already forgotten what it knew of it; Delete succeeds at once.
func Released[O client.Object]() External[O] { return released[O]{} }

type released[O client.Object] struct{}

func (released[O]) Observe(context.Context, O) (Observation, error) { return Matches(), nil }
func (released[O]) Create(context.Context, O) error                 { return nil }
func (released[O]) Update(context.Context, O, Difference) error     { return nil }
func (released[O]) Delete(context.Context, O) error                 { return nil }
