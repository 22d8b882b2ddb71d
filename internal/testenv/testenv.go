// Package testenv starts a real kube-apiserver and etcd (envtest) with every
// Tether CRD installed, for integration tests.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tether-dev/tether/internal/repo"
)

// Env is a running API server and a client for it.
type Env struct {
	Config *rest.Config
	Client client.Client
	Scheme *runtime.Scheme
	env    *envtest.Environment
}

// Start runs the API server with Tether's CRDs (config/crd/bases) and the
// test-only kinds, registering addToScheme functions for the client.
func Start(addToScheme ...func(*runtime.Scheme) error) (*Env, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	assets, err := assetsDir(root)
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, addToScheme...) {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths: []string{
			filepath.Join(root, "config", "crd", "bases"),
			filepath.Join(root, "internal", "testkind", "crd"),
		},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	cfg, err := env.Start()
	if err != nil {
		// Start may fail after the processes are up (a CRD the API server
		// refuses): stop them, or they outlive the test binary.
		_ = env.Stop()
		return nil, fmt.Errorf("starting the test API server from %s: %w", assets, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, env: env}, nil
}

// AddUser makes a user the API server authenticates (by client certificate)
// in the given groups, with no RBAC of its own, and returns its config.
func (e *Env) AddUser(name string, groups ...string) (*rest.Config, error) {
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, err
	}
	return u.Config(), nil
}

// Stop shuts the API server and etcd down.
func (e *Env) Stop() error { return e.env.Stop() }

// NewManager makes a controller manager for tests: no metrics or probe
// listeners, and controller names may repeat across managers in one process.
// tune changes further options (which objects its cache sees).
func (e *Env) NewManager(tune ...func(*ctrl.Options)) (ctrl.Manager, error) {
	opts := ctrl.Options{
		Scheme:                 e.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
	for _, t := range tune {
		t(&opts)
	}
	return ctrl.NewManager(e.Config, opts)
}

// RepoRoot is the repository's root (see repo.Root).
func RepoRoot() (string, error) { return repo.Root() }

// AssetsDir is where the envtest binaries (and kubectl) are; see assetsDir.
func AssetsDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return assetsDir(root)
}

func assetsDir(root string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "bin", "k8s", "*"))
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "kube-apiserver")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("no kube-apiserver for envtest: run `make envtest-assets` (or `make test`), which builds it into bin/k8s")
}
