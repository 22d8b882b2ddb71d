package ddbgap

import (
	"maps"
	"slices"
	"time"
)

// Tagging (Options.Tagging), for tests that need a table's tags where a
// restore or a replica is modelled too: TagResource adds or replaces tags,
// UntagResource removes keys, ListTagsOfResource lists them; each on a
// table that exists, else ResourceNotFoundException (API TagResource,
// UntagResource, ListTagsOfResource). Tags live with the model's state of
// the table, so a deleted table's go with it and a restored table starts
// without any ("tags ... are not carried over", API
// RestoreTableToPointInTime).

func init() {
	register(atTags, &feature{
		ops: map[string]handler{
			"TagResource":        (*Server).tagResource,
			"UntagResource":      (*Server).untagResource,
			"ListTagsOfResource": (*Server).listTagsOfResource,
		},
		only: func(o Options) bool { return o.Tagging },
		created: func(s *Server, st *tableState, body map[string]any) {
			if s.opts.Tagging {
				// "Tags: A list of key-value pairs to label the table" (API
				// CreateTable): they are the table's from its creation.
				st.tags = map[string]string{}
				for _, t := range list(body, "Tags") {
					tag, _ := t.(map[string]any)
					st.tags[str(tag, "Key")] = str(tag, "Value")
				}
			}
		},
	})
}

// tagged runs change on the tags of the table a tagging call names by ARN,
// under the model's lock, once DynamoDB Local said the table exists.
func (s *Server) tagged(c *call, change func(tags map[string]string) any) (any, error) {
	name := tableFromArn(str(c.body, "ResourceArn"))
	if _, err := s.tableExists(c, name, "ResourceNotFoundException"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state(c.r, name)
	if st.tags == nil {
		st.tags = map[string]string{}
	}
	return change(st.tags), nil
}

// retagged is tagged for a call that changes the tags: within Pace.Stale
// after it, ListTagsOfResource answers the tags before (pace.go).
func (s *Server) retagged(c *call, change func(tags map[string]string)) (any, error) {
	return s.tagged(c, func(tags map[string]string) any {
		st := s.state(c.r, tableFromArn(str(c.body, "ResourceArn")))
		if s.opts.Pace.Stale > 0 {
			st.pace.staleTags, st.pace.staleTagsUntil = maps.Clone(tags), time.Now().Add(s.opts.Pace.Stale)
		}
		change(tags)
		return map[string]any{}
	})
}

func (s *Server) tagResource(c *call) (any, error) {
	return s.retagged(c, func(tags map[string]string) {
		for _, t := range list(c.body, "Tags") {
			tag, _ := t.(map[string]any)
			tags[str(tag, "Key")] = str(tag, "Value")
		}
	})
}

func (s *Server) untagResource(c *call) (any, error) {
	return s.retagged(c, func(tags map[string]string) {
		for _, k := range list(c.body, "TagKeys") {
			key, _ := k.(string)
			delete(tags, key)
		}
	})
}

func (s *Server) listTagsOfResource(c *call) (any, error) {
	return s.tagged(c, func(tags map[string]string) any {
		st := s.state(c.r, tableFromArn(str(c.body, "ResourceArn")))
		if p := st.pace; p.staleTags != nil && time.Now().Before(p.staleTagsUntil) {
			tags = p.staleTags
		}
		out := []any{}
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			out = append(out, map[string]any{"Key": k, "Value": tags[k]})
		}
		return map[string]any{"Tags": out}
	})
}
