package dynamodb

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The operator's default tags (--dynamodb-default-tag), whose values may
// name the table's object, account and region.

// tagData is what a default tag's value may name.
type tagData struct {
	// Namespace and Name are the DynamoDBTable's.
	Namespace, Name string
	// Account is the AWSAccount's name ("" for the operator's own identity),
	// AccountID the AWS account id when known.
	Account, AccountID string
	Region             string
}

// tagFields are the placeholders a default tag's value may hold, written
// {{.Namespace}} as in a Go template, and what each stands for. Not
// text/template itself: its reflection on method names turns off the
// linker's removal of unused methods across the whole binary, and with it a
// large part of the manager's size and start-up memory.
var tagFields = map[string]func(tagData) string{
	"Namespace": func(d tagData) string { return d.Namespace },
	"Name":      func(d tagData) string { return d.Name },
	"Account":   func(d tagData) string { return d.Account },
	"AccountID": func(d tagData) string { return d.AccountID },
	"Region":    func(d tagData) string { return d.Region },
}

// tagValue is a default tag's value, parsed: literal text and placeholders
// (field names), in turn.
type tagValue []tagPart

type tagPart struct{ text, field string }

// parseTagValue splits s into literal text and {{.Field}} placeholders,
// refusing anything else between {{ and }}.
func parseTagValue(s string) (tagValue, error) {
	var out tagValue
	for s != "" {
		open := strings.Index(s, "{{")
		if open < 0 {
			out = append(out, tagPart{text: s})
			break
		}
		if open > 0 {
			out = append(out, tagPart{text: s[:open]})
		}
		inner, rest, ok := strings.Cut(s[open+2:], "}}")
		if !ok {
			return nil, fmt.Errorf("%q: {{ without }}", s[open:])
		}
		field, isField := strings.CutPrefix(strings.TrimSpace(inner), ".")
		if _, known := tagFields[field]; !isField || !known {
			return nil, fmt.Errorf("{{%s}}: want one of %s", inner, placeholders())
		}
		out = append(out, tagPart{field: field})
		s = rest
	}
	return out, nil
}

// placeholders lists tagFields as a value writes them.
func placeholders() string {
	var out []string
	for _, f := range slices.Sorted(maps.Keys(tagFields)) {
		out = append(out, "{{."+f+"}}")
	}
	return strings.Join(out, ", ")
}

func (v tagValue) render(d tagData) string {
	var b strings.Builder
	for _, p := range v {
		if p.field != "" {
			b.WriteString(tagFields[p.field](d))
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// defaultTags are the operator's default tags, parsed.
type defaultTags map[string]tagValue

// ParseDefaultTags parses the operator's default tags (--dynamodb-default-tag
// key=value, the value's placeholders checked), so that a bad one stops the
// manager at start rather than every table later.
func ParseDefaultTags(tags map[string]string) (defaultTags, error) {
	out := defaultTags{}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || len(k) > 128 || strings.HasPrefix(k, "aws:") || strings.HasPrefix(k, "tether.dev/") {
			return nil, fmt.Errorf("default tag key %q: want 1-128 characters, not starting with aws: (AWS's) or tether.dev/ (Tether's own)", k)
		}
		v, err := parseTagValue(tags[k])
		if err != nil {
			return nil, fmt.Errorf("default tag %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}
