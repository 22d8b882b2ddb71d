package dynamodb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// The keys of an outputs ConfigMap, named as environment variables so that
// a Deployment can take them with envFrom (and the AWS SDKs read
// AWS_REGION and AWS_ENDPOINT_URL_DYNAMODB themselves).
const (
	OutputTableName = "TABLE_NAME"
	OutputTableArn  = "TABLE_ARN"
	OutputStreamArn = "TABLE_STREAM_ARN"
	OutputRegion    = "AWS_REGION"
	OutputAccountID = "AWS_ACCOUNT_ID"
	OutputEndpoint  = "AWS_ENDPOINT_URL_DYNAMODB"
)

// outputsData is what the outputs ConfigMap holds for obj's table now.
func outputsData(obj *awsv1alpha1.DynamoDBTable, ep *access.Endpoint) map[string]string {
	s := obj.Status
	data := map[string]string{OutputTableName: s.TableName, OutputTableArn: s.TableArn, OutputRegion: ep.Region}
	for k, v := range map[string]string{OutputStreamArn: s.LatestStreamArn, OutputAccountID: s.AccountID, OutputEndpoint: ep.URL} {
		if v != "" {
			data[k] = v
		}
	}
	return data
}

func checksum(data map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		fmt.Fprintf(h, "%s=%s\n", k, data[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// writeOutputs keeps spec.writeOutputsTo's ConfigMap current. Tether only
// ever writes to a ConfigMap it created: it creates it (an existing one of
// that name is someone else's, and is left alone) with the object's
// owner-uid label, records its UID in the status, and later patches it on
// two preconditions the API server checks: that UID, and that label. The
// status is anyone's to write who may patch the status subresource, so the
// UID alone (another ConfigMap's, written there) would prove nothing; the
// label is on no ConfigMap Tether did not create but for one whose writer
// could write it anyway. It needs no read of ConfigMaps at all, and writes
// only when the data changed. The owner reference lets the garbage
// collector remove it with the object.
func (p *Provider) writeOutputs(ctx context.Context, ep *access.Endpoint, obj *awsv1alpha1.DynamoDBTable) error {
	ref := obj.Spec.WriteOutputsTo
	if ref == nil || p.opts.Writer == nil || obj.Status.TableArn == "" {
		return nil
	}
	data := outputsData(obj, ep)
	sum := checksum(data)
	st := obj.Status.Outputs
	if st != nil && st.Name == ref.Name && st.Checksum == sum {
		return nil
	}
	if st == nil || st.Name != ref.Name {
		return p.createOutputs(ctx, obj, data, sum)
	}
	err := p.patchOutputs(ctx, obj, st.UID, data)
	switch {
	case apierrors.IsNotFound(err):
		// Deleted by someone: make it again.
		return p.createOutputs(ctx, obj, data, sum)
	case apierrors.IsConflict(err) || apierrors.IsInvalid(err):
		return fmt.Errorf("ConfigMap %s/%s (spec.writeOutputsTo) was replaced by one Tether did not create: it is left alone; "+
			"delete it to have Tether write its own", obj.Namespace, ref.Name)
	case err != nil:
		return fmt.Errorf("writing ConfigMap %s/%s (spec.writeOutputsTo): %w", obj.Namespace, ref.Name, err)
	}
	st.Checksum = sum
	return nil
}

func (p *Provider) createOutputs(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, data map[string]string, sum string) error {
	ref := obj.Spec.WriteOutputsTo
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: ref.Name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "tether", TagOwnerUID: string(obj.UID)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: awsv1alpha1.GroupVersion.String(), Kind: "DynamoDBTable",
				Name: obj.Name, UID: obj.UID, Controller: ptrTrue()}}},
		Data: data,
	}
	err := p.opts.Writer.Create(ctx, cm)
	if apierrors.IsAlreadyExists(err) {
		err = p.claimOutputs(ctx, obj, cm)
	}
	if apierrors.IsInvalid(err) || apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		obj.Status.Outputs = nil
		return fmt.Errorf("ConfigMap %s/%s (spec.writeOutputsTo) already exists and was not created by Tether for this table: "+
			"Tether never writes into an object it did not create; delete it or choose another name", obj.Namespace, ref.Name)
	}
	if err != nil {
		return fmt.Errorf("creating ConfigMap %s/%s (spec.writeOutputsTo): %w", obj.Namespace, ref.Name, err)
	}
	obj.Status.Outputs = &awsv1alpha1.OutputsStatus{Name: ref.Name, UID: string(cm.UID), Checksum: sum}
	return nil
}

// claimOutputs writes the outputs into an existing ConfigMap only if it
// carries this object's owner-uid label: Tether created it, and stopped
// before it could record its UID in the status. The JSON patch's test
// operation makes the API server check the label, so Tether still never
// reads ConfigMaps, and one it did not create is left alone (the test
// fails: Invalid). The answer gives the ConfigMap's UID.
func (p *Provider) claimOutputs(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, cm *corev1.ConfigMap) error {
	return p.patchOwnOutputs(ctx, obj, cm, "", cm.Data)
}

// patchOutputs replaces the data of the ConfigMap Tether created with UID
// uid.
func (p *Provider) patchOutputs(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, uid string, data map[string]string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: obj.Spec.WriteOutputsTo.Name}}
	return p.patchOwnOutputs(ctx, obj, cm, uid, data)
}

// patchOwnOutputs replaces cm's data with one JSON patch whose test
// operations the API server checks first: the object's owner-uid label
// Tether put on the ConfigMap it created, and, when uid is set, the UID it
// recorded. A failed test is Invalid, and nothing is written. The whole of
// data is Tether's: it is replaced, so keys that no longer apply go.
func (p *Provider) patchOwnOutputs(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, cm *corev1.ConfigMap, uid string, data map[string]string) error {
	ops := []map[string]any{{"op": "test", "path": "/metadata/labels/" + strings.ReplaceAll(TagOwnerUID, "/", "~1"), "value": string(obj.UID)}}
	if uid != "" {
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/uid", "value": uid})
	}
	ops = append(ops, map[string]any{"op": "add", "path": "/data", "value": data})
	body, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	return p.opts.Writer.Patch(ctx, cm, client.RawPatch(types.JSONPatchType, body))
}

func ptrTrue() *bool { t := true; return &t }
