package changefeed

import "testing"

func TestParseQueue(t *testing.T) {
	cases := []struct {
		ref, region string
		want        queue
		bad         bool
	}{
		{ref: "https://sqs.eu-west-1.amazonaws.com/111122223333/changes",
			want: queue{URL: "https://sqs.eu-west-1.amazonaws.com/111122223333/changes", Region: "eu-west-1", Account: "111122223333", Name: "changes"}},
		{ref: "https://eu-west-1.queue.amazonaws.com/111122223333/changes", region: "us-east-1",
			want: queue{URL: "https://eu-west-1.queue.amazonaws.com/111122223333/changes", Region: "eu-west-1", Account: "111122223333", Name: "changes"}},
		{ref: "arn:aws:sqs:eu-west-1:111122223333:changes",
			want: queue{URL: "https://sqs.eu-west-1.amazonaws.com/111122223333/changes", Region: "eu-west-1", Account: "111122223333", Name: "changes"}},
		{ref: "arn:aws-cn:sqs:cn-north-1:111122223333:changes.fifo",
			want: queue{URL: "https://sqs.cn-north-1.amazonaws.com.cn/111122223333/changes.fifo", Region: "cn-north-1", Account: "111122223333", Name: "changes.fifo"}},
		{ref: "http://127.0.0.1:4100/111122223333/changes", region: "us-east-1",
			want: queue{URL: "http://127.0.0.1:4100/111122223333/changes", Region: "us-east-1", Account: "111122223333", Name: "changes"}},
		{ref: "http://127.0.0.1:4100/111122223333/changes", bad: true},
		{ref: "arn:aws:sns:eu-west-1:111122223333:changes", bad: true},
		{ref: "https://sqs.eu-west-1.amazonaws.com/changes", bad: true},
		{ref: "changes", bad: true},
	}
	for _, c := range cases {
		got, err := parseQueue(c.ref, c.region)
		if c.bad {
			if err == nil {
				t.Errorf("%s: no error, got %+v", c.ref, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.ref, got, err, c.want)
		}
	}
	a, _ := parseQueue("arn:aws:sqs:eu-west-1:111122223333:changes")
	u, _ := parseQueue("https://sqs.eu-west-1.amazonaws.com/111122223333/changes")
	if a.key() != u.key() {
		t.Errorf("one queue named by ARN and by URL has two keys: %s, %s", a.key(), u.key())
	}
}
