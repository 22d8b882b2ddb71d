#!/usr/bin/env bash
# Builds the real kube-apiserver and etcd that envtest runs, and a kubectl of
# the same minor version, from the Go module proxy (release binaries cannot be
# downloaded here), into a cached folder.
# Prints the folder; a second run with the binaries present does nothing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
k8s_version=${K8S_VERSION:-1.37.1}
etcd_version=${ETCD_VERSION:-3.6.6}
dest=${ENVTEST_ASSETS_DIR:-$root/bin/k8s/$k8s_version-etcd$etcd_version}
mkdir -p "$dest"

build() { # name, module dir
	local name=$1 dir=$2
	if [ -x "$dest/$name" ]; then return; fi
	echo ">> building $name from the Go module proxy into $dest (first run only; kube-apiserver takes about 5 minutes on 2 cores)" >&2
	local start=$SECONDS
	# Print a heartbeat so a long first build does not look hung.
	( while sleep 30; do echo ".. still building $name ($((SECONDS - start))s)" >&2; done ) &
	local beat=$!
	trap 'kill $beat 2>/dev/null || true' RETURN
	(cd "$root/hack/tools/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$dest/$name.tmp" .)
	mv "$dest/$name.tmp" "$dest/$name"
	echo ">> built $name in $((SECONDS - start))s" >&2
}

build etcd etcd
build kube-apiserver kube-apiserver
build kubectl kubectl
echo "$dest"
