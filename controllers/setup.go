package controllers

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/tether-dev/tether/providers/dynamodb"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/changefeed"
	"github.com/tether-dev/tether/providers/hue"
	"github.com/tether-dev/tether/providers/hue/bridge"
	"github.com/tether-dev/tether/reconciler"
)

// Config is what the manager binary's flags set for the kinds.
type Config struct {
	// DynamoDBTablePollInterval is how often each table is described when
	// nothing else happens (jittered; the tether.dev/poll-interval annotation
	// overrides it per object).
	DynamoDBTablePollInterval time.Duration
	// AWSRegion is the region of tables whose spec and AWSAccount name none;
	// empty uses the AWS default chain's (AWS_REGION, the shared config
	// profile).
	AWSRegion string
	// AWSAccountID is the operator's own AWS account, when known: tables of
	// its own identity and of AWSAccounts in that account are then known to
	// share it (limiter, table names).
	AWSAccountID string
	// AWSRequireAccount refuses tables outside OperatorNamespace that name
	// no AWSAccount (by spec.accountRef or their namespace's default): the
	// operator's own identity, trusted with everything, is then used only
	// for the operator's own namespace.
	AWSRequireAccount bool
	// OperatorNamespace is the namespace the manager runs in.
	OperatorNamespace string
	// DynamoDBDefaultTags are tags every table gets under its spec's, their
	// values with placeholders such as {{.Namespace}} (see
	// dynamodb.ParseDefaultTags).
	DynamoDBDefaultTags map[string]string
	// DynamoDBRequestsPerSecond bounds the calls to one AWS account in one
	// region, shared by every table there.
	DynamoDBRequestsPerSecond float64
	// DynamoDBSecondaryReadInterval is how often TTL, point-in-time
	// recovery, tags, contributor insights, the resource policy and
	// autoscaling are read back (only for tables whose spec uses them).
	DynamoDBSecondaryReadInterval time.Duration
	// DynamoDBChangeEventsQueue is the SQS queue (URL or ARN) of the
	// operator's own identity's change feed, "" for none; its region
	// defaults to AWSRegion. AWSAccounts name their own
	// (spec.changeEvents).
	DynamoDBChangeEventsQueue string
	// DynamoDBChangeEventsSafetyInterval is how often each table of the
	// operator's own identity is read while its feed is healthy.
	DynamoDBChangeEventsSafetyInterval time.Duration
	// HueBridgePollInterval is how often each bridge's lights are read, once
	// per bridge for all its lights.
	HueBridgePollInterval time.Duration
	// HueCommandsPerSecond is each bridge's budget for light commands.
	HueCommandsPerSecond float64
	// HueSafetyReadInterval is how often a CLIP v2 bridge whose event
	// stream is up is read in full all the same, in case an event was
	// lost; HueEventStreamSilence how long its stream may say nothing
	// before it is reconnected (the bridge sends no keep-alive).
	HueSafetyReadInterval time.Duration
	HueEventStreamSilence time.Duration
	// CredentialsNamespaces are the only namespaces whose Secrets a
	// HueBridge may name (the manager's RBAC grants Secret access there
	// alone); by default the manager's own.
	CredentialsNamespaces []string
}

// InstallNamespace is the namespace the install manifest and the Helm
// chart's documented install use: the credentials namespace of a manager
// that cannot tell its own (running outside a cluster).
const InstallNamespace = "tether-system"

// DefaultConfig holds the defaults documented in docs/install.md.
func DefaultConfig() Config {
	return Config{
		DynamoDBTablePollInterval:          dynamodb.DefaultPollInterval,
		DynamoDBRequestsPerSecond:          access.DefaultRequestsPerSecond,
		DynamoDBSecondaryReadInterval:      dynamodb.DefaultSecondaryReadInterval,
		DynamoDBChangeEventsSafetyInterval: changefeed.DefaultSafetyInterval,
		HueBridgePollInterval:              hue.DefaultPollInterval,
		HueCommandsPerSecond:               hue.DefaultCommandsPerSecond,
		HueSafetyReadInterval:              bridge.DefaultSafetyRead,
		HueEventStreamSilence:              bridge.DefaultSilence,
		CredentialsNamespaces:              []string{InstallNamespace},
		AWSRequireAccount:                  true,
		OperatorNamespace:                  InstallNamespace,
	}
}

// SetupAll registers every kind's controller with the manager, their
// events sent one at a time (events.go).
func SetupAll(mgr ctrl.Manager, cfg Config) error {
	mgr, err := reconciler.WithEventsOneAtATime(mgr)
	if err != nil {
		return err
	}
	for _, setup := range kindSetups {
		if err := setup(mgr, cfg); err != nil {
			return err
		}
	}
	return nil
}

// kindSetups lists each kind's registration; each kind's controller file adds
// itself in an init function.
var kindSetups []func(ctrl.Manager, Config) error
