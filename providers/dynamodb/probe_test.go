package dynamodb

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// convergeAll runs f.pass for every object from its own goroutine, as the
// controller's workers would, until each is Ready.
func (f *fixture) convergeAll(objs []*awsv1alpha1.DynamoDBTable) {
	f.t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(objs))
	for _, obj := range objs {
		wg.Go(func() {
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				obs, err := f.pass(obj)
				if err == nil && obs.Outcome == providers.OutcomeUpToDate && obs.Available {
					return
				}
				if err != nil && !notNow(err) {
					errs <- fmt.Errorf("%s: %w", obj.Name, err)
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			errs <- fmt.Errorf("%s: not Ready in 30 s", obj.Name)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		f.t.Error(err)
	}
}

// Creating many tables at once: each costs DescribeTable, CreateTable,
// DescribeTable, and no tag read (Tether knows the owner tags it just gave).
func TestNewTablesCostThreeCallsEach(t *testing.T) {
	f := newFixture(t, dynamoDBLocal(t).URL, Options{SecondaryReadInterval: time.Hour})
	var objs []*awsv1alpha1.DynamoDBTable
	for range 20 {
		objs = append(objs, newTable())
	}
	f.convergeAll(objs)
	for _, obj := range objs {
		calls := f.proxy.CallsFor(obj.ResolvedTableName())
		want := map[string]int{"DescribeTable": 2, "CreateTable": 1}
		if fmt.Sprint(calls) != fmt.Sprint(want) {
			t.Errorf("%s: calls %v, want %v", obj.Name, calls, want)
		}
	}
	if n := f.proxy.Calls()["ListTagsOfResource"]; n != 0 {
		t.Errorf("ListTagsOfResource called %d times while creating, want 0", n)
	}
	for _, obj := range objs {
		f.deleteFully(obj)
	}
}

// When tags are read on every pass and the endpoint lacks tagging, many
// workers at once still ask the endpoint only once.
func TestTaggingIsProbedOncePerEndpoint(t *testing.T) {
	f := newFixture(t, dynamoDBLocal(t).URL, Options{SecondaryReadInterval: -1})
	var objs []*awsv1alpha1.DynamoDBTable
	for range 20 {
		objs = append(objs, newTable(func(o *awsv1alpha1.DynamoDBTable) { o.Spec.Tags = map[string]string{"team": "a"} }))
	}
	f.convergeAll(objs)
	if n := f.proxy.Calls()["ListTagsOfResource"]; n != 1 {
		t.Errorf("ListTagsOfResource called %d times by 20 concurrent tables, want exactly 1 (one probe)", n)
	}
	for _, obj := range objs {
		if fmt.Sprint(obj.Status.UnsupportedFeatures) != "[tags]" {
			t.Errorf("%s: unsupportedFeatures %v, want [tags]", obj.Name, obj.Status.UnsupportedFeatures)
		}
	}
	for _, obj := range objs {
		f.deleteFully(obj)
	}
}

// A worker that comes after the probe's answer but before its caller went on
// must not ask the endpoint again: the probe itself records the missing API.
func TestAProbeThatFindsAnAPIMissingRecordsItAtOnce(t *testing.T) {
	p := New(Options{})
	ep := &access.Endpoint{Key: "us-east-1|http://local"}
	missing := &smithy.GenericAPIError{Code: "UnknownOperationException", Message: "tagging is not supported"}
	calls := 0
	read := func() error { calls++; return missing }

	if err := p.clients.Probe(ep, plan.FeatureTags, read); !access.IsUnknownOperation(err) {
		t.Fatalf("first call: %v, want the endpoint's answer", err)
	}
	// The caller has not recorded anything yet (markUnsupported).
	for i := range 2 {
		if err := p.clients.Probe(ep, plan.FeatureTags, read); !errors.Is(err, access.ErrLacksFeature) {
			t.Errorf("call %d after the probe: %v, want access.ErrLacksFeature", i+2, err)
		}
	}
	if calls != 1 {
		t.Errorf("the endpoint was asked %d times, want 1", calls)
	}
}
