package soak

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
	"github.com/tether-dev/tether/internal/bench"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/huesim"
	"github.com/tether-dev/tether/internal/repo"
	"github.com/tether-dev/tether/internal/ststest"
	"github.com/tether-dev/tether/internal/tcpproxy"
	"github.com/tether-dev/tether/providers"
)

const (
	secretsNS = "tether-system"
	lightsNS  = "soak-lights"
	tablesNS  = "soak-tables"
	accountNS = "soak-account"
	soakUser  = "tether-soak-user-0123456789abcdef"
	// The AWSAccount's role in the STS model: its sessions sign with
	// accountKey, so DynamoDB Local keeps the account's tables apart.
	accountName = "soak-account"
	accountRole = "arn:aws:iam::333333333333:role/tether-soak"
	accountKey  = "soakaccountkey"
	// samplePolicyAccount is the account of the principal in the global
	// table sample's resource policy.
	samplePolicyAccount = "111122223333"
)

// soak is one soak's world and what happened in it.
type soak struct {
	opts Options
	w    *bench.World
	bin  string
	// managerEnv is the manager's environment beyond its DynamoDB
	// endpoint (the STS model's address).
	managerEnv map[string]string

	mu         sync.Mutex
	proc       *process
	restarting bool
	// crashed receives the number of a manager process that ended on its
	// own.
	crashed chan int

	bridges []*bridge
	// lights and tables are the objects as created (names and kinds);
	// models are the HueLights of every bulb model, out of the mischief's
	// reach; groups and scenes the HueGroups and their HueScenes.
	lights        []*huev1alpha1.HueLight
	models        []*modelLight
	groups        []*huev1alpha1.HueGroup
	scenes        []*huev1alpha1.HueScene
	tables        []*awsv1alpha1.DynamoDBTable
	accountTables []*awsv1alpha1.DynamoDBTable
	// bulbs maps a bulb name to its bridge.
	bulbs map[string]*bridge
	// accountProxy counts and throttles the AWSAccount's calls, in front of
	// the model (internal/ddbgap) in front of DynamoDB Local.
	accountProxy *faultproxy.Proxy
	log          *logWatch
	// settled is, per model light, how many commands its bridge had logged
	// when it first settled; set once after creation.
	settledAt map[string]int
	// commit is what the manager was built from.
	commit string
}

// bridge is one simulated bridge and how the soak treats it.
type bridge struct {
	name string
	sim  *huesim.Server
	v2   bool
	// flaps: the bridge drops off the network now and then. cut, for the
	// first v2 bridge, is the TCP proxy that cuts its connections.
	flaps bool
	cut   *tcpproxy.Proxy
	// steady bridges (the first of each kind) hold the model lights and
	// the groups.
	steady bool
}

// modelLight is a HueLight on a bulb of one model, with a spec it can show
// or one beyond it.
type modelLight struct {
	light  *huev1alpha1.HueLight
	bridge *bridge
	model  string
	// stalls: the third-party bulb hiding its range on the v1 API, asked
	// for a colour temperature beyond it, ends Stalled, not Ready, by
	// design (CLIP v2 reports the range: Ready, Limited).
	stalls bool
}

func bridgeName(v2 bool, i int) string {
	if v2 {
		return fmt.Sprintf("bridge-v2-%d", i+1)
	}
	return fmt.Sprintf("bridge-%d", i+1)
}

// setUp starts the bridges, the account's endpoints and the manager,
// creates every object and waits until all are Ready (or, for the one
// stalling bulb, Stalled).
func (s *soak) setUp(ctx context.Context, bin string) error {
	o := s.opts
	c := s.w.Client
	s.bin, s.crashed = bin, make(chan int, 1)
	for _, ns := range []string{secretsNS, lightsNS, tablesNS} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	if err := s.setUpBridges(ctx); err != nil {
		return err
	}
	for i := range o.Tables {
		s.tables = append(s.tables, newTable(i))
	}
	if err := s.setUpAccount(ctx); err != nil {
		return err
	}

	o.logf("starting the manager (%v)", o.managerFlags())
	if err := s.startManager(ctx, 1); err != nil {
		return err
	}
	s.w.OnStop(func() { s.operator().Stop() })
	s.log = newLogWatch(s.operator().LogPath)

	objs := s.objects()
	o.logf("creating %d HueLights (%d of every bulb model) on %d bridge(s), %d HueGroups with their HueScenes, %d DynamoDBTables and %d of an AWSAccount",
		len(s.lights)+len(s.models), len(s.models), len(s.bridges), len(s.groups), len(s.tables), len(s.accountTables))
	if err := bench.Parallel(len(objs), 8, func(i int) error { return c.Create(ctx, objs[i]) }); err != nil {
		return err
	}
	timeout := 3*time.Minute + time.Duration(len(objs))*200*time.Millisecond
	err := bench.WaitUntil(ctx, timeout, time.Second, func() (bool, error) {
		bad, err := s.notReadyKeys(ctx, s.w.Cache)
		return len(bad) == 0, err
	})
	if err != nil {
		bad, _ := s.notReadyKeys(ctx, s.w.Cache)
		return fmt.Errorf("waiting for every object to be Ready after creation (%d not: %s): %w", len(bad), examples(bad), err)
	}
	// A model light counts as settled from here: whatever its bridge logs
	// for it later is a command resent.
	s.settledAt = map[string]int{}
	for _, b := range s.bridges {
		s.settledAt[b.name] = len(b.sim.Commands())
	}
	return nil
}

