package changefeed

import (
	"strings"
)

// principal is a caller as CloudTrail's userIdentity.arn names it: an
// assumed-role session (arn:aws:sts::<account>:assumed-role/<role>/<session>)
// or an IAM user or role (arn:aws:iam::<account>:user/<name>).
type principal struct {
	account string
	// kind is "assumed-role", "user" or "role".
	kind string
	// name is the role or user name (without its IAM path).
	name string
	// session is the session name of an assumed role; "" in a principal
	// Tether matches against means any session of the role.
	session string
}

// parsePrincipal reads a userIdentity.arn or an STS caller ARN.
func parsePrincipal(arn string) (principal, bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || (parts[2] != "sts" && parts[2] != "iam") || parts[4] == "" {
		return principal{}, false
	}
	segments := strings.Split(parts[5], "/")
	p := principal{account: parts[4], kind: segments[0]}
	switch {
	case p.kind == "assumed-role" && len(segments) == 3:
		p.name, p.session = segments[1], segments[2]
	case (p.kind == "user" || p.kind == "role") && len(segments) >= 2:
		p.name = segments[len(segments)-1]
	default:
		return principal{}, false
	}
	return p, p.name != ""
}

// roleSession is the principal Tether's calls through an assumed role
// carry: the role (by its ARN) and the session name Tether gave it.
func roleSession(roleARN, session string) (principal, bool) {
	role, ok := parsePrincipal(roleARN)
	if !ok || role.kind != "role" {
		return principal{}, false
	}
	return principal{account: role.account, kind: "assumed-role", name: role.name, session: session}, true
}

// matches says whether a caller is p: the same user, or a session of the
// same role (the same session when p names one).
func (p principal) matches(caller principal) bool {
	if p.account != caller.account || p.name != caller.name {
		return false
	}
	if p.kind == "assumed-role" {
		return caller.kind == "assumed-role" && (p.session == "" || p.session == caller.session)
	}
	return p.kind == caller.kind
}
