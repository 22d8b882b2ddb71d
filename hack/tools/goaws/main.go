// Command goaws is the goaws SQS emulator (github.com/Admiral-Piett/goaws,
// v0.4.5 from the Go module proxy) behind a front that speaks the AWS JSON
// 1.0 protocol, for Tether's tests.
//
// goaws v0.4.5, the newest version the module proxy serves, speaks only
// SQS's Query protocol; aws-sdk-go-v2's SQS client has spoken only JSON 1.0
// since service/sqs v1.27.0 (goaws added JSON in v0.5.0, which the proxy
// refuses). The front changes the encoding and nothing else: it decodes a
// JSON request into aws-sdk-go v1's SQS input type, encodes that as a Query
// request with aws-sdk-go v1's own Query serializer, lets goaws answer, and
// decodes goaws's XML with aws-sdk-go v1's own XML deserializer into the
// output type, written back as JSON. aws-sdk-go is pinned at goaws's own
// v1.34.0, whose SQS types still carry the Query protocol's names. Queue
// semantics (long polling, visibility, deletes, attributes, errors) are
// goaws's.
package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/Admiral-Piett/goaws/app/conf"
	"github.com/Admiral-Piett/goaws/app/gosqs"
	"github.com/Admiral-Piett/goaws/app/router"
	"github.com/aws/aws-sdk-go/private/protocol/query/queryutil"
	"github.com/aws/aws-sdk-go/private/protocol/xml/xmlutil"
	"github.com/aws/aws-sdk-go/service/sqs"
	log "github.com/sirupsen/logrus"
)

func main() {
	var (
		addr, account, region string
	)
	flag.StringVar(&addr, "listen", "127.0.0.1:4100", "host:port to listen on")
	flag.StringVar(&account, "account", "123456789012", "account id in queue URLs and ARNs")
	flag.StringVar(&region, "region", "us-east-1", "region in queue ARNs")
	flag.Parse()
	host, port, ok := strings.Cut(addr, ":")
	if !ok {
		fmt.Fprintln(os.Stderr, "-listen: want host:port")
		os.Exit(2)
	}
	log.SetLevel(log.WarnLevel)
	cfg, err := writeConfig(host, port, account, region)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	conf.LoadYamlConfig(cfg, "Local")
	// goaws reads its configuration once; the emulator is killed, not
	// stopped, so its file goes now rather than piling up in the temp dir.
	_ = os.RemoveAll(filepath.Dir(cfg))
	go gosqs.PeriodicTasks(time.Second, make(chan struct{}))
	fmt.Printf("listening on %s\n", addr)
	fmt.Fprintln(os.Stderr, http.ListenAndServe(addr, jsonFront(router.New())))
	os.Exit(1)
}

