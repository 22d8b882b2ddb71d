package dynamodb

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
	"github.com/tether-dev/tether/providers"
	"github.com/tether-dev/tether/providers/dynamodb/access"
)

// Where an object's table lives: the AWSAccount (or the operator's own
// identity) and the region it resolves to, found without an AWS call, and
// kept where the table was found (checkNotMoved).

// accountName is the AWSAccount an object uses: spec.accountRef, else its
// namespace's aws.tether.dev/account annotation, else none.
func (p *Provider) accountName(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (string, *corev1.Namespace, error) {
	if p.opts.Reader == nil {
		if obj.Spec.AccountRef != nil {
			return "", nil, fmt.Errorf("dynamodb: spec.accountRef needs the adapter's Reader")
		}
		return "", nil, nil
	}
	ns := &corev1.Namespace{}
	if err := p.opts.Reader.Get(ctx, client.ObjectKey{Name: obj.Namespace}, ns); err != nil && !apierrors.IsNotFound(err) {
		return "", nil, err
	}
	if obj.Spec.AccountRef != nil {
		return obj.Spec.AccountRef.Name, ns, nil
	}
	return ns.Annotations[awsv1alpha1.AnnotationNamespaceAccount], ns, nil
}

// resolve finds the object's target. It makes no AWS call, so an object
// whose namespace may not use its account costs AWS nothing.
func (p *Provider) resolve(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (access.Target, error) {
	name, ns, err := p.accountName(ctx, obj)
	if err != nil {
		return access.Target{}, err
	}
	if name == "" {
		if p.opts.RequireAccount && obj.Namespace != p.opts.OperatorNamespace {
			return access.Target{}, providers.RetryAfter(accountDelay, reasonAccountRequired, fmt.Errorf(
				"this operator requires an AWSAccount for every table outside its own namespace: set spec.accountRef, or annotate namespace %s with %s; Tether makes no AWS call for this table until then",
				obj.Namespace, awsv1alpha1.AnnotationNamespaceAccount))
		}
		region, err := p.clients.Region(ctx, obj.Spec.Region, "")
		return access.Target{Region: region}, err
	}
	account := &awsv1alpha1.AWSAccount{}
	if err := p.opts.Reader.Get(ctx, client.ObjectKey{Name: name}, account); err != nil {
		if apierrors.IsNotFound(err) {
			return access.Target{}, providers.RetryAfter(accountDelay, ReasonAccountNotFound, fmt.Errorf(
				"AWSAccount %s (named by %s) does not exist; Tether touches nothing for this table until it does", name, accountSource(obj)))
		}
		return access.Target{}, err
	}
	if !admits(account, ns) {
		return access.Target{}, providers.RetryAfter(accountDelay, reasonAccountNotAllowed, fmt.Errorf(
			"AWSAccount %s does not admit namespace %s (its spec.namespaceSelector): Tether makes no AWS call for this table and leaves it as it is",
			name, obj.Namespace))
	}
	region, err := p.clients.Region(ctx, obj.Spec.Region, account.Spec.Region)
	return access.Target{Account: name, Region: region, AWSAccount: account}, err
}

func accountSource(obj *awsv1alpha1.DynamoDBTable) string {
	if obj.Spec.AccountRef != nil {
		return "spec.accountRef"
	}
	return "the namespace's " + awsv1alpha1.AnnotationNamespaceAccount + " annotation"
}

// admits says whether the account's namespaceSelector admits ns.
func admits(a *awsv1alpha1.AWSAccount, ns *corev1.Namespace) bool {
	return selects(a.Spec.NamespaceSelector, ns)
}

// selects says whether a NamespaceSelector picks ns: by name, or by labels.
// A selector with neither picks no namespace.
func selects(sel awsv1alpha1.NamespaceSelector, ns *corev1.Namespace) bool {
	if ns == nil || ns.Name == "" {
		return false
	}
	if slices.Contains(sel.Names, ns.Name) {
		return true
	}
	if sel.LabelSelector == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel.LabelSelector)
	if err != nil || s.Empty() {
		// An empty selector would pick every namespace: refuse instead,
		// as nothing was said.
		return false
	}
	return s.Matches(labels.Set(ns.Labels))
}

// endpointFor resolves the object's target and returns its client, after
// checking that the table has not moved and the account's credentials are
// to be had.
func (p *Provider) endpointFor(ctx context.Context, obj *awsv1alpha1.DynamoDBTable) (*access.Endpoint, error) {
	t, err := p.resolve(ctx, obj)
	if err != nil {
		return nil, err
	}
	current, err := p.currentAccount(ctx, obj, t)
	if err != nil {
		return nil, err
	}
	if err := p.checkNotMoved(obj, t, current); err != nil {
		return nil, err
	}
	ep, err := p.clients.For(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := p.clients.CheckCredentials(ctx, ep, p.memoryOf(obj).mayRetryDenied(obj)); err != nil {
		p.memoryOf(obj).toldDenied(obj)
		return nil, err
	}
	return ep, nil
}

// currentAccount is the AWS account the object's identity is in now: its
// AWSAccount's role's, or the operator's own as STS names it (asked before
// the operator's first call: access.Clients.OperatorAccount). While STS
// cannot say, an object whose status records an account touches nothing:
// AccountChanged, for the account may well have moved (a manager restarted
// with another account's credentials); one that records none gets STS's
// error, and nothing is created either.
func (p *Provider) currentAccount(ctx context.Context, obj *awsv1alpha1.DynamoDBTable, t access.Target) (string, error) {
	if t.AWSAccount != nil {
		_, id := p.clients.AccountOf(t.AWSAccount)
		return id, nil
	}
	id, err := p.clients.OperatorAccount(ctx)
	if err == nil || obj.Status.AccountID == "" {
		return id, err
	}
	delay := accountDelay
	if ra, ok := providers.AsRetryAfter(err); ok {
		delay = ra.Delay
	}
	return "", providers.RetryAfter(delay, reasonAccountChanged, fmt.Errorf(
		"table %s is in AWS account %s (through the operator's own account), and Tether cannot tell which account the operator's "+
			"credentials are in now (%v): it creates nothing and deletes nothing until STS answers sts:GetCallerIdentity; "+
			"to let go of the table, annotate the object tether.dev/reconcile: paused and delete it",
		obj.ResolvedTableName(), obj.Status.AccountID, err))
}

// checkNotMoved refuses to act when the object now resolves to another
// account or region than the one its table was found in: an AWSAccount's
// role now in another AWS account (changed, or the AWSAccount re-created),
// the operator restarted with another account's credentials, the
// namespace's default account or the AWSAccount's region changed under
// it. Following would create a second table, empty, elsewhere and leave
// (or, on delete, miss) the first one. Accounts are compared by their AWS
// account id (current, as currentAccount found it), not by the
// AWSAccount's name: a name tells nothing of where its role leads. Once
// the status records an account, the object stays bound to it, table or
// no table: a table deleted in the first account is not re-created in
// another.
func (p *Provider) checkNotMoved(obj *awsv1alpha1.DynamoDBTable, t access.Target, id string) error {
	s := obj.Status
	if s.AccountID != "" && s.AccountID != id {
		return providers.RetryAfter(accountDelay, reasonAccountChanged, fmt.Errorf(
			"table %s is in AWS account %s (through %s), but the object now resolves to AWS account %s (through %s: its role or the "+
				"operator's credentials changed, it was re-created, or the namespace's default account changed): Tether creates no table in %s "+
				"and deletes nothing in %s; point the AWSAccount (or the operator's credentials) back at account %s to go on, or to let go "+
				"of the table, annotate the object tether.dev/reconcile: paused and delete it",
			obj.ResolvedTableName(), s.AccountID, accountLabel(s.Account), id, accountLabel(t.Account), id, s.AccountID, s.AccountID))
	}
	if s.TableID == "" || s.Region == "" {
		return nil
	}
	sameAccount := s.Account == t.Account || (s.AccountID != "" && s.AccountID == id)
	if s.Region == t.Region && sameAccount {
		return nil
	}
	return providers.RetryAfter(accountDelay, reasonLocationChanged, fmt.Errorf(
		"table %s is in %s, region %s, but the object now resolves to %s, region %s (a namespace's default account or an AWSAccount's region changed): "+
			"Tether does not move tables and touches neither until the object resolves to where its table is again; "+
			"to let go of the table, annotate the object tether.dev/reconcile: paused and delete it",
		obj.ResolvedTableName(), accountLabel(s.Account), s.Region, accountLabel(t.Account), t.Region))
}

func accountLabel(name string) string {
	if name == "" {
		return "the operator's own account"
	}
	return "AWSAccount " + name
}

// recordTarget shows where the table is in the status: the account as
// Tether knows it (its role's, or the operator's as STS named it), never
// as an ARN says, which names no account on some endpoints (DynamoDB
// Local's say 000000000000 whoever asks).
func recordTarget(obj *awsv1alpha1.DynamoDBTable, ep *access.Endpoint) {
	obj.Status.Account = ep.Identity
	obj.Status.Region = ep.Region
	obj.Status.AccountID = ep.AccountID
}
