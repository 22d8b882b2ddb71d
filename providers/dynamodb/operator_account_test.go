package dynamodb

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// Item 6 of issue 39: the operator's own identity moves to another account
// (the manager restarted with another account's credentials). DynamoDB
// Local keeps a database per access key id, so a manager restarted with
// another key sees none of the first account's tables; STS (a model,
// internal/ststest) says which account each key is in. The restarted
// adapter learns its account from STS before any call and, the status
// recording the first account, says AccountChanged: no table is made in
// the new account, none is deleted in the first, on a look or on delete.
// While STS cannot answer at all, the account is unknown: the same.
func TestTheOperatorMovedToAnotherAccountCreatesAndDeletesNothing(t *testing.T) {
	local := dynamoDBLocal(t).URL
	first := newFixture(t, local, Options{})
	obj := newTable()
	first.converge(obj)
	if obj.Status.AccountID != "000000000000" {
		t.Fatalf("status.accountID = %q, want the account STS named for the operator", obj.Status.AccountID)
	}

	for _, tc := range []struct {
		name string
		// restart starts the manager again with other credentials or STS.
		restart func(t *testing.T)
		says    []string
	}{
		{name: "credentials of another account", says: []string{"000000000000", "999999999999"}, restart: func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", "movedkey")
			sts := operatorIn(t, "999999999999")
			t.Cleanup(func() {
				if len(sts.CallerIdentityCalls()) == 0 {
					t.Error("STS was never asked who the operator is")
				}
			})
		}},
		{name: "STS cannot answer", says: []string{"000000000000", "cannot tell", "GetCallerIdentity"}, restart: func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", "movedkey")
			t.Setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			moved := newFixture(t, local, Options{})
			tc.restart(t)
			obj := obj.DeepCopy()
			for range 3 {
				_, err := moved.pass(obj)
				ra, ok := providers.AsRetryAfter(err)
				if !ok || ra.Reason != reasonAccountChanged {
					t.Fatalf("pass after the move: %v, want %s", err, reasonAccountChanged)
				}
				for _, s := range tc.says {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("the condition does not say %q: %v", s, err)
					}
				}
			}
			if err := moved.delete(obj); !isRetryReason(err, reasonAccountChanged) {
				t.Fatalf("delete after the move: %v, want %s", err, reasonAccountChanged)
			}
			if n := moved.proxy.Total(); n != 0 {
				t.Errorf("calls to DynamoDB as the moved operator: %v, want none", moved.proxy.Calls())
			}
			if !first.exists(obj.Name) {
				t.Error("the table in the first account was deleted")
			}
			if tablesOf(t, local, "movedkey", obj.Name) {
				t.Error("the table was made again, empty, in the other account")
			}
		})
	}

	// A new object while STS cannot answer: nothing is created either.
	t.Run("a new table while STS cannot answer", func(t *testing.T) {
		f := newFixture(t, local, Options{})
		t.Setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1")
		fresh := newTable()
		if _, err := f.pass(fresh); !isRetryReason(err, "EndpointError") || !strings.Contains(err.Error(), "GetCallerIdentity") {
			t.Fatalf("a pass with no account known: %v, want STS's error", err)
		}
		if f.proxy.Total() != 0 || f.exists(fresh.Name) {
			t.Errorf("DynamoDB was called (%v) while the operator's account was unknown", f.proxy.Calls())
		}
	})
}

// tablesOf says whether DynamoDB Local has the table in the database of
// the access key id key.
func tablesOf(t *testing.T, url, key, name string) bool {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "")))
	if err != nil {
		t.Fatal(err)
	}
	raw := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
	_, err = raw.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil && !access.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}
