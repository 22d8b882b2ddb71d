package bridge

import "context"

// Temporary groups and scenes are deleted right after their one command
// (a temporary zone once no batch waits for a group slot: retireZone);
// one that cannot be deleted then (the bridge does not answer, or refuses)
// is a leftover, deleted again by the group loop once the bridge answers.
// Groups and scenes differ only in the call that deletes them and the
// budget it is paced by.

// deleteTemporary deletes the temporary group or scene id (what names
// it in the log) with del, paced by budget; one that cannot be deleted now
// is kept in left.
func (s *sender) deleteTemporary(ctx context.Context, what string, budget interface{ Wait(context.Context) error },
	left *[]string, id string, del func(context.Context, string) error) {
	if budget.Wait(ctx) != nil {
		s.keepLeftover(left, id) // the session stops: kept for the loop's last try
		return
	}
	if answering, _ := s.cache.answering(); !answering {
		s.keepLeftover(left, id)
		return
	}
	err := del(ctx, id)
	s.cache.unanswered(err)
	if err != nil {
		s.log.Info("cannot delete a temporary "+what+"; will retry", what, id, "error", err.Error())
		s.keepLeftover(left, id)
	}
}

func (s *sender) keepLeftover(left *[]string, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*left = append(*left, id)
}

// takeLeftovers empties left and returns what it held.
func (s *sender) takeLeftovers(left *[]string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := *left
	*left = nil
	return ids
}
