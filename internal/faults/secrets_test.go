package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
)

// TestCredentialsNeverLeak pairs a bridge (the username is born inside the
// operator and written to a Secret), drives a light through it, takes the
// bridge offline and back (errors that carry request URLs, which contain
// the username), and creates and deletes a DynamoDB table signed with a
// canary secret key. Then it reads the manager's whole log (every
// verbosity), every event, every Tether object and every metric, and finds
// neither the username nor the AWS keys anywhere. The other tests of this
// package ran on the same manager, so their faults are in the log too.
func TestCredentialsNeverLeak(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()

	// Pairing: the username exists only on the bridge and in the Secret.
	sim, err := huesim.Start(huesim.Options{Lights: []string{"desk"}}, "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(sim.Close)
	hb := &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: "canary"},
		Spec: huev1alpha1.HueBridgeSpec{Address: sim.Addr(),
			CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: "canary-credentials"},
			PollInterval:         &metav1.Duration{Duration: bridgePoll}}}
	g.Expect(k8s.Create(ctx, hb)).To(Succeed())
	bridgeCondition := func(g Gomega, typ string) string {
		var b huev1alpha1.HueBridge
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(hb), &b)).To(Succeed())
		return condition(b.Status.Conditions, typ)
	}
	g.Eventually(func(g Gomega) string { return bridgeCondition(g, huev1alpha1.ConditionPaired) }, timeout, poll).
		Should(HavePrefix("False/LinkButtonNotPressed"))
	sim.PressLinkButton()
	var secret corev1.Secret
	g.Eventually(func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: secretsNS, Name: "canary-credentials"}, &secret)
	}, timeout, poll).Should(Succeed())
	username := string(secret.Data[huev1alpha1.CredentialsKey])
	g.Expect(len(username)).To(BeNumerically(">=", 10), "a username worth looking for")

	light := &huev1alpha1.HueLight{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "desk"},
		Spec: huev1alpha1.HueLightSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: "canary"}, Name: "desk", Brightness: ptr.To[int32](42)}}
	g.Expect(k8s.Create(ctx, light)).To(Succeed())
	lightReady := func(g Gomega) string {
		var l huev1alpha1.HueLight
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(light), &l)).To(Succeed())
		return condition(l.Status.Conditions, "Ready")
	}
	g.Eventually(lightReady, timeout, poll).Should(HavePrefix("True/Available"))

	// Failures whose errors carry the request URL, /api/<username>/...
	sim.Offline(huesim.Refuse)
	g.Eventually(lightReady, timeout, poll).Should(HavePrefix("False/BridgeUnreachable"))
	g.Expect(sim.Online()).To(Succeed())
	g.Eventually(lightReady, timeout, poll).Should(HavePrefix("True/Available"))
	sim.Offline(huesim.Hang)
	g.Eventually(lightReady, timeout, poll).Should(HavePrefix("False/BridgeUnreachable"))
	g.Expect(sim.Online()).To(Succeed())
	g.Eventually(lightReady, timeout, poll).Should(HavePrefix("True/Available"))

	// A DynamoDB table signed with the canary key, created and deleted.
	tableName := fmt.Sprintf("canary-%d", time.Now().UnixNano()%1000000)
	table := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "canary"},
		Spec: awsv1alpha1.DynamoDBTableSpec{TableName: tableName,
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
			Tags:                 map[string]string{"team": "canary"}}}
	g.Expect(k8s.Create(ctx, table)).To(Succeed())
	g.Eventually(func(g Gomega) string {
		var o awsv1alpha1.DynamoDBTable
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(table), &o)).To(Succeed())
		return condition(o.Status.Conditions, "Ready")
	}, timeout, poll).Should(HavePrefix("True/Available"))

	// Look everywhere before the objects go (their statuses are evidence).
	places := map[string]string{
		"manager log": logs.String(),
		"events":      allEvents(g),
		"objects":     allTetherObjects(g),
		"metrics":     allMetrics(g),
	}
	deleteAndWait(t, light, &huev1alpha1.HueLight{})
	deleteAndWait(t, table, &awsv1alpha1.DynamoDBTable{})
	deleteAndWait(t, hb, &huev1alpha1.HueBridge{})
	_ = k8s.Delete(ctx, &secret)
	places["manager log"] = logs.String()
	places["events"] = allEvents(g)

	// The search is not vacuous: each place saw these flows.
	g.Expect(places["manager log"]).To(And(ContainSubstring("canary"), ContainSubstring(tableName)))
	g.Expect(places["events"]).To(ContainSubstring("canary"))
	g.Expect(places["objects"]).To(And(ContainSubstring(tableName), ContainSubstring(`"lightID"`)))
	g.Expect(places["metrics"]).To(ContainSubstring("controller_runtime_reconcile_total"))

	secrets := map[string]string{
		"the Hue username":      username,
		"the canary username":   "tether-canary-hue-user-5f2c9a", // TestBridgeMisbehaving's
		"the AWS secret key":    awsSecretKey,
		"the AWS access key id": awsAccessKey,
	}
	for place, text := range places {
		for what, secret := range secrets {
			if i := strings.Index(text, secret); i >= 0 {
				t.Errorf("%s appears in the %s: ...%s...", what, place, text[max(0, i-300):min(len(text), i+len(secret)+100)])
			}
		}
	}
	t.Logf("searched %d bytes of log, %d of events, %d of objects, %d of metrics",
		len(places["manager log"]), len(places["events"]), len(places["objects"]), len(places["metrics"]))
}

func allEvents(g Gomega) string {
	ctx := context.Background()
	var b bytes.Buffer
	var ev eventsv1.EventList
	g.Expect(k8s.List(ctx, &ev)).To(Succeed())
	var core corev1.EventList
	g.Expect(k8s.List(ctx, &core)).To(Succeed())
	for _, list := range []any{ev.Items, core.Items} {
		data, err := json.Marshal(list)
		g.Expect(err).NotTo(HaveOccurred())
		b.Write(data)
	}
	return b.String()
}

func allTetherObjects(g Gomega) string {
	ctx := context.Background()
	var b bytes.Buffer
	for _, list := range []client.ObjectList{&huev1alpha1.HueBridgeList{}, &huev1alpha1.HueLightList{}, &awsv1alpha1.DynamoDBTableList{}} {
		g.Expect(k8s.List(ctx, list)).To(Succeed())
		data, err := json.Marshal(list)
		g.Expect(err).NotTo(HaveOccurred())
		b.Write(data)
	}
	return b.String()
}

// allMetrics renders every metric family the manager's registry and the
// default registry hold: names, label values and samples.
func allMetrics(g Gomega) string {
	var b bytes.Buffer
	for _, gatherer := range []prometheus.Gatherer{crmetrics.Registry, prometheus.DefaultGatherer} {
		families, err := gatherer.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		for _, f := range families {
			b.WriteString(f.String()) // names, help, label values, samples
			b.WriteByte('\n')
		}
	}
	return b.String()
}
