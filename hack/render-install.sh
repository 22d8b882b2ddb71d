#!/usr/bin/env bash
# Renders config/default into one install manifest on stdout, with the
# manager image set to $IMG (`make build-installer` and `make deploy`).
# Uses $KUBECTL's kustomize when set, otherwise the kubectl built beside the
# API server, so nothing else needs installing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
img=${IMG:-tether:dev}
kubectl=${KUBECTL:-"$("$root/hack/envtest-assets.sh")/kubectl"}
# config/manager's kustomization renders the image as tether:dev; exactly
# that one line is replaced, and a manifest without it is an error rather
# than an install of the wrong image.
manifest=$("$kubectl" kustomize "$root/config/default")
count=$(grep -c '^ *image: tether:dev$' <<<"$manifest" || true)
if [ "$count" != 1 ]; then
	echo "render-install: expected one 'image: tether:dev' in config/default, found $count" >&2
	exit 1
fi
sed "s|^\( *\)image: tether:dev\$|\1image: ${img}|" <<<"$manifest"