// objects are every object the soak creates, in creation order.
func (s *soak) objects() []client.Object {
	var out []client.Object
	for _, l := range s.lights {
		out = append(out, l)
	}
	for _, m := range s.models {
		out = append(out, m.light)
	}
	for _, g := range s.groups {
		out = append(out, g)
	}
	for _, sc := range s.scenes {
		out = append(out, sc)
	}
	for _, t := range s.tables {
		out = append(out, t)
	}
	for _, t := range s.accountTables {
		out = append(out, t)
	}
	return out
}

// setUpBridges starts the v1 and v2 bridges with their HueBridges, and lays
// out the lights, model lights and groups on them.
func (s *soak) setUpBridges(ctx context.Context) error {
	o := s.opts
	s.bulbs = map[string]*bridge{}
	total := o.Bridges + o.V2Bridges
	perBridge := (o.Lights + total - 1) / total
	next := 0
	for k := range total {
		v2 := k >= o.Bridges
		i := k
		if v2 {
			i = k - o.Bridges
		}
		count := o.Bridges
		if v2 {
			count = o.V2Bridges
		}
		b := &bridge{name: bridgeName(v2, i), v2: v2, steady: i == 0, flaps: count > 1 && i == count-1}
		opts := huesim.Options{Usernames: []string{soakUser}, Models: map[string]string{}, BridgeID: fmt.Sprintf("001788FFFE%06X", rand.N(1<<24))}
		for j := next; j < min(o.Lights, next+perBridge); j++ {
			opts.Lights = append(opts.Lights, bulbName(j))
			s.lights = append(s.lights, newLight(j, b.name, bulbName(j)))
			s.bulbs[bulbName(j)] = b
		}
		next += perBridge
		if b.steady {
			s.layOutModels(b, &opts)
			s.layOutGroups(b, &opts)
		}
		sim, err := huesim.Start(opts, "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.w.OnStop(sim.Close)
		b.sim = sim
		s.bridges = append(s.bridges, b)
		if err := s.declareBridge(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// layOutModels puts ModelLights bulbs of every model, for each spec kind,
// on b.
func (s *soak) layOutModels(b *bridge, opts *huesim.Options) {
	for _, spec := range bench.ModelSpecs() {
		for i := range s.opts.ModelLights {
			name := strings.ToLower(fmt.Sprintf("%s-%s-%s-%d", b.name, spec.Model, spec.Kind, i+1))
			opts.Lights = append(opts.Lights, name)
			opts.Models[name] = spec.Model
			l := newLight(len(s.models), b.name, name)
			l.Spec.Color = nil
			if spec.Set != nil {
				spec.Set(&l.Spec)
			}
			s.models = append(s.models, &modelLight{light: l, bridge: b, model: spec.Model,
				stalls: spec.Model == bench.StallModel && spec.Kind == "out" && !b.v2})
			s.bulbs[name] = b
		}
	}
}

// layOutGroups puts Groups zones of two bulbs of their own on b, each with a
// HueScene giving its bulbs states of their own; a group starts showing its
// scene.
func (s *soak) layOutGroups(b *bridge, opts *huesim.Options) {
	for i := range s.opts.Groups {
		name := fmt.Sprintf("%s-zone-%d", b.name, i+1)
		bulbs := []string{name + "-a", name + "-b"}
		opts.Lights = append(opts.Lights, bulbs...)
		for _, bulb := range bulbs {
			s.bulbs[bulb] = b
		}
		scene := &huev1alpha1.HueScene{
			ObjectMeta: metav1.ObjectMeta{Namespace: lightsNS, Name: name + "-evening"},
			Spec: huev1alpha1.HueSceneSpec{GroupRef: huev1alpha1.GroupReference{Name: name}, Lights: []huev1alpha1.SceneLight{
				{Name: bulbs[0], On: ptr.To(true), Brightness: ptr.To(int32(60 + i))},
				{Name: bulbs[1], On: ptr.To(true), Brightness: ptr.To(int32(200 - i))},
			}},
		}
		s.scenes = append(s.scenes, scene)
		s.groups = append(s.groups, &huev1alpha1.HueGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: lightsNS, Name: name},
			Spec: huev1alpha1.HueGroupSpec{BridgeRef: &huev1alpha1.BridgeReference{Name: b.name}, Name: name, Type: huev1alpha1.GroupZone,
				Lights: bulbs, Scene: scene.Name, OnDelete: huev1alpha1.DeletionKeep},
		})
	}
}

// declareBridge creates b's credentials Secret and HueBridge; the first v2
// bridge is reached through a TCP proxy that can cut its connections.
func (s *soak) declareBridge(ctx context.Context, b *bridge) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretsNS, Name: b.name + "-credentials"},
		Data:       map[string][]byte{huev1alpha1.CredentialsKey: []byte(soakUser), huev1alpha1.BridgeIDKey: []byte(b.sim.BridgeID())},
	}
	if err := s.w.Client.Create(ctx, secret); err != nil {
		return err
	}
	spec := huev1alpha1.HueBridgeSpec{Address: b.sim.Addr(), CredentialsSecretRef: huev1alpha1.SecretReference{Namespace: secretsNS, Name: secret.Name}}
	if b.v2 {
		addr := b.sim.TLSAddr()
		if b.steady {
			p, err := tcpproxy.New(addr)
			if err != nil {
				return err
			}
			s.w.OnStop(p.Close)
			b.cut, addr = p, p.Addr()
		}
		spec.Address, spec.APIVersion, spec.CABundle, spec.BridgeID = addr, huev1alpha1.APIV2, string(b.sim.CACertPEM()), b.sim.BridgeID()
	}
	return s.w.Client.Create(ctx, &huev1alpha1.HueBridge{ObjectMeta: metav1.ObjectMeta{Name: b.name}, Spec: spec})
}

