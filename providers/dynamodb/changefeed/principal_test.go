package changefeed

import "testing"

// Tether knows its own calls by who made them: its session in an
// AWSAccount's role, or the operator's own identity. A person acting as
// the same role under another session name is not Tether.
func TestPrincipalMatches(t *testing.T) {
	tether, ok := roleSession("arn:aws:iam::111122223333:role/teams/tether", "tether-orders")
	if !ok {
		t.Fatal("a role ARN was not read")
	}
	operatorRole, _ := parsePrincipal("arn:aws:sts::444455556666:assumed-role/tether-operator/aws-go-sdk-1700000000")
	operatorRole.session = "" // any session of the operator's role: its SDK names them itself
	operatorUser, _ := parsePrincipal("arn:aws:iam::444455556666:user/tether")
	cases := []struct {
		who    principal
		caller string
		want   bool
	}{
		{tether, "arn:aws:sts::111122223333:assumed-role/tether/tether-orders", true},
		{tether, "arn:aws:sts::111122223333:assumed-role/tether/alice", false},
		{tether, "arn:aws:sts::999988887777:assumed-role/tether/tether-orders", false},
		{tether, "arn:aws:sts::111122223333:assumed-role/Admin/tether-orders", false},
		{tether, "arn:aws:iam::111122223333:user/tether", false},
		{operatorRole, "arn:aws:sts::444455556666:assumed-role/tether-operator/aws-go-sdk-1800000000", true},
		{operatorRole, "arn:aws:sts::444455556666:assumed-role/admin/aws-go-sdk-1800000000", false},
		{operatorUser, "arn:aws:iam::444455556666:user/tether", true},
		{operatorUser, "arn:aws:iam::444455556666:user/path/tether", true},
		{operatorUser, "arn:aws:sts::444455556666:assumed-role/tether/x", false},
		{tether, "not an arn", false},
		{tether, "", false},
	}
	for _, c := range cases {
		caller, _ := parsePrincipal(c.caller)
		if got := c.who.matches(caller); got != c.want {
			t.Errorf("%+v matches %s = %v, want %v", c.who, c.caller, got, c.want)
		}
	}
	if _, ok := roleSession("arn:aws:iam::111122223333:user/tether", "s"); ok {
		t.Error("a user ARN was taken for a role")
	}
}
