// Package crashtest runs ./cmd/manager as separate processes against a test
// API server, DynamoDB Local and a simulated Hue bridge, and kills them
// (SIGKILL) at the worst moments: between an external write and the status
// or finalizer change that records it, and while leading. Proxies in front
// of the backends count the writes and hold an answer at the chosen moment.
package crashtest
