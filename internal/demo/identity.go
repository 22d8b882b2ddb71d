package demo

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	huev1alpha1 "github.com/tether-dev/tether/api/hue/v1alpha1"
)

// PageUser is the identity the page's informers use: it may read Tether's
// kinds and events and nothing else, so the page cannot change the cluster
// even by mistake.
const PageUser = "tether-demo-page"

// pageRules are what the page reads: list and watch, nothing more.
var pageRules = []rbacv1.PolicyRule{
	{APIGroups: []string{huev1alpha1.GroupVersion.Group}, Resources: []string{"huebridges", "huelights", "huegroups", "huescenes"},
		Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{awsv1alpha1.GroupVersion.Group}, Resources: []string{"dynamodbtables"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"get", "list", "watch"}},
}

// pageIdentity creates PageUser with a read-only ClusterRole and returns
// its client configuration.
func (d *Demo) pageIdentity(ctx context.Context) (*rest.Config, error) {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: PageUser}, Rules: pageRules}
	if err := d.Client.Create(ctx, role); err != nil {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: PageUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: PageUser},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: PageUser}},
	}
	if err := d.Client.Create(ctx, binding); err != nil {
		return nil, err
	}
	user, err := d.env.AddUser(envtest.User{Name: PageUser}, nil)
	if err != nil {
		return nil, err
	}
	d.PageConfig = user.Config()
	return d.PageConfig, nil
}
