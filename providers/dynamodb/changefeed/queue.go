package changefeed

import (
	"fmt"
	"net/url"
	"strings"
)

// queue is an SQS queue as a feed names it.
type queue struct {
	// URL is what ReceiveMessage and DeleteMessageBatch are given.
	URL string
	// Region is where the queue is, and the region of the SQS client.
	Region string
	// Account and Name identify it with Region.
	Account, Name string
}

// key identifies a queue whatever way it was named: two feeds naming one
// queue (by URL and by ARN) read the same events.
func (q queue) key() string { return q.Region + "|" + q.Account + "|" + q.Name }

// parseQueue reads a queue URL or ARN. The region comes from the ARN, from
// an AWS queue URL's host (sqs.<region>.amazonaws.com, or the legacy
// <region>.queue.amazonaws.com), else from region (the spec's, then the
// account's or the operator's).
func parseQueue(ref string, region ...string) (queue, error) {
	if strings.HasPrefix(ref, "arn:") {
		parts := strings.Split(ref, ":")
		if len(parts) != 6 || parts[2] != "sqs" || parts[3] == "" || parts[4] == "" || parts[5] == "" {
			return queue{}, fmt.Errorf("%q is not an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>)", ref)
		}
		q := queue{Region: parts[3], Account: parts[4], Name: parts[5]}
		q.URL = fmt.Sprintf("https://sqs.%s.%s/%s/%s", q.Region, dnsSuffix(parts[1]), q.Account, q.Name)
		return q, nil
	}
	u, err := url.Parse(ref)
	if err != nil || u.Host == "" {
		return queue{}, fmt.Errorf("%q is not a queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>) or ARN", ref)
	}
	path := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(path) != 2 || path[0] == "" || path[1] == "" {
		return queue{}, fmt.Errorf("queue URL %q does not end in /<account>/<name>", ref)
	}
	q := queue{URL: ref, Account: path[0], Name: path[1], Region: regionOfHost(u.Hostname())}
	if q.Region == "" {
		q.Region = first(region...)
	}
	if q.Region == "" {
		return queue{}, fmt.Errorf("queue URL %q does not say its region: set spec.changeEvents.region", ref)
	}
	return q, nil
}

// regionOfHost reads the region of an AWS queue URL's host, "" for any
// other host.
func regionOfHost(host string) string {
	labels := strings.Split(host, ".")
	if len(labels) < 4 || labels[len(labels)-2] != "amazonaws" && !strings.HasSuffix(host, ".amazonaws.com.cn") {
		return ""
	}
	switch {
	case labels[0] == "sqs":
		return labels[1]
	case labels[1] == "queue":
		return labels[0]
	}
	return ""
}

// dnsSuffix is a partition's domain (AWS General Reference, "Service
// endpoints").
func dnsSuffix(partition string) string {
	if partition == "aws-cn" {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}
