package changefeed

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"k8s.io/apimachinery/pkg/util/wait"
)

// receiveTimeout cuts off a ReceiveMessage that SQS does not answer after
// its long poll.
const receiveTimeout = receiveWait + 10*time.Second

// maxMessages is SQS's most messages per ReceiveMessage.
const maxMessages = 10

// retryBackoff spaces the attempts of a feed that fails: from a second,
// doubling, to Options.MaxRetryDelay. Messages wait in the queue
// meanwhile; the tables are polled.
func (r *Registry) retryBackoff() wait.Backoff {
	return wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: r.maxRetryDelay}
}

// run reads one feed until ctx ends: check the queue, then long polls, each
// answer's messages routed and deleted. A failure puts the feed's tables
// back on polling and the feed starts over after a backoff.
func (r *Registry) run(ctx context.Context, f *feed) {
	select {
	case <-r.ready:
	case <-ctx.Done():
		return
	}
	if f.identity == OperatorIdentity {
		r.learnOperator(ctx)
	}
	backoff := r.retryBackoff()
	for ctx.Err() == nil {
		answered, err := r.read(ctx, f)
		if ctx.Err() != nil {
			return
		}
		reason, message := classify(err)
		r.update(f, func(h *health, now time.Time) bool { return h.failed(now, reason, message) })
		if answered {
			backoff = r.retryBackoff()
		}
		if !r.sleep(ctx, backoff.Step()) {
			return
		}
	}
}

// read checks the queue and reads it until a call fails; answered says
// whether SQS answered a ReceiveMessage before.
func (r *Registry) read(ctx context.Context, f *feed) (answered bool, _ error) {
	cfg, err := r.opts.Config(ctx, f.account, f.queue.Region, "sqs")
	if err != nil {
		return false, err
	}
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		if f.endpoint != "" {
			o.BaseEndpoint = aws.String(f.endpoint)
		}
	})
	if _, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(f.queue.URL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}}); err != nil {
		return false, err
	}
	// The first receive does not wait: its answer is what makes the feed
	// healthy, and a long poll of an idle queue would hold that back.
	longPoll := time.Duration(0)
	for {
		rctx, cancel := context.WithTimeout(ctx, receiveTimeout)
		out, err := client.ReceiveMessage(rctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(f.queue.URL),
			MaxNumberOfMessages: maxMessages, WaitTimeSeconds: int32(longPoll / time.Second)})
		cancel()
		longPoll = receiveWait
		if err != nil {
			return answered, err
		}
		answered = true
		r.update(f, (*health).answered)
		r.handle(ctx, f, client, out.Messages)
	}
}

// handle routes each message, then deletes all but those to retry in one
// call: a table is queued before the message that woke it is gone.
func (r *Registry) handle(ctx context.Context, f *feed, client *sqs.Client, messages []sqstypes.Message) {
	var done []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range messages {
		outcome := r.route(ctx, f, aws.ToString(m.Body))
		eventsTotal.WithLabelValues(label(f.identity), outcome).Inc()
		if outcome == OutcomeRetried {
			continue
		}
		done = append(done, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	if len(done) == 0 {
		return
	}
	out, err := client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(f.queue.URL), Entries: done})
	switch {
	case err != nil:
		// They come back after the visibility timeout, as duplicates.
		r.log.Info("could not delete handled messages; they will come back and be dropped as duplicates", "feed", label(f.identity), "error", err.Error())
	case len(out.Failed) > 0:
		r.log.Info("SQS kept some handled messages; they will come back and be dropped as duplicates", "feed", label(f.identity),
			"failed", len(out.Failed), "code", aws.ToString(out.Failed[0].Code))
	}
}

// learnOperator asks STS who the operator is, to know its own calls. Its
// failure only means they are looked at like anyone's.
func (r *Registry) learnOperator(ctx context.Context) {
	cfg, err := r.opts.Config(ctx, nil, "", "sts")
	if err != nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := sts.NewFromConfig(cfg).GetCallerIdentity(cctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		r.log.Info("could not tell who the operator is (sts:GetCallerIdentity): its own calls will each cost a look", "error", err.Error())
		return
	}
	p, ok := parsePrincipal(aws.ToString(out.Arn))
	if !ok {
		return
	}
	// The SDK names the sessions of a web identity or a container's role
	// itself, anew each time: any session of the operator's role is it.
	p.session = ""
	r.mu.Lock()
	r.operator = &p
	r.mu.Unlock()
}

func (r *Registry) sleep(ctx context.Context, d time.Duration) bool {
	t := r.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// classify names why a call failed, with AWS's code and message and no
// request id (a status that changed with every attempt would be rewritten
// with every attempt).
func classify(err error) (reason, message string) {
	var missing *sqstypes.QueueDoesNotExist
	if errors.As(err, &missing) {
		return ReasonQueueNotFound, "the queue does not exist (deleted, or another account's or region's): " + apiMessage(err)
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		if errors.Is(err, context.DeadlineExceeded) {
			return ReasonNoAnswer, fmt.Sprintf("SQS did not answer a ReceiveMessage within %s", receiveTimeout)
		}
		return ReasonEndpointError, err.Error()
	}
	code := apiErr.ErrorCode()
	switch {
	case code == "AWS.SimpleQueueService.NonExistentQueue":
		return ReasonQueueNotFound, "the queue does not exist (deleted, or another account's or region's): " + apiMessage(err)
	case strings.Contains(code, "AccessDenied"), code == "InvalidClientTokenId", code == "ExpiredToken",
		code == "UnrecognizedClientException", code == "InvalidSecurity", code == "SignatureDoesNotMatch":
		return ReasonAccessDenied, "AWS refused: " + apiMessage(err) +
			" (the role needs sqs:ReceiveMessage, sqs:DeleteMessage and sqs:GetQueueAttributes on the queue, and the queue's KMS key if it has one)"
	}
	return ReasonEndpointError, apiMessage(err)
}

func apiMessage(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode() + ": " + apiErr.ErrorMessage()
	}
	return err.Error()
}
