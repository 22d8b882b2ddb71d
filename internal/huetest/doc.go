// Package huetest holds what the Hue packages' tests share: a simulated
// bridge over HTTP (the Hue simulator, paired with User). It imports
// nothing of the Hue provider, so that wire's own tests use it too; the
// fake bridge in memory, which speaks wire's types, is fakebridge below.
// Behaviour that depends on how a bridge answers is tested against the
// simulator; the fake only counts calls and returns what a test set.
package huetest
