package soak

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/internal/huesim"
)

const (
	secretsNS = "tether-system"
	lightsNS  = "soak-lights"
	tablesNS  = "soak-tables"
	soakUser  = "tether-soak-user-0123456789abcdef"
)

// soak is one soak's world and what happened in it.
type soak struct {
	opts    Options
	w       *bench.World
	op      *bench.Operator
	bridges []*huesim.Server
	// flap is the bridge that goes offline now and then.
	flap *huesim.Server
	// lights and tables are the objects as created (names and kinds).
	lights []*huev1alpha1.HueLight
	tables []*awsv1alpha1.DynamoDBTable
	// bulbs maps a HueLight's bulb name to its bridge.
	bulbs map[string]*huesim.Server
	log   *logWatch
	// commit is what the manager was built from.
	commit string
}

func bridgeName(i int) string { return fmt.Sprintf("bridge-%d", i+1) }

// setUp starts the bridges and the manager, creates every object and waits
// until all are Ready.
func (s *soak) setUp(ctx context.Context, bin string) error {
	o := s.opts
	c := s.w.Client
	for _, ns := range []string{secretsNS, lightsNS, tablesNS} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	s.bulbs = map[string]*huesim.Server{}
	perBridge := (o.Lights + o.Bridges - 1) / o.Bridges
	for i := range o.Bridges {
		name := bridgeName(i)
		var bulbs []string
		for j := i * perBridge; j < min(o.Lights, (i+1)*perBridge); j++ {
			bulbs = append(bulbs, bulbName(j))
		}
		sim, err := huesim.Start(huesim.Options{Lights: bulbs, Usernames: []string{soakUser}}, "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.w.OnStop(sim.Close)
		s.bridges = append(s.bridges, sim)
		for _, b := range bulbs {
			s.bulbs[b] = sim
		}
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: name + "-credentials"},
			Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(soakUser), huev1alpha1.BridgeIDKey: []byte(sim.BridgeID())},
		}
		if err := c.Create(ctx, secret); err != nil {
			return err
		}
		hb := &huev1alpha1.HueBridge{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: huev1alpha1.HueBridgeSpec{
				Address:              sim.Addr(),
				CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name},
			},
		}
		if err := c.Create(ctx, hb); err != nil {
			return err
		}
		for _, b := range bulbs {
			s.lights = append(s.lights, newLight(len(s.lights), name, b))
		}
	}
	s.flap = s.bridges[len(s.bridges)-1]
	for i := range o.Tables {
		s.tables = append(s.tables, newTable(i))
	}

	logPath := filepath.Join(o.WorkDir, "manager.log")
	o.logf("starting the manager (%v)", o.managerFlags())
	op, err := bench.StartOperator(ctx, bin, s.w.Kubeconfig, s.w.Proxy.URL(), logPath, o.managerFlags()...)
	if err != nil {
		return err
	}
	s.op = op
	s.w.OnStop(op.Stop)
	s.log = newLogWatch(logPath)

	o.logf("creating %d HueLights on %d bridge(s) and %d DynamoDBTables", len(s.lights), len(s.bridges), len(s.tables))
	objs := make([]client.Object, 0, len(s.lights)+len(s.tables))
	for _, l := range s.lights {
		objs = append(objs, l)
	}
	for _, t := range s.tables {
		objs = append(objs, t)
	}
	if err := bench.Parallel(len(objs), 8, func(i int) error { return c.Create(ctx, objs[i]) }); err != nil {
		return err
	}
	timeout := 2*time.Minute + time.Duration(len(s.tables))*200*time.Millisecond + time.Duration(len(s.lights))*200*time.Millisecond
	err = bench.WaitUntil(ctx, timeout, time.Second, func() (bool, error) {
		n, err := s.notReady(ctx, s.w.Cache)
		return n == 0, err
	})
	if err != nil {
		n, _ := s.notReady(ctx, s.w.Cache)
		return fmt.Errorf("waiting for every object to be Ready after creation (%d not Ready): %w", n, err)
	}
	return nil
}

func bulbName(i int) string { return fmt.Sprintf("soak-bulb-%d", i+1) }

