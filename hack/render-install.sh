#!/usr/bin/env bash
# Renders config/default into one install manifest on stdout, with the
# manager image set to $IMG. Uses the kubectl built beside the API server
# (its kustomize), so nothing else needs installing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
img=${IMG:-tether:dev}
kubectl="$("$root/hack/envtest-assets.sh")/kubectl"
"$kubectl" kustomize "$root/config/default" | sed "s|image: tether:dev|image: ${img}|"
