#!/usr/bin/env bash
# Prints what failed in a go test log, last, so that the tail of a CI log
# (often all that is kept) names the failing tests and their messages rather
# than whatever a test's manager happened to log on its way down.
set -uo pipefail
log=${1:?usage: test-failures.sh go-test.log}
echo
echo "==== failures in $log ===="
# The failing tests, packages and panics, with the file:line messages that
# testing and Gomega print under a failing test.
grep -n -A4 -E -- '^\s*--- FAIL|^FAIL|^panic:|^\s+[a-zA-Z0-9_]+_test\.go:[0-9]+:' "$log" | cut -c1-300 | tail -n 150
