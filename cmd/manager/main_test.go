package main

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/controllers"
)

func TestResolveCredentialsNamespaces(t *testing.T) {
	defaults := []string{"tether-system"}
	cases := []struct {
		flag string
		want []string
	}{
		{"home, office", []string{"home", "office"}},
		{"home,,", []string{"home"}},
		// Outside a pod (no ServiceAccount namespace file): the defaults.
		{"", defaults},
	}
	for _, tc := range cases {
		if got := resolveCredentialsNamespaces(tc.flag, defaults); !slices.Equal(got, tc.want) {
			t.Errorf("--credentials-namespaces=%q: got %v, want %v", tc.flag, got, tc.want)
		}
	}
}

// Issue 23 item 11: tables outside the manager's namespace need an
// AWSAccount unless --aws-require-account=false; outside a cluster the
// manager's namespace is the install's.
func TestAnAWSAccountIsRequiredByDefault(t *testing.T) {
	cfg := controllers.DefaultConfig()
	if !cfg.AWSRequireAccount || cfg.OperatorNamespace != controllers.InstallNamespace {
		t.Errorf("defaults: require an account %v, operator namespace %q", cfg.AWSRequireAccount, cfg.OperatorNamespace)
	}
	if got := ownNamespace(controllers.InstallNamespace); got != controllers.InstallNamespace {
		t.Errorf("outside a cluster the manager's namespace is %q, want %q", got, controllers.InstallNamespace)
	}
}

// The manager's caches hold objects without their managedFields.
func TestCacheDropsManagedFields(t *testing.T) {
	table := &awsv1alpha1.DynamoDBTable{ObjectMeta: metav1.ObjectMeta{Name: "orders", ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}},
	}}}
	held, err := cacheOptions().DefaultTransform(table)
	if err != nil {
		t.Fatal(err)
	}
	if mf := held.(*awsv1alpha1.DynamoDBTable).ManagedFields; len(mf) != 0 {
		t.Errorf("the cache holds managedFields: %v", mf)
	}
}
