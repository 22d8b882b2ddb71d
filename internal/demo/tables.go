package demo

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	commonv1alpha1 "github.com/tether-dev/tether/api/common/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// tablesEvery is how often the page asks DynamoDB about the declared
// tables: DynamoDB has no watch, and the audience should see an index go
// from CREATING to ACTIVE.
const tablesEvery = 2 * time.Second

// tableView is one DynamoDBTable for the page: the object's conditions and
// pending plan, and the table as DynamoDB itself reports it (not as
// Tether's status says), so the audience sees the real thing change.
type tableView struct {
	Namespace   string   `json:"namespace"`
	Name        string   `json:"name"`
	TableName   string   `json:"tableName"`
	Ready       condView `json:"ready"`
	Synced      condView `json:"synced"`
	PendingPlan []string `json:"pendingPlan"`
	// Plan is the plan as a checklist: each step of it seen pending, ticked
	// once DynamoDB took it.
	Plan    []planStep  `json:"plan"`
	AWS     tableInAWS  `json:"aws"`
	Indexes []indexView `json:"indexes"`
}

// tableInAWS is DescribeTable's answer; Status is "absent" for a table
// DynamoDB does not have and "unknown" when it could not be asked.
type tableInAWS struct {
	Status    string `json:"status"`
	Billing   string `json:"billing,omitempty"`
	ItemCount *int64 `json:"itemCount,omitempty"`
}

type indexView struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

type described struct {
	aws     tableInAWS
	indexes []indexView
}

// tableWatch polls DynamoDB for the tables the cluster declares, once for
// every open page, and wakes the pages when an answer changes.
type tableWatch struct {
	cluster *clusterView
	changed *notifier

	mu   sync.Mutex
	seen map[string]described
}

func newTableWatch(c *clusterView, changed *notifier) *tableWatch {
	return &tableWatch{cluster: c, changed: changed, seen: map[string]described{}}
}

func (w *tableWatch) run(ctx context.Context) {
	// Its answers for absent tables would otherwise put the SDK's checksum
	// warning on the talk's terminal (see SDKLogger).
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(access.SDKLogger(ctrl.Log.WithName("demo-page"))))
	if err != nil {
		ctrl.Log.WithName("demo-page").Error(err, "no DynamoDB client: the page shows no table from AWS")
		return
	}
	db := dynamodb.NewFromConfig(cfg)
	tick := time.NewTicker(tablesEvery)
	defer tick.Stop()
	for {
		w.poll(ctx, db)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (w *tableWatch) poll(ctx context.Context, db *dynamodb.Client) {
	var declared awsv1alpha1.DynamoDBTableList
	if err := w.cluster.cache.List(ctx, &declared); err != nil {
		return
	}
	now := map[string]described{}
	for _, t := range declared.Items {
		name := t.ResolvedTableName()
		cctx, cancel := context.WithTimeout(ctx, tablesEvery)
		now[name] = describe(cctx, db, name)
		cancel()
	}
	w.mu.Lock()
	same := reflect.DeepEqual(now, w.seen)
	w.seen = now
	w.mu.Unlock()
	if !same {
		w.changed.notify()
	}
}

func (w *tableWatch) view(t *awsv1alpha1.DynamoDBTable) tableView {
	w.mu.Lock()
	d, ok := w.seen[t.ResolvedTableName()]
	w.mu.Unlock()
	if !ok {
		d = described{aws: tableInAWS{Status: "unknown"}}
	}
	v := tableView{Namespace: t.Namespace, Name: t.Name, TableName: t.ResolvedTableName(),
		Ready: condition(t.Managed(), commonv1alpha1.Ready), Synced: condition(t.Managed(), commonv1alpha1.Synced),
		PendingPlan: append([]string{}, t.Status.PendingPlan...), Plan: w.cluster.plans.checklist(client.ObjectKeyFromObject(t)),
		AWS: d.aws, Indexes: d.indexes}
	if v.Indexes == nil {
		v.Indexes = []indexView{}
	}
	return v
}

func describe(ctx context.Context, db *dynamodb.Client, name string) described {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return described{aws: tableInAWS{Status: "absent"}}
	case err != nil:
		return described{aws: tableInAWS{Status: "unknown"}}
	}
	d := described{aws: tableInAWS{Status: string(out.Table.TableStatus), ItemCount: out.Table.ItemCount,
		Billing: string(types.BillingModeProvisioned)}}
	if out.Table.BillingModeSummary != nil {
		d.aws.Billing = string(out.Table.BillingModeSummary.BillingMode)
	}
	for _, ix := range out.Table.GlobalSecondaryIndexes {
		d.indexes = append(d.indexes, indexView{Name: aws.ToString(ix.IndexName), Status: string(ix.IndexStatus)})
	}
	return d
}
