package api

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// The manager's scheme knows every kind the manager reads or writes through
// its client, and no other built-in group.
func TestManagerSchemeHoldsWhatTheManagerUses(t *testing.T) {
	s, err := NewManagerScheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []runtime.Object{
		&corev1.Namespace{}, &corev1.Secret{}, &corev1.ConfigMap{},
		&awsv1alpha1.DynamoDBTable{}, &awsv1alpha1.AWSAccount{},
		&huev1alpha1.HueBridge{}, &huev1alpha1.HueLight{}, &huev1alpha1.HueGroup{}, &huev1alpha1.HueScene{},
	} {
		if _, _, err := s.ObjectKinds(obj); err != nil {
			t.Errorf("the manager's scheme lacks %T: %v", obj, err)
		}
	}
	if s.IsGroupRegistered(appsv1.GroupName) {
		t.Errorf("the manager's scheme holds the %s group, which the manager never uses", appsv1.GroupName)
	}
}
