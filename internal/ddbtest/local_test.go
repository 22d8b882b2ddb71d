package ddbtest

import (
	"context"
	"net"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB Local (run -inMemory, without -sharedDb, as StartDynamoDBLocal
// does) keeps one database per access key id and region
// (developerguide/DynamoDBLocal.UsageNotes.html). The multi-account tests
// rely on it: each AWSAccount's role signs with its own access key id, so
// its tables are its own. This checks it with AWS's own implementation and
// the SDK: the same table name made under two keys and two regions is three
// tables, each seen only by its own key and region.
func TestDynamoDBLocalKeepsADatabasePerAccessKeyAndRegion(t *testing.T) {
	srv := DynamoDBLocal(t, LocalOptions{})
	ctx := context.Background()
	as := func(key, region string) *dynamodb.Client {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, "secret", "session")))
		if err != nil {
			t.Fatal(err)
		}
		return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	}
	views := []struct{ key, region string }{{"keya", "us-east-1"}, {"keyb", "us-east-1"}, {"keya", "eu-west-1"}}
	for _, v := range views {
		_, err := as(v.key, v.region).CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("orders"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest})
		if err != nil {
			t.Fatalf("%s in %s: %v (the name is taken: one database for all?)", v.key, v.region, err)
		}
	}
	if _, err := as("keya", "us-east-1").PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "1"}}}); err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		out, err := as(v.key, v.region).Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		want := int32(0)
		if v.key == "keya" && v.region == "us-east-1" {
			want = 1
		}
		if out.Count != want {
			t.Errorf("%s in %s sees %d items, want %d", v.key, v.region, out.Count, want)
		}
	}
	tables, err := as("keyc", "us-east-1").ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tables.TableNames, "orders") {
		t.Error("a third key sees another key's table")
	}
}

// TestDynamoDBLocalListensOnLoopbackOnly: like everything else the tests
// and the demo start, DynamoDB Local answers on 127.0.0.1 and on no other
// address of the machine.
func TestDynamoDBLocalListensOnLoopbackOnly(t *testing.T) {
	srv := DynamoDBLocal(t, LocalOptions{})
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	other := nonLoopbackAddress(t)
	if conn, err := net.DialTimeout("tcp", net.JoinHostPort(other, u.Port()), 2*time.Second); err == nil {
		_ = conn.Close()
		t.Fatalf("DynamoDB Local answers on %s:%s", other, u.Port())
	}
	conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		t.Fatalf("DynamoDB Local does not answer on %s: %v", u.Host, err)
	}
	_ = conn.Close()
}

// nonLoopbackAddress is an IPv4 address of this machine other than
// loopback; the test is skipped on a machine without one.
func nonLoopbackAddress(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipnet, ok := a.(*net.IPNet); ok && !ipnet.IP.IsLoopback() && ipnet.IP.To4() != nil {
			return ipnet.IP.String()
		}
	}
	t.Skip("no address but loopback to try")
	return ""
}
