package dynamodb

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
	"github.com/tether-dev/tether/providers/dynamodb/plan"
)

// Create makes the table with everything CreateTable accepts (or, with
// spec.restoreFrom, by a restore; with spec.importFrom, by an import from
// S3); TTL, point-in-time recovery and the rest
// have their own APIs and follow as update steps.
func (c *tableConn) Create(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) error {
	p, ep := c.p, c.ep
	if pol, err := plan.SpecPolicy(obj.Spec.ResourcePolicy); err == nil {
		if err := checkPolicyPrincipals(ep, obj, pol); err != nil {
			return err
		}
	}
	if err := strongRegionsRefused(obj, ep.Region); err != nil {
		return err
	}
	name := obj.ResolvedTableName()
	var (
		desc *types.TableDescription
		err  error
	)
	switch {
	case obj.Spec.ImportFrom != nil:
		err = p.createByImport(ctx, ep, obj)
	case obj.Spec.RestoreFrom != nil:
		desc, err = p.createByRestore(ctx, ep, obj)
	case obj.Spec.GlobalTableSource != nil:
		desc, err = p.createByJoin(ctx, ep, obj) // multiaccount.go
	default:
		in := plan.CreateTableInput(name, &obj.Spec, p.wantedTags(ep, obj))
		var out *dynamodb.CreateTableOutput
		if out, err = ep.API.CreateTable(ctx, in); err == nil {
			desc = out.TableDescription
		}
		if refused := multiKeysRefused(multiKeyIndexesOf(in, nil), err); refused != nil {
			return refused
		}
		if refused := vectorCreateRefused(in, err); refused != nil {
			return refused
		}
	}
	var exists *tableExistsError
	if access.ErrorCode(err) == "ResourceInUseException" || errors.As(err, &exists) {
		// Someone else made it since Observe: it is not this object's
		// table, which the next Observe says (NotOwned) unless the user
		// asks to adopt it.
		p.memoryOf(obj).createRefused = true
		return providers.Pendingf(time.Second, reasonTableExists, "table %s appeared before Tether could create it; checking who owns it", name)
	}
	if access.IsTyped(err) {
		return err
	}
	if err != nil {
		return access.Classify(err)
	}
	mem := p.memoryOf(obj)
	mem.createRefused = false
	if obj.Spec.ImportFrom != nil {
		// No table to describe yet: the import's record is what proves it
		// obj's once it appears (importedFor).
		recordTarget(obj, ep)
		return nil
	}
	if obj.Spec.ResourcePolicy != nil && obj.Spec.RestoreFrom == nil {
		mem.policyChange = &policyChange{anyDoc: true, at: time.Now()}
	}
	p.flights.accepted(ep.TableKey(name), p.tableFlight(callCreateTable, time.Now()))
	p.owners.mark(ep.TableKey(name), ownerRecord{UID: string(obj.UID), TableID: TableIdentity(desc)})
	obj.Status.TableID = TableIdentity(desc)
	recordStatus(obj, desc)
	recordTarget(obj, ep)
	return nil
}