// newLight is a HueLight for a bulb: a third have a colour temperature, a
// third hue and saturation, a third brightness only. onDelete Keep, so that
// tearing down sends nothing to the bridges.
func newLight(i int, bridge, bulb string) *huev1alpha1.HueLight {
	l := &huev1alpha1.HueLight{
		ObjectMeta: metav1.ObjectMeta{Namespace: lightsNS, Name: bulb},
		Spec: huev1alpha1.HueLightSpec{
			BridgeRef:  &huev1alpha1.BridgeReference{Name: bridge},
			Name:       bulb,
			On:         ptr.To(true),
			Brightness: ptr.To(int32(100 + i%100)),
			OnDelete:   huev1alpha1.DeletionKeep,
		},
	}
	switch i % 3 {
	case 0:
		l.Spec.Color = &huev1alpha1.Color{ColorTemperature: ptr.To(int32(200 + i%200))}
	case 1:
		l.Spec.Color = &huev1alpha1.Color{Hue: ptr.To(int32(i * 997 % 65536)), Saturation: ptr.To(int32(150 + i%100))}
	}
	return l
}

// The table mix, by i % 4.
const (
	tablePayPerRequest = iota
	tableProvisioned
	tablePayPerRequestGSI
	tableProvisionedGSI
)

// newTable is one of four kinds of table: PAY_PER_REQUEST or PROVISIONED,
// each with or without a global secondary index.
func newTable(i int) *awsv1alpha1.DynamoDBTable {
	t := &awsv1alpha1.DynamoDBTable{
		ObjectMeta: metav1.ObjectMeta{Namespace: tablesNS, Name: fmt.Sprintf("soak-table-%d", i+1)},
		Spec: awsv1alpha1.DynamoDBTableSpec{
			AttributeDefinitions: []awsv1alpha1.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            awsv1alpha1.KeySchema{{AttributeName: "pk", KeyType: "HASH"}},
			BillingMode:          awsv1alpha1.BillingModePayPerRequest,
		},
	}
	kind := i % 4
	provisioned := kind == tableProvisioned || kind == tableProvisionedGSI
	if provisioned {
		t.Spec.BillingMode = awsv1alpha1.BillingModeProvisioned
		t.Spec.ProvisionedThroughput = &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5}
	}
	if kind == tablePayPerRequestGSI || kind == tableProvisionedGSI {
		t.Spec.AttributeDefinitions = append(t.Spec.AttributeDefinitions, awsv1alpha1.AttributeDefinition{AttributeName: "gk", AttributeType: "S"})
		gsi := awsv1alpha1.GlobalSecondaryIndex{IndexName: "by-gk", KeySchema: awsv1alpha1.KeySchema{{AttributeName: "gk", KeyType: "HASH"}}}
		if provisioned {
			gsi.ProvisionedThroughput = &awsv1alpha1.ProvisionedThroughput{ReadCapacityUnits: 3, WriteCapacityUnits: 3}
		}
		t.Spec.GlobalSecondaryIndexes = []awsv1alpha1.GlobalSecondaryIndex{gsi}
	}
	return t
}

func hasGSI(t *awsv1alpha1.DynamoDBTable) bool { return len(t.Spec.GlobalSecondaryIndexes) > 0 }

func readyNow(s *commonv1alpha1.ManagedStatus, generation int64) bool {
	c := meta.FindStatusCondition(s.Conditions, commonv1alpha1.Ready)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation
}

// notReady counts the objects whose Ready condition is not True for their
// current generation, reading from r (the cache, or the API server).
func (s *soak) notReady(ctx context.Context, r client.Reader) (int, error) {
	bad, err := s.notReadyKeys(ctx, r)
	return len(bad), err
}

func (s *soak) notReadyKeys(ctx context.Context, r client.Reader) ([]string, error) {
	var bad []string
	var lights huev1alpha1.HueLightList
	if err := r.List(ctx, &lights, client.InNamespace(lightsNS)); err != nil {
		return nil, err
	}
	var tables awsv1alpha1.DynamoDBTableList
	if err := r.List(ctx, &tables, client.InNamespace(tablesNS)); err != nil {
		return nil, err
	}
	seen := 0
	for i := range lights.Items {
		l := &lights.Items[i]
		seen++
		if !readyNow(&l.Status.ManagedStatus, l.Generation) {
			bad = append(bad, "HueLight "+l.Name)
		}
	}
	for i := range tables.Items {
		t := &tables.Items[i]
		seen++
		if !readyNow(&t.Status.ManagedStatus, t.Generation) {
			bad = append(bad, "DynamoDBTable "+t.Name)
		}
	}
	if missing := len(s.lights) + len(s.tables) - seen; missing > 0 {
		bad = append(bad, fmt.Sprintf("%d object(s) not listed yet", missing))
	}
	return bad, nil
}
