package ddbgap_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/ddbgap"
)

// Kinesis streaming destinations, with AWS's own SDK: DynamoDB Local
// refuses all four calls (UnknownOperationException), so the model
// answers them; ENABLING, ACTIVE, UPDATING, DISABLING, DISABLED in turn,
// one live destination per table, every call in the wrong state a
// ValidationException (never ResourceNotFoundException), the same
// precision twice refused, a stream in another Region ENABLE_FAILED after
// the call was accepted, and every entry still listed.
func TestModelKinesisStreamingDestination(t *testing.T) {
	w := newWorldWith(t, ddbgap.Options{})
	ctx := context.Background()
	g := NewWithT(t)
	const table = "kinesis-a"
	const stream = "arn:aws:kinesis:us-east-1:111122223333:stream/orders"    // the caller's Region (ddbtest.EnvFor)
	const elsewhere = "arn:aws:kinesis:eu-west-1:111122223333:stream/orders" // another Region
	w.table(table, types.BillingModePayPerRequest, false)

	// DynamoDB Local alone: no such operation, which is why the model
	// answers them.
	cfg, err := config.LoadDefaultConfig(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	bare := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(local.URL) })
	_, err = bare.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table)})
	w.expect(err, "UnknownOperationException")

	describe := func() []types.KinesisDataStreamDestination {
		t.Helper()
		out, err := w.ddb.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table)})
		g.Expect(err).NotTo(HaveOccurred())
		return out.KinesisDataStreamDestinations
	}
	last := func() types.KinesisDataStreamDestination {
		t.Helper()
		d := describe()
		g.Expect(d).NotTo(BeEmpty())
		return d[len(d)-1]
	}
	settled := func() types.DestinationStatus {
		g.Eventually(func() types.DestinationStatus { return last().DestinationStatus }, 5*time.Second, 50*time.Millisecond).
			ShouldNot(BeElementOf(types.DestinationStatusEnabling, types.DestinationStatusUpdating, types.DestinationStatusDisabling))
		return last().DestinationStatus
	}
	enable := func(arn string, precision types.ApproximateCreationDateTimePrecision) (*dynamodb.EnableKinesisStreamingDestinationOutput, error) {
		in := &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String(table), StreamArn: aws.String(arn)}
		if precision != "" {
			in.EnableKinesisStreamingConfiguration = &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: precision}
		}
		return w.ddb.EnableKinesisStreamingDestination(ctx, in)
	}
	update := func(precision types.ApproximateCreationDateTimePrecision) error {
		_, err := w.ddb.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String(table),
			StreamArn: aws.String(stream), UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: precision}})
		return err
	}
	disable := func(arn string) error {
		_, err := w.ddb.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String(table), StreamArn: aws.String(arn)})
		return err
	}

	g.Expect(describe()).To(BeEmpty(), "never enabled")
	_, err = w.ddb.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("no-such-table")})
	w.expect(err, "ResourceNotFoundException")
	_, err = enable("arn:aws:kinesis:us-east-1:1:stream/x", "")
	w.expect(err, "ValidationException") // shorter than StreamArn's 37
	_, err = enable(stream, "NANOSECOND")
	w.expect(err, "ValidationException")
	w.expect(disable(stream), "ValidationException") // never enabled: the wrong state, not "not found"

	out, err := enable(stream, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.DestinationStatus).To(Equal(types.DestinationStatusEnabling))
	_, err = enable(stream, "")
	w.expect(err, "ValidationException")                                                           // one live destination: ENABLING is live
	w.expect(update(types.ApproximateCreationDateTimePrecisionMicrosecond), "ValidationException") // not ACTIVE yet
	g.Expect(settled()).To(Equal(types.DestinationStatusActive))
	g.Expect(last().ApproximateCreationDateTimePrecision).To(BeEmpty(), "never set: none reported (MILLISECOND)")
	w.expect(update(types.ApproximateCreationDateTimePrecisionMillisecond), "ValidationException") // already so

	g.Expect(update(types.ApproximateCreationDateTimePrecisionMicrosecond)).To(Succeed())
	g.Expect(last().DestinationStatus).To(Equal(types.DestinationStatusUpdating))
	g.Expect(settled()).To(Equal(types.DestinationStatusActive))
	g.Expect(last().ApproximateCreationDateTimePrecision).To(Equal(types.ApproximateCreationDateTimePrecisionMicrosecond))
	err = update(types.ApproximateCreationDateTimePrecisionMicrosecond)
	w.expect(err, "ValidationException")
	g.Expect(err.Error()).To(ContainSubstring("Precision is already set"))

	_, err = enable(elsewhere, "")
	w.expect(err, "ValidationException") // the live one is still there
	g.Expect(disable(stream)).To(Succeed())
	g.Expect(last().DestinationStatus).To(Equal(types.DestinationStatusDisabling))
	g.Expect(settled()).To(Equal(types.DestinationStatusDisabled))
	w.expect(disable(stream), "ValidationException") // DISABLED already

	out, err = enable(elsewhere, types.ApproximateCreationDateTimePrecisionMillisecond)
	g.Expect(err).NotTo(HaveOccurred(), "accepted: AWS checks the stream afterwards")
	g.Expect(out.DestinationStatus).To(Equal(types.DestinationStatusEnabling))
	g.Expect(settled()).To(Equal(types.DestinationStatusEnableFailed))
	g.Expect(aws.ToString(last().DestinationStatusDescription)).To(ContainSubstring("eu-west-1"))
	all := describe()
	g.Expect(all).To(HaveLen(2), "the disabled entry and the failed one")
	g.Expect(all[0].DestinationStatus).To(Equal(types.DestinationStatusDisabled))
	g.Expect(aws.ToString(all[0].StreamArn)).To(Equal(stream))

	// A failed entry is not live: the table may stream again.
	_, err = enable(stream, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(settled()).To(Equal(types.DestinationStatusActive))
	g.Expect(aws.ToString(describe()[2].StreamArn)).To(Equal(stream))
	g.Expect(w.gap.Calls("EnableKinesisStreamingDestination")).To(Equal(7), "the model counts every call, refused or not")
}
