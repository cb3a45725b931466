package request

import (
	"context"
	"slices"
	"testing"
)

func TestWarnings(t *testing.T) {
	AddWarning(context.Background(), "nowhere to go") // no recorder: ignored
	ctx, w := WithWarnings(context.Background())
	AddWarning(ctx, "first")
	AddWarning(ctx, "second")
	if got := w.List(); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("List() = %q", got)
	}
}