// setUpAccount starts the STS model and the model of the APIs DynamoDB
// Local lacks behind a counting proxy of their own, and declares the
// AWSAccount, its namespace and its tables.
func (s *soak) setUpAccount(ctx context.Context) error {
	if s.opts.AccountTables == 0 {
		return nil
	}
	sts, err := ststest.Start(ststest.Options{Roles: []ststest.Role{{ARN: accountRole, Trusts: []string{"tethertest"}, AccessKeyID: accountKey}}})
	if err != nil {
		return err
	}
	s.w.OnStop(sts.Close)
	s.managerEnv = map[string]string{"AWS_ENDPOINT_URL_STS": sts.URL}
	// The AWSAccount's endpoint stands for AWS, which tags tables: the
	// owner tag is what proves them Tether's after a restart.
	gap := ddbgap.New(s.w.DynamoDB.URL, ddbgap.Options{Tagging: true})
	gapURL, err := gap.Listen()
	if err != nil {
		return err
	}
	s.w.OnStop(func() { _ = gap.Close() })
	if s.accountProxy, err = faultproxy.New(gapURL, 11); err != nil {
		return err
	}
	if _, err := s.accountProxy.Listen("127.0.0.1:0"); err != nil {
		return err
	}
	s.w.OnStop(func() { _ = s.accountProxy.Close() })
	c := s.w.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: accountNS,
		Annotations: map[string]string{awsv1alpha1.AnnotationNamespaceAccount: accountName}}}); err != nil {
		return err
	}
	if err := c.Create(ctx, &awsv1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: accountName},
		Spec: awsv1alpha1.AWSAccountSpec{AssumeRole: awsv1alpha1.AssumeRole{RoleARN: accountRole}, Endpoint: s.accountProxy.URL(),
			NamespaceSelector: awsv1alpha1.NamespaceSelector{Names: []string{accountNS}},
			// The global sample's resource policy names a reader in this
			// account, which the account must trust its namespaces with.
			Tenancy: awsv1alpha1.Tenancy{PolicyPrincipalAccounts: []string{samplePolicyAccount}}}}); err != nil {
		return err
	}
	samples, err := sampleTables()
	if err != nil {
		return err
	}
	for i := range s.opts.AccountTables {
		t := samples[i%len(samples)].DeepCopy()
		t.ObjectMeta = metav1.ObjectMeta{Namespace: accountNS, Name: fmt.Sprintf("%s-%d", t.Name, i+1)}
		t.Spec.TableName = t.Name
		t.Spec.DeletionPolicy = awsv1alpha1.DeletionPolicyRetain
		s.accountTables = append(s.accountTables, t)
	}
	return nil
}

