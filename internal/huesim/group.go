package huesim

// A group as the bridge stores it. The v1 API over groups is groups.go
// (rooms and zones: rooms.go), the CLIP v2 one v2rooms.go.

// Group is a group created through POST /groups (group 0, "all lights", is
// implicit and not one of them).
type Group struct {
	ID     string
	Name   string
	Type   string
	Class  string // rooms and zones (rooms.go)
	Lights []string
	// serial numbers the groups in the order they were made, so that a
	// group that takes a deleted one's id gets CLIP v2 ids of its own
	// (v2rooms.go).
	serial int
}
