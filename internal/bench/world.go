package bench

import (
	"context"

	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tether-dev/tether/internal/ddbtest"
	"github.com/tether-dev/tether/internal/faultproxy"
	"github.com/tether-dev/tether/internal/huesim"
)

// World is the part of a run's world that other harnesses (the soak in
// internal/soak) reuse: the API server with an admin kubeconfig for the
// operator and an informer cache for the harness, and DynamoDB Local behind
// the counting fault proxy. The bridges and objects are theirs to make.
type World struct {
	Config *rest.Config
	Client client.Client
	// Cache holds HueLights and DynamoDBTables.
	Cache      cache.Cache
	Kubeconfig string
	DynamoDB   *ddbtest.Server
	// Proxy is what the operator talks to; it counts calls per operation.
	Proxy *faultproxy.Proxy
	// Raw talks straight to DynamoDB Local: it acts behind Tether's back.
	Raw *awsdynamodb.Client

	e *env
}

// StartWorld starts the API server and DynamoDB Local, writing the
// kubeconfig into dir. On error it stops what it started.
func StartWorld(ctx context.Context, dir string) (*World, error) {
	e := &env{bridge: map[string]*huesim.Server{}}
	kubeconfig, err := e.startControlPlane(dir)
	if err == nil {
		err = e.startDynamoDB(ctx)
	}
	if err != nil {
		e.stop()
		return nil, err
	}
	return &World{Config: e.cfg, Client: e.c, Cache: e.cache, Kubeconfig: kubeconfig,
		DynamoDB: e.ddb, Proxy: e.proxy, Raw: e.raw, e: e}, nil
}

// OnStop registers f to run when the world stops, before what was
// registered earlier.
func (w *World) OnStop(f func()) { w.e.onStop(f) }

// Stop stops everything, newest first.
func (w *World) Stop() { w.e.stop() }
