// Package wiretest holds what tests above the wire package share: a
// simulated bridge over HTTP (the Hue simulator, paired), and a fake
// bridge in memory for unit tests of one function. Behaviour that depends
// on how a bridge answers is tested against the simulator; the fake only
// counts calls and returns what a test set.
package wiretest
