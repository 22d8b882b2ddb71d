package dynamodb

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/internal/ddbgap"
	"github.com/tether-dev/tether/internal/repo"
)

// MODEL: the newer features' sample (config/samples/
// aws_v1alpha1_dynamodbtable_global.yaml) does what its comments say: each
// table in it becomes Ready and stays without a write, the global table with
// its replicas ACTIVE, the restored one from its source's data. (The API
// server's acceptance of the sample is controllers'
// TestSamplesAreAcceptedByTheAPIServer.)
func TestNewerFeaturesSampleConvergesOnTheModel(t *testing.T) {
	f := newModelFixture(t, ddbgap.Options{}, Options{})
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config/samples/aws_v1alpha1_dynamodbtable_global.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	n := 0
	for {
		obj := &awsv1alpha1.DynamoDBTable{}
		if err := decoder.Decode(obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		// Table names of their own: the package's tests share an endpoint.
		obj.Spec.TableName = newTable().Name
		obj.UID, obj.Generation = apitypes.UID(uuid.NewUUID()), 1
		if r := obj.Spec.RestoreFrom; r != nil && r.PointInTime != nil {
			key := obj.Spec.KeySchema[0].AttributeName
			r.PointInTime.SourceTableArn = f.sourceTableKeyed(obj.Spec.TableName+"-src", key, 2, true)
		}
		f.converge(obj)
		f.steady(obj, 2)
		for _, r := range obj.Spec.Replicas {
			if replicaStatuses(obj)[r.RegionName] != "ACTIVE" {
				t.Errorf("%s: replica %s is %q", obj.Name, r.RegionName, replicaStatuses(obj)[r.RegionName])
			}
		}
		if obj.Spec.RestoreFrom != nil && f.itemCount(obj.Spec.TableName) != 2 {
			t.Errorf("%s: not restored from its source", obj.Name)
		}
		if len(obj.Status.UnsupportedFeatures) > 0 {
			t.Errorf("%s: the model should support everything, status says %v", obj.Name, obj.Status.UnsupportedFeatures)
		}
	}
	if n != 3 {
		t.Errorf("%d tables in the sample, want 3", n)
	}
}
