// Package rbactest proves that the manager's RBAC is exactly what it uses.
//
// The API server runs with an audit log. The manager runs with a token of the
// ServiceAccount that the rendered install manifest creates (so with that
// manifest's RBAC and nothing else) through a scenario that walks every kind
// through its whole life. The audit log then shows every request the manager
// made: none may be refused, every granted permission must have been used,
// Secrets may only be read or written by name, the ones HueBridges point at
// in the manager's namespace (a HueBridge naming another namespace's Secret
// is refused unread), and Secret access is granted in that namespace only.
package rbactest
