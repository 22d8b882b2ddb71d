package ststest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
)

const (
	hubARN  = "arn:aws:iam::999999999999:role/tether-hub"
	teamARN = "arn:aws:iam::111111111111:role/tether-team"
)

// The model answers aws-sdk-go-v2's own STS client and stscreds provider
// (code nobody here wrote): this proves the wire format and the rules a test
// relies on, not that AWS behaves so (see the package comment).
func TestModelAnswersTheSDKsAssumeRoleProvider(t *testing.T) {
	srv, err := Start(Options{Roles: []Role{
		{ARN: hubARN, Trusts: []string{"operatorkey"}, AccessKeyID: "hubkey"},
		{ARN: teamARN, Trusts: []string{"hubkey"}, ExternalID: "ext-1", AccessKeyID: "teamkey"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	stsAs := func(creds aws.CredentialsProvider) *sts.Client {
		return sts.New(sts.Options{Region: "us-east-1", Credentials: creds, BaseEndpoint: aws.String(srv.URL)})
	}
	operator := credentials.NewStaticCredentialsProvider("operatorkey", "secret", "")

	hub := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsAs(operator), hubARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = "tether-hub"
		o.Tags = nil
	}))
	c, err := hub.Retrieve(ctx)
	if err != nil || c.AccessKeyID != "hubkey" || c.SessionToken == "" || !c.CanExpire {
		t.Fatalf("hub credentials = %+v, %v", c, err)
	}

	// A chain: the team role trusts only the hub's sessions, with an
	// external ID; session tags travel along.
	team := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsAs(hub), teamARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = "tether-team"
		o.ExternalID = aws.String("ext-1")
	}))
	if c, err := team.Retrieve(ctx); err != nil || c.AccessKeyID != "teamkey" {
		t.Fatalf("team credentials through the hub = %+v, %v", c, err)
	}
	last := srv.Calls()[len(srv.Calls())-1]
	if last.Caller != "hubkey" || last.ExternalID != "ext-1" {
		t.Errorf("the team role was assumed by %q with external id %q", last.Caller, last.ExternalID)
	}

	refused := []struct {
		name string
		prov aws.CredentialsProvider
		code string
	}{
		{"not trusted", stscreds.NewAssumeRoleProvider(stsAs(operator), teamARN, func(o *stscreds.AssumeRoleOptions) { o.ExternalID = aws.String("ext-1") }), "AccessDenied"},
		{"no external id", stscreds.NewAssumeRoleProvider(stsAs(hub), teamARN), "AccessDenied"},
		{"bad session name", stscreds.NewAssumeRoleProvider(stsAs(operator), hubARN, func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = "has space" }), "ValidationError"},
		{"too long", stscreds.NewAssumeRoleProvider(stsAs(operator), hubARN, func(o *stscreds.AssumeRoleOptions) { o.Duration = 2 * time.Hour }), "ValidationError"},
	}
	for _, r := range refused {
		_, err := r.prov.Retrieve(ctx)
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != r.code {
			t.Errorf("%s: err = %v, want %s", r.name, err, r.code)
		}
	}
	srv.Deny(hubARN, true)
	if _, err := stscreds.NewAssumeRoleProvider(stsAs(operator), hubARN).Retrieve(ctx); err == nil {
		t.Error("a denied role was assumed")
	}
}

// Credentials that expire are fetched again by the SDK's cache, not used
// past their expiry.
func TestShortLivedCredentialsAreRefreshedByTheCache(t *testing.T) {
	srv, err := Start(Options{Lifetime: 2 * time.Second, Roles: []Role{{ARN: hubARN, Trusts: []string{"operatorkey"}, AccessKeyID: "hubkey"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("operatorkey", "secret", "")})
	cache := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(client, hubARN), func(o *aws.CredentialsCacheOptions) {
		o.ExpiryWindow = 500 * time.Millisecond
	})
	deadline := time.Now().Add(10 * time.Second)
	for srv.CallsFor(hubARN) < 2 && time.Now().Before(deadline) {
		c, err := cache.Retrieve(context.Background())
		if err != nil || c.Expired() {
			t.Fatalf("retrieved %+v, %v", c, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := srv.CallsFor(hubARN); n < 2 {
		t.Errorf("AssumeRole calls = %d, want a refresh after expiry", n)
	}
}

// GetCallerIdentity, asked with the SDK's own client, names the account of
// the credentials that sign it: an assumed role's sessions are in the
// role's account, other keys where Options.Accounts puts them, else in
// DefaultAccount.
func TestModelTellsTheCallersAccount(t *testing.T) {
	srv, err := Start(Options{Roles: []Role{{ARN: teamARN, Trusts: []string{"operatorkey"}, AccessKeyID: "teamkey"}},
		Accounts: map[string]string{"movedkey": "222222222222"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	stsAs := func(creds aws.CredentialsProvider) *sts.Client {
		return sts.New(sts.Options{Region: "us-east-1", Credentials: creds, BaseEndpoint: aws.String(srv.URL)})
	}
	static := func(key string) aws.CredentialsProvider {
		return credentials.NewStaticCredentialsProvider(key, "secret", "")
	}
	team := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsAs(static("operatorkey")), teamARN,
		func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = "tether-team" }))
	for _, tc := range []struct {
		name         string
		creds        aws.CredentialsProvider
		account, arn string
	}{
		{"default account", static("operatorkey"), DefaultAccount, "arn:aws:iam::000000000000:user/operatorkey"},
		{"an account of its own", static("movedkey"), "222222222222", "arn:aws:iam::222222222222:user/movedkey"},
		{"an assumed role", team, "111111111111", "arn:aws:sts::111111111111:assumed-role/tether-team/tether-team"},
	} {
		out, err := stsAs(tc.creds).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if aws.ToString(out.Account) != tc.account || aws.ToString(out.Arn) != tc.arn || aws.ToString(out.UserId) == "" {
			t.Errorf("%s: account %q, arn %q, user id %q; want %q, %q", tc.name, aws.ToString(out.Account), aws.ToString(out.Arn),
				aws.ToString(out.UserId), tc.account, tc.arn)
		}
	}
	if got := srv.CallerIdentityCalls(); len(got) != 3 || got[0] != "operatorkey" || got[2] != "teamkey" {
		t.Errorf("GetCallerIdentity callers = %v", got)
	}
	if n := len(srv.Calls()); n != 1 {
		t.Errorf("AssumeRole calls = %d, want 1: GetCallerIdentity is counted apart", n)
	}
}
