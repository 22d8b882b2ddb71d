// Command manager runs Tether's controllers.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/tether-dev/tether/api"
	"github.com/tether-dev/tether/cmd/manager/serving"
	"github.com/tether-dev/tether/controllers"
	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/reconciler"
)

func main() {
	var (
		probeAddr        string
		pprofAddr        string
		leaderElect      bool
		leaderElectionNS string
	)
	cfg := controllers.DefaultConfig()
	metrics := serving.DefaultMetrics()
	metrics.BindFlags(flag.CommandLine)
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the health probes bind to.")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0",
		"Address Go's profiles (/debug/pprof/) are served at, over plain HTTP and without authentication, for kubectl port-forward; \"0\" turns them off. Bind to 127.0.0.1.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Elect a leader so that only one manager reconciles at a time.")
	flag.StringVar(&leaderElectionNS, "leader-election-namespace", "", "Namespace of the leader election lease (default: the pod's namespace).")
	flag.DurationVar(&cfg.DynamoDBTablePollInterval, "dynamodbtable-poll-interval", cfg.DynamoDBTablePollInterval,
		"How often each DynamoDBTable is compared with AWS when nothing changes (jittered).")
	flag.StringVar(&cfg.AWSRegion, "aws-region", cfg.AWSRegion,
		"Region of DynamoDBTables whose spec and AWSAccount name none (default: the AWS default chain's, e.g. AWS_REGION).")
	flag.StringVar(&cfg.AWSAccountID, "aws-account-id", cfg.AWSAccountID,
		"The operator's own AWS account id, so that its tables and those of AWSAccounts in the same account share a limiter and conflict checks.")
	flag.BoolVar(&cfg.AWSRequireAccount, "aws-require-account", cfg.AWSRequireAccount,
		"Refuse DynamoDBTables outside the manager's namespace that name no AWSAccount (spec.accountRef or their namespace's aws.tether.dev/account): "+
			"the operator's own identity, trusted with every table of its account, is then used only for its own namespace. "+
			"false lets every namespace use it (one team per cluster).")
	defaultTags := map[string]string{}
	flag.Func("dynamodb-default-tag", "A tag every DynamoDBTable gets under its spec's tags, as key=value, "+
		"the value's placeholders {{.Namespace}}, {{.Name}}, {{.Account}}, {{.AccountID}}, {{.Region}} filled in per table, e.g. owner={{.Namespace}}/{{.Name}}; repeat for more.",
		func(v string) error {
			k, tmpl, ok := strings.Cut(v, "=")
			if !ok {
				return fmt.Errorf("want key=value, got %q", v)
			}
			defaultTags[k] = tmpl
			return nil
		})
	flag.Float64Var(&cfg.DynamoDBRequestsPerSecond, "dynamodb-requests-per-second", cfg.DynamoDBRequestsPerSecond,
		"DynamoDB calls per second per AWS account and region, shared by every table there.")
	flag.DurationVar(&cfg.DynamoDBSecondaryReadInterval, "dynamodb-secondary-read-interval", cfg.DynamoDBSecondaryReadInterval,
		"How often TTL, point-in-time recovery, tags, contributor insights, the resource policy and autoscaling are read back, for tables that use them.")
	flag.StringVar(&cfg.DynamoDBChangeEventsQueue, "dynamodb-change-events-queue", cfg.DynamoDBChangeEventsQueue,
		"SQS queue (URL or ARN) an EventBridge rule sends the DynamoDB changes of the operator's own account to: its tables' changes are then found within seconds, "+
			"and each is read every --dynamodb-change-events-safety-interval while the queue is read without trouble (AWSAccounts name theirs in spec.changeEvents).")
	flag.DurationVar(&cfg.DynamoDBChangeEventsSafetyInterval, "dynamodb-change-events-safety-interval", cfg.DynamoDBChangeEventsSafetyInterval,
		"How often each table of the operator's own identity is read all the same while its change feed is healthy, for events AWS never delivers.")
	flag.DurationVar(&cfg.HueBridgePollInterval, "hue-poll-interval", cfg.HueBridgePollInterval,
		"How often each Hue bridge's lights are read (one request per bridge for all its lights).")
	flag.Float64Var(&cfg.HueCommandsPerSecond, "hue-commands-per-second", cfg.HueCommandsPerSecond,
		"Light commands per second sent to each Hue bridge, shared by all its HueLights.")
	flag.DurationVar(&cfg.HueSafetyReadInterval, "hue-safety-read-interval", cfg.HueSafetyReadInterval,
		"How often a CLIP v2 bridge whose event stream is up is read in full anyway, in case an event was lost.")
	flag.DurationVar(&cfg.HueEventStreamSilence, "hue-event-stream-silence", cfg.HueEventStreamSilence,
		"How long a CLIP v2 event stream may send nothing before it is reconnected and the bridge read in full (bridges send no keep-alive).")
	kubeAPI := kubeAPILimits{QPS: defaultKubeAPIQPS, Burst: defaultKubeAPIBurst}
	flag.Float64Var(&kubeAPI.QPS, "kube-api-qps", kubeAPI.QPS,
		"Requests per second to the Kubernetes API server (status, finalizer and annotation patches, events); the server's priority and fairness protects it beyond.")
	flag.IntVar(&kubeAPI.Burst, "kube-api-burst", kubeAPI.Burst, "Burst of requests to the Kubernetes API server above --kube-api-qps.")
	credentialsNamespaces := flag.String("credentials-namespaces", "",
		"Comma-separated namespaces whose Secrets HueBridges may name for their credentials (default: the manager's own namespace; outside a cluster "+controllers.InstallNamespace+").")
	showVersion := flag.Bool("version", false, "Print the version and exit.")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	if *showVersion {
		fmt.Println(versionLine())
		return
	}
	if _, err := dynamodb.ParseDefaultTags(defaultTags); err != nil {
		fmt.Fprintln(os.Stderr, "--dynamodb-default-tag:", err)
		os.Exit(2)
	}
	cfg.DynamoDBDefaultTags = defaultTags
	if cfg.DynamoDBChangeEventsSafetyInterval < time.Minute {
		fmt.Fprintln(os.Stderr, "--dynamodb-change-events-safety-interval: at least 1m")
		os.Exit(2)
	}

	ctrl.SetLogger(newLogger(&zapOpts))
	log := ctrl.Log.WithName("setup")
	gcPercent := setGCPercent()
	memoryLimit := setMemoryLimit()
	cfg.CredentialsNamespaces = resolveCredentialsNamespaces(*credentialsNamespaces, cfg.CredentialsNamespaces)
	cfg.OperatorNamespace = ownNamespace(cfg.OperatorNamespace)

	scheme, err := api.NewManagerScheme()
	if err != nil {
		log.Error(err, "registering types")
		os.Exit(1)
	}

	// The kubeconfig comes from the usual places: --kubeconfig, $KUBECONFIG,
	// the in-cluster service account, ~/.kube/config.
	mgr, err := ctrl.NewManager(kubeAPI.apply(ctrl.GetConfigOrDie()), ctrl.Options{
		Scheme:                  scheme,
		Cache:                   cacheOptions(),
		Metrics:                 metrics.ServerOptions(),
		HealthProbeBindAddress:  probeAddr,
		PprofBindAddress:        pprofAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        "manager.tether.dev",
		LeaderElectionNamespace: leaderElectionNS,
		// Step down fast on SIGTERM so a rolling update hands over quickly.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		log.Error(err, "creating the manager")
		os.Exit(1)
	}
	if err := controllers.SetupAll(mgr, cfg); err != nil {
		log.Error(err, "setting up controllers")
		os.Exit(1)
	}
	if err := reconciler.RegisterObjectMetrics(mgr); err != nil {
		log.Error(err, "registering the object metrics")
		os.Exit(1)
	}
	if err := serving.AddHealthChecks(mgr); err != nil {
		log.Error(err, "adding the health checks")
		os.Exit(1)
	}

	log.Info("starting the manager", "version", version, "metricsAddress", metrics.BindAddress, "metricsSecure", metrics.Secure, "kubeAPIQPS", kubeAPI.QPS, "kubeAPIBurst", kubeAPI.Burst,
		"probeAddress", probeAddr, "pprofAddress", pprofAddr, "leaderElection", leaderElect, "credentialsNamespaces", cfg.CredentialsNamespaces,
		"operatorNamespace", cfg.OperatorNamespace, "awsRequireAccount", cfg.AWSRequireAccount, "gcPercent", gcPercent, "memoryLimit", memoryLimit)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "the manager stopped with an error")
		os.Exit(1)
	}
}

// inClusterNamespace is where a pod's ServiceAccount token says the pod runs.
const inClusterNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// resolveCredentialsNamespaces is the flag's list when given, otherwise the
// manager's own namespace, otherwise (outside a cluster) the defaults.
func resolveCredentialsNamespaces(flagValue string, defaults []string) []string {
	var out []string
	for _, ns := range strings.Split(flagValue, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	if len(out) > 0 {
		return out
	}
	if own := ownNamespace(""); own != "" {
		return []string{own}
	}
	return defaults
}

// ownNamespace is the namespace the manager's pod runs in, def outside a
// cluster.
func ownNamespace(def string) string {
	if raw, err := os.ReadFile(inClusterNamespace); err == nil && strings.TrimSpace(string(raw)) != "" {
		return strings.TrimSpace(string(raw))
	}
	return def
}