// writeConfig writes goaws's YAML configuration. goaws puts the region in
// its queue ARNs, and in front of the host in its queue URLs, as AWS's
// legacy <region>.queue.amazonaws.com URLs do.
func writeConfig(host, port, account, region string) (string, error) {
	dir, err := os.MkdirTemp("", "goaws-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "goaws.yaml")
	config := fmt.Sprintf("Local:\n  Host: %s\n  Port: %s\n  Region: %s\n  AccountId: %q\n", host, port, region, account)
	return path, os.WriteFile(path, []byte(config), 0o600)
}

// operation is an SQS action's input and output types in aws-sdk-go v1.
type operation struct {
	input, output func() any
}

func op[I, O any]() operation {
	return operation{input: func() any { return new(I) }, output: func() any { return new(O) }}
}

// operations are the SQS actions goaws v0.4.5 implements.
var operations = map[string]operation{
	"ListQueues":              op[sqs.ListQueuesInput, sqs.ListQueuesOutput](),
	"CreateQueue":             op[sqs.CreateQueueInput, sqs.CreateQueueOutput](),
	"GetQueueAttributes":      op[sqs.GetQueueAttributesInput, sqs.GetQueueAttributesOutput](),
	"SetQueueAttributes":      op[sqs.SetQueueAttributesInput, sqs.SetQueueAttributesOutput](),
	"SendMessage":             op[sqs.SendMessageInput, sqs.SendMessageOutput](),
	"SendMessageBatch":        op[sqs.SendMessageBatchInput, sqs.SendMessageBatchOutput](),
	"ReceiveMessage":          op[sqs.ReceiveMessageInput, sqs.ReceiveMessageOutput](),
	"DeleteMessage":           op[sqs.DeleteMessageInput, sqs.DeleteMessageOutput](),
	"DeleteMessageBatch":      op[sqs.DeleteMessageBatchInput, sqs.DeleteMessageBatchOutput](),
	"GetQueueUrl":             op[sqs.GetQueueUrlInput, sqs.GetQueueUrlOutput](),
	"PurgeQueue":              op[sqs.PurgeQueueInput, sqs.PurgeQueueOutput](),
	"DeleteQueue":             op[sqs.DeleteQueueInput, sqs.DeleteQueueOutput](),
	"ChangeMessageVisibility": op[sqs.ChangeMessageVisibilityInput, sqs.ChangeMessageVisibilityOutput](),
}

// jsonFront answers JSON 1.0 requests (X-Amz-Target: AmazonSQS.<Action>)
// through goaws; anything else goes to goaws as it is.
func jsonFront(goaws http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		action, isJSON := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
		if !isJSON {
			goaws.ServeHTTP(w, r)
			return
		}
		o, ok := operations[action]
		if !ok {
			writeError(w, http.StatusBadRequest, "UnsupportedOperation", "goaws does not implement "+action)
			return
		}
		in := o.input()
		if err := json.NewDecoder(r.Body).Decode(in); err != nil && err != io.EOF {
			writeError(w, http.StatusBadRequest, "InvalidParameterValue", err.Error())
			return
		}
		form := url.Values{"Action": {action}, "Version": {"2012-11-05"}}
		if err := queryutil.Parse(form, in, false); err != nil {
			writeError(w, http.StatusBadRequest, "InvalidParameterValue", err.Error())
			return
		}
		query, err := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), strings.NewReader(form.Encode()))
		if err != nil {
			writeError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
			return
		}
		query.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		goaws.ServeHTTP(rec, query)
		if r.Context().Err() != nil {
			return // the client gave up on a long poll
		}
		if rec.Code != http.StatusOK {
			writeQueryError(w, rec)
			return
		}
		out := o.output()
		if err := xmlutil.UnmarshalXML(out, xml.NewDecoder(rec.Body), action+"Result"); err != nil {
			writeError(w, http.StatusInternalServerError, "InternalFailure", "decoding goaws's answer: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(out)
	})
}

// queryErrorShapes maps the Query protocol's error codes goaws answers with
// to the JSON protocol's error shape names, as SQS's model pairs them
// (aws-sdk-go-v2 service/sqs schemas, the awsQueryError traits). Codes not
// listed are their own shape name.
var queryErrorShapes = map[string]string{
	"AWS.SimpleQueueService.NonExistentQueue":             "QueueDoesNotExist",
	"AWS.SimpleQueueService.BatchEntryIdsNotDistinct":     "BatchEntryIdsNotDistinct",
	"AWS.SimpleQueueService.EmptyBatchRequest":            "EmptyBatchRequest",
	"AWS.SimpleQueueService.TooManyEntriesInBatchRequest": "TooManyEntriesInBatchRequest",
	"AWS.SimpleQueueService.MessageNotInflight":           "MessageNotInflight",
}

// writeQueryError turns goaws's XML error into a JSON 1.0 error: the shape
// name in __type, and the Query code in X-Amzn-Query-Error, which SQS sends
// for clients that knew the Query codes.
func writeQueryError(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	var body struct {
		Error struct{ Code, Message string } `xml:"Error"`
	}
	raw := rec.Body.Bytes()
	if err := xml.NewDecoder(bytes.NewReader(raw)).Decode(&body); err != nil || body.Error.Code == "" {
		writeError(w, rec.Code, "InternalFailure", strings.TrimSpace(string(raw)))
		return
	}
	shape, ok := queryErrorShapes[body.Error.Code]
	if !ok {
		shape = strings.TrimPrefix(body.Error.Code, "AWS.SimpleQueueService.")
	}
	w.Header().Set("X-Amzn-Query-Error", body.Error.Code+";Sender")
	writeError(w, rec.Code, shape, body.Error.Message)
}

func writeError(w http.ResponseWriter, status int, shape, message string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + shape, "message": message})
}
