package sqstest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	. "github.com/onsi/gomega"
)

// The change feed relies on these SQS behaviours (Amazon SQS Developer
// Guide: long polling, visibility timeout, deleting messages, queue
// attributes). This checks the emulator has them, with aws-sdk-go-v2's own
// SQS client, before any test relies on it.
func TestEmulatorBehavesAsSQSDocuments(t *testing.T) {
	s := SQS(t, Options{})
	g := NewWithT(t)
	ctx := context.Background()
	c := s.Client()
	url, arn, err := s.CreateQueue(ctx, "fidelity", map[string]string{"VisibilityTimeout": "1", "MaximumMessageSize": "1024"})
	g.Expect(err).NotTo(HaveOccurred())
	receive := func(wait int32) *sqs.ReceiveMessageOutput {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: wait})
		g.Expect(err).NotTo(HaveOccurred())
		return out
	}

	// Attributes: the queue's ARN, and its size.
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn, types.QueueAttributeNameApproximateNumberOfMessages}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(attrs.Attributes).To(HaveKeyWithValue("QueueArn", arn))
	g.Expect(attrs.Attributes).To(HaveKeyWithValue("ApproximateNumberOfMessages", "0"))

	// Long polling: a receive waiting on an empty queue returns a message
	// sent while it waits, without waiting its whole 20 seconds.
	got := make(chan *sqs.ReceiveMessageOutput, 1)
	began := time.Now()
	go func() { got <- receive(20) }()
	g.Consistently(got, 500*time.Millisecond).ShouldNot(Receive(), "an empty queue answered a long poll at once")
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("one")})
	g.Expect(err).NotTo(HaveOccurred())
	var first *sqs.ReceiveMessageOutput
	g.Eventually(got, 10*time.Second).Should(Receive(&first))
	g.Expect(time.Since(began)).To(BeNumerically("<", 20*time.Second))
	g.Expect(first.Messages).To(HaveLen(1))
	g.Expect(aws.ToString(first.Messages[0].Body)).To(Equal("one"))

	// Visibility timeout: a message received and not deleted is hidden,
	// then comes back. (goaws does not count receives: its
	// ApproximateReceiveCount stays 1, so nothing here relies on it.)
	g.Expect(receive(0).Messages).To(BeEmpty(), "a received message is hidden for the visibility timeout")
	g.Eventually(func() []types.Message { return receive(1).Messages }, 10*time.Second).Should(ContainElement(And(
		HaveField("Body", HaveValue(Equal("one"))),
		HaveField("MessageId", Equal(first.Messages[0].MessageId)))))

	// Delete: a deleted message does not come back; at most ten a receive.
	g.Eventually(func() int {
		out := receive(1)
		for _, m := range out.Messages {
			_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
			g.Expect(err).NotTo(HaveOccurred())
		}
		return len(out.Messages)
	}, 10*time.Second).Should(Equal(1))
	var batch []types.SendMessageBatchRequestEntry
	for i := range 10 {
		batch = append(batch, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String("m" + strconv.Itoa(i))})
	}
	for range 2 {
		_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: batch})
		g.Expect(err).NotTo(HaveOccurred())
	}
	many := receive(0)
	g.Expect(len(many.Messages)).To(BeNumerically("<=", 10))
	var entries []types.DeleteMessageBatchRequestEntry
	for i, m := range many.Messages {
		entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	del, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(del.Failed).To(BeEmpty())
	g.Expect(del.Successful).To(HaveLen(len(many.Messages)))

	// The queue's MaximumMessageSize is enforced.
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strings.Repeat("x", 2048))})
	g.Expect(err).To(HaveOccurred(), "a message over the queue's MaximumMessageSize was accepted")

	// A deleted queue: receiving from it fails with QueueDoesNotExist.
	_, err = c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 1})
	var missing *types.QueueDoesNotExist
	g.Expect(errors.As(err, &missing)).To(BeTrue(), "receiving from a deleted queue: %v", err)
}
