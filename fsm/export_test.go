package fsm

// ForceCountStrategy makes Count resolve past revisions one way only
// ("keys" or "changes"; "" restores the choice by cost) and returns a
// function that restores it.
func ForceCountStrategy(way string) (restore func()) {
	next := int32(countAuto)
	switch way {
	case "keys":
		next = countByKeys
	case "changes":
		next = countByChanges
	}
	prev := countStrategy.Swap(next)
	return func() { countStrategy.Store(prev) }
}

// MaxPending is how many command entries one delayed commit holds at most.
const MaxPending = maxPending
