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

# Kubernetes binaries report their version from ldflags, as the release
# build stamps them (k8s.io/component-base/version); without them `kubectl
# version` prints v0.0.0-master+$Format:%H$ for client and server.
k8s_ldflags="-X k8s.io/component-base/version.gitVersion=v$k8s_version
	-X k8s.io/component-base/version.gitMajor=${k8s_version%%.*}
	-X k8s.io/component-base/version.gitMinor=$(echo "$k8s_version" | cut -d. -f2)
	-X k8s.io/component-base/version.gitTreeState=clean"

# stamped: a binary built here before reports the version it was built from
# (one built before the stamping is built again).
stamped() { # name
	case $1 in
	kubectl) [[ "$("$dest/kubectl" version --client 2>/dev/null)" == *"v$k8s_version"* ]] ;;
	kube-apiserver) [[ "$("$dest/kube-apiserver" --version 2>/dev/null)" == *"v$k8s_version"* ]] ;;
	*) true ;;
	esac
}

build() { # name, module dir, extra ldflags
	local name=$1 dir=$2 ldflags=${3:-}
	if [ -x "$dest/$name" ] && stamped "$name"; then return; fi
	echo ">> building $name from the Go module proxy into $dest (first run only; kube-apiserver takes about 5 minutes on 2 cores)" >&2
	local start=$SECONDS
	# Print a heartbeat so a long first build does not look hung.
	( while sleep 30; do echo ".. still building $name ($((SECONDS - start))s)" >&2; done ) &
	local beat=$!
	trap 'kill $beat 2>/dev/null || true' RETURN
	(cd "$root/hack/tools/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $ldflags" -o "$dest/$name.tmp" .)
	mv "$dest/$name.tmp" "$dest/$name"
	echo ">> built $name in $((SECONDS - start))s" >&2
}

build etcd etcd
build kube-apiserver kube-apiserver "$k8s_ldflags"
build kubectl kubectl "$k8s_ldflags"
echo "$dest"
