package dynamodb

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// Whom a resource policy grants access to, read strictly. The check of
// tenancy.go may only pass a policy whose every grant it understood: a
// shape it does not read (an account id as a JSON number, element names
// in another case, a principal of another partition with the same digits,
// a key twice) is a grant it cannot vouch for, and AWS may well honour it.
// So a document is read as IAM's grammar writes it (IAM User Guide, "IAM
// JSON policy element reference" and "AWS JSON policy elements:
// Principal"), and anything else in a statement that does not deny is
// "not understood", which refuses the policy.

// grant is one principal an Allow (or any non-Deny) statement names.
type grant struct {
	// principal is how the refusal names it: an account id, an ARN, "*",
	// or "Service:..." and the like.
	principal string
	// account is the account it is inside of, "" when nothing proves one
	// ("*", a service, a federated or canonical user, a unique id, another
	// partition's ARN).
	account string
}

// policyGrants reads a policy document (its JSON text) and returns whom
// its statements that do not deny grant access to. An error says what in
// it is not understood; the grants are then not to be trusted.
func policyGrants(text, partition string) ([]grant, error) {
	doc, err := strictJSON(text)
	if err != nil {
		return nil, err
	}
	top, ok := doc.(jsonObject)
	if !ok {
		return nil, errors.New("the document is not a JSON object")
	}
	var statements []any
	switch st := top.get("Statement").(type) {
	case nil:
	case jsonObject:
		statements = []any{st}
	case []any:
		statements = st
	default:
		return nil, errors.New("Statement is neither an object nor a list")
	}
	var out []grant
	for i, raw := range statements {
		st, ok := raw.(jsonObject)
		if !ok {
			return nil, fmt.Errorf("statement %d is not an object", i+1)
		}
		if effect, _ := st.get("Effect").(string); effect == "Deny" {
			continue // denies grant nothing
		}
		if st.has("NotPrincipal") {
			// Everyone but the principals named.
			out = append(out, grant{principal: "*"})
		}
		grants, err := principalGrants(st.get("Principal"), partition)
		if err != nil {
			return nil, fmt.Errorf("statement %d: %w", i+1, err)
		}
		if len(grants) == 0 && !st.has("NotPrincipal") {
			return nil, fmt.Errorf("statement %d allows and names no principal", i+1)
		}
		out = append(out, grants...)
	}
	return out, nil
}

// principalKinds are the kinds of principal IAM's grammar names, each with
// the prefix the refusal names it by ("" for AWS principals).
var principalKinds = map[string]string{"AWS": "", "Service": "Service:", "Federated": "Federated:", "CanonicalUser": "CanonicalUser:"}

// principalGrants reads one Principal element: "*", or a map of the kinds
// of principalKinds to a string or a list of strings.
func principalGrants(v any, partition string) ([]grant, error) {
	switch p := v.(type) {
	case nil:
		return nil, nil
	case string:
		if p != "*" {
			return nil, fmt.Errorf("Principal %q is neither \"*\" nor a map of principals", p)
		}
		return []grant{{principal: "*"}}, nil
	case jsonObject:
		var out []grant
		for _, kv := range p {
			prefix, known := principalKinds[kv.key]
			if !known {
				return nil, fmt.Errorf("principal kind %q is none of AWS, Service, Federated, CanonicalUser", kv.key)
			}
			values, err := stringList(kv.value)
			if err != nil {
				return nil, fmt.Errorf("Principal %s: %w", kv.key, err)
			}
			for _, value := range values {
				g := grant{principal: prefix + value}
				if kv.key == "AWS" {
					g.account = principalAccount(value, partition)
				}
				out = append(out, g)
			}
		}
		return out, nil
	}
	return nil, errors.New("Principal is neither \"*\" nor a map of principals")
}

// stringList reads a string or a list of strings; anything else (a
// number, an object, a list holding one) is not understood.
func stringList(v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%v is not a string", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%v is neither a string nor a list of strings", v)
}

// principalAccount is the account an AWS principal is inside of: a
// 12-digit account id, or the account field of an IAM or STS ARN of the
// table's partition. "" for anything else ("*", unique ids, another
// partition's ARN): nothing proves those are inside the account.
func principalAccount(principal, partition string) string {
	if access.IsAccountID(principal) {
		return principal
	}
	parts := strings.SplitN(principal, ":", 6)
	if len(parts) == 6 && parts[0] == "arn" && parts[1] == partition && (parts[2] == "iam" || parts[2] == "sts") && access.IsAccountID(parts[4]) {
		return parts[4]
	}
	return ""
}

// jsonObject is a JSON object read by strictJSON: its keys in order, none
// twice, whatever the case (IAM does not document whether its element
// names are case sensitive, so "statement" must not hide beside
// "Statement").
type jsonObject []jsonMember

type jsonMember struct {
	key   string
	value any
}

// get is the value of a key of IAM's grammar, matched in any case: a
// policy that spells it otherwise is read as AWS may read it.
func (o jsonObject) get(key string) any {
	for _, kv := range o {
		if strings.EqualFold(kv.key, key) {
			return kv.value
		}
	}
	return nil
}

func (o jsonObject) has(key string) bool {
	for _, kv := range o {
		if strings.EqualFold(kv.key, key) {
			return true
		}
	}
	return false
}

// strictJSON reads one JSON value: objects as jsonObject, refusing a key
// that appears twice in any case (encoding/json would keep the last, and
// another reader the first); numbers stay json.Number, never a string.
func strictJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the document")
	}
	return v, nil
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj jsonObject
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := keyTok.(string)
				for _, kv := range obj {
					if strings.EqualFold(kv.key, key) {
						return nil, fmt.Errorf("key %q appears twice in one object", key)
					}
				}
				value, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, jsonMember{key: key, value: value})
			}
			_, err := dec.Token() // }
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				value, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, value)
			}
			_, err := dec.Token() // ]
			return list, err
		}
	}
	return tok, nil
}
