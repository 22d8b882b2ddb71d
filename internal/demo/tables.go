package demo

import (
	"context"
	"errors"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/huesim"
	tetherdynamodb "github.com/tether-dev/tether/providers/dynamodb"
)

// tablesPanel lists, for the page's side panel, the tables the cluster
// declares as DynamoDB itself reports them (not as Tether's status says), so
// the audience sees the real thing change. A declared table DynamoDB does not
// have shows as "absent".
func tablesPanel(c client.Reader) func(context.Context) ([]huesim.TableInfo, error) {
	var db *dynamodb.Client
	return func(ctx context.Context) ([]huesim.TableInfo, error) {
		if db == nil {
			// Its answers for absent tables would otherwise put the SDK's
			// checksum warning on the talk's terminal (see SDKLogger).
			cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(tetherdynamodb.SDKLogger(ctrl.Log.WithName("demo-panel"))))
			if err != nil {
				return nil, err
			}
			db = dynamodb.NewFromConfig(cfg)
		}
		var declared awsv1alpha1.DynamoDBTableList
		if err := c.List(ctx, &declared); err != nil {
			return nil, err
		}
		infos := make([]huesim.TableInfo, 0, len(declared.Items))
		for _, t := range declared.Items {
			infos = append(infos, describeForPanel(ctx, db, tableNameOf(&t)))
		}
		sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
		return infos, nil
	}
}

func tableNameOf(t *awsv1alpha1.DynamoDBTable) string {
	if t.Spec.TableName != "" {
		return t.Spec.TableName
	}
	return t.Name
}

func describeForPanel(ctx context.Context, db *dynamodb.Client, name string) huesim.TableInfo {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return huesim.TableInfo{Name: name, Status: "absent"}
	case err != nil:
		return huesim.TableInfo{Name: name, Status: "unknown"}
	}
	info := huesim.TableInfo{Name: name, Status: string(out.Table.TableStatus), ItemCount: out.Table.ItemCount}
	if out.Table.BillingModeSummary != nil {
		info.BillingMode = string(out.Table.BillingModeSummary.BillingMode)
	} else {
		info.BillingMode = string(types.BillingModeProvisioned)
	}
	return info
}
