#!/usr/bin/env bash
# make undeploy: removes the operator so that no object is left hanging on
# its finalizer (docs/uninstall.md).
#
# By default it removes the operator (Deployment, RBAC, metrics Service) and
# keeps the CRDs, every Tether object and the namespace with the bridges'
# credentials: nothing is being deleted, so nothing waits for a finalizer,
# and installing again picks every object up where it was.
#
# DELETE_OBJECTS=true first deletes every Tether object while the operator
# still runs, and waits until each is gone (its finalizer done: a table
# deleted or retained as its deletionPolicy says, a bulb left as its
# HueLight's says), dependents before what they depend on; only then the
# operator. DELETE_CRDS=true also removes the CRDs and the namespace
# afterwards (and implies DELETE_OBJECTS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kubectl=${KUBECTL:-"$("$root/hack/envtest-assets.sh")/kubectl"}
delete_crds=${DELETE_CRDS:-false}
delete_objects=${DELETE_OBJECTS:-$delete_crds}
timeout=${UNDEPLOY_TIMEOUT:-10m}
if [ "$delete_crds" = true ]; then delete_objects=true; fi

# Dependents first: a HueScene needs its HueGroup, lights and groups their
# HueBridge's credentials, tables their AWSAccount's role, to finish.
order=(
	huescenes.hue.tether.dev
	huegroups.hue.tether.dev
	huelights.hue.tether.dev
	dynamodbtables.aws.tether.dev
	huebridges.hue.tether.dev
	awsaccounts.aws.tether.dev
)
# A kind added later must be placed in the order above.
for f in "$root"/config/crd/bases/*.yaml; do
	base=$(basename "$f" .yaml)
	crd="${base#*_}.${base%%_*}"
	if ! printf '%s\n' "${order[@]}" | grep -qx "$crd"; then
		echo "undeploy: $crd is not in hack/undeploy.sh's order" >&2
		exit 1
	fi
done

if [ "$delete_objects" = true ]; then
	for crd in "${order[@]}"; do
		if ! "$kubectl" get crd "$crd" >/dev/null 2>&1; then continue; fi
		echo ">> deleting every $crd, waiting up to $timeout for their finalizers"
		if ! "$kubectl" delete "$crd" --all --all-namespaces --wait=true --timeout="$timeout"; then
			echo "undeploy: some $crd are still there; the operator is left running so that they can finish:" >&2
			"$kubectl" get "$crd" --all-namespaces >&2 || true
			exit 1
		fi
	done
fi

# The install manifest without its CRDs (and without its Namespace unless
# the CRDs go too): kustomize separates its documents with ---.
keep='^kind: (CustomResourceDefinition|Namespace)$'
if [ "$delete_crds" = true ]; then keep='^kind: CustomResourceDefinition$'; fi
manifest=$(KUBECTL="$kubectl" "$root/hack/render-install.sh")
awk -v keep="$keep" '
	function flush() { if (doc != "" && !skip) printf "---\n%s", doc; doc = ""; skip = 0 }
	/^---$/ { flush(); next }
	$0 ~ keep { skip = 1 }
	{ doc = doc $0 "\n" }
	END { flush() }
' <<<"$manifest" | "$kubectl" delete --ignore-not-found -f -

if [ "$delete_crds" = true ]; then
	echo ">> deleting the CRDs"
	KUBECTL="$kubectl" "$root/hack/render-install.sh" |
		awk '/^---$/ { if (crd) printf "---\n%s", doc; doc = ""; crd = 0; next } /^kind: CustomResourceDefinition$/ { crd = 1 } { doc = doc $0 "\n" } END { if (crd) printf "---\n%s", doc }' |
		"$kubectl" delete --ignore-not-found -f -
fi