// sampleTables are the DynamoDBTables of the samples (config/samples): a
// table with an index, a stream, TTL and tags; a global table with
// on-demand and warm throughput, contributor insights, point-in-time
// recovery and a resource policy; an autoscaled one. A table restored from
// another is left out: the soak has no source for it.
func sampleTables() ([]*awsv1alpha1.DynamoDBTable, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	var out []*awsv1alpha1.DynamoDBTable
	for _, file := range []string{"aws_v1alpha1_dynamodbtable.yaml", "aws_v1alpha1_dynamodbtable_global.yaml"} {
		raw, err := os.ReadFile(filepath.Join(root, "config", "samples", file))
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			t := &awsv1alpha1.DynamoDBTable{}
			if err := decoder.Decode(t); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if t.Spec.RestoreFrom == nil {
				out = append(out, t)
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no DynamoDBTable in the samples")
	}
	return out, nil
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
		gsi := awsv1alpha1.GlobalSecondaryIndex{IndexName: "by-gk", KeySchema: awsv1alpha1.IndexKeySchema{{AttributeName: "gk", KeyType: "HASH"}}}
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

// stalledNow is the stalling model light's settled state: both conditions
// Stalled for its generation.
func stalledNow(s *commonv1alpha1.ManagedStatus, generation int64) bool {
	c := meta.FindStatusCondition(s.Conditions, commonv1alpha1.Ready)
	return c != nil && c.Reason == providers.ReasonStalled && c.ObservedGeneration == generation
}

// notReadyKeys names the objects whose Ready condition is not True for
// their current generation (Stalled for the stalling model light), reading
// from r (the cache, or the API server).
func (s *soak) notReadyKeys(ctx context.Context, r client.Reader) ([]string, error) {
	var bad []string
	stalls := map[string]bool{}
	for _, m := range s.models {
		if m.stalls {
			stalls[m.light.Name] = true
		}
	}
	seen := 0
	var lights huev1alpha1.HueLightList
	if err := r.List(ctx, &lights, client.InNamespace(lightsNS)); err != nil {
		return nil, err
	}
	for i := range lights.Items {
		l := &lights.Items[i]
		seen++
		ok := readyNow(&l.Status.ManagedStatus, l.Generation)
		if stalls[l.Name] {
			ok = stalledNow(&l.Status.ManagedStatus, l.Generation)
		}
		if !ok {
			bad = append(bad, "HueLight "+l.Name)
		}
	}
	var groups huev1alpha1.HueGroupList
	if err := r.List(ctx, &groups, client.InNamespace(lightsNS)); err != nil {
		return nil, err
	}
	for i := range groups.Items {
		g := &groups.Items[i]
		seen++
		if !readyNow(&g.Status.ManagedStatus, g.Generation) {
			bad = append(bad, "HueGroup "+g.Name)
		}
	}
	var scenes huev1alpha1.HueSceneList
	if err := r.List(ctx, &scenes, client.InNamespace(lightsNS)); err != nil {
		return nil, err
	}
	for i := range scenes.Items {
		sc := &scenes.Items[i]
		seen++
		if !readyNow(&sc.Status.ManagedStatus, sc.Generation) {
			bad = append(bad, "HueScene "+sc.Name)
		}
	}
	for _, ns := range []string{tablesNS, accountNS} {
		var tables awsv1alpha1.DynamoDBTableList
		if err := r.List(ctx, &tables, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		for i := range tables.Items {
			t := &tables.Items[i]
			seen++
			if !readyNow(&t.Status.ManagedStatus, t.Generation) {
				bad = append(bad, "DynamoDBTable "+ns+"/"+t.Name)
			}
		}
	}
	if missing := len(s.objects()) - seen; missing > 0 {
		bad = append(bad, fmt.Sprintf("%d object(s) not listed yet", missing))
	}
	return bad, nil
}
