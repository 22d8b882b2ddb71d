#!/usr/bin/env bash
# The talk's walkthrough, step by step, against a running `make demo`.
# Each step says what it does, runs the kubectl command the audience sees, and
# waits until the light or table shows it. Enter moves on; DEMO_AUTO=1 runs
# straight through (the end-to-end test does), and fails on the first step
# that does not happen.
set -euo pipefail
cd "$(dirname "$0")/.."
state=${DEMO_STATE:-${TMPDIR:-/tmp}/tether-demo}
if [ ! -f "$state/demo.env" ]; then
	echo "no demo is running (start one with: make demo)" >&2
	exit 1
fi
# shellcheck source=/dev/null
source "$state/demo.env"   # KUBECONFIG, PATH (kubectl), HUESIM_CONTROL

ns=entrance
step() {
	printf '\n\033[1m== %s\033[0m\n' "$*"
	if [ "${DEMO_AUTO:-}" != 1 ]; then read -r -p "   (Enter) " _; fi
}
run() { printf '$ %s\n' "$*"; "$@"; }

# light_field NAME FIELD: a field of the bulb's state as the bridge has it.
light_field() {
	node -e '
		const [url, name, field] = process.argv.slice(1);
		fetch(url + "/lights").then(r => r.json()).then(lights => {
			const l = Object.values(lights).find(l => l.Name === name || l.name === name);
			console.log(l ? String((l.State || l.state)[field]) : "missing");
		});' "$HUESIM_CONTROL" "$1" "$2"
}

# wait_light NAME FIELD VALUE: until the bulb shows it (30 s at most).
wait_light() {
	for _ in $(seq 1 150); do
		if [ "$(light_field "$1" "$2")" = "$3" ]; then echo "   the $1 bulb: $2=$3"; return; fi
		sleep 0.2
	done
	echo "the $1 bulb never showed $2=$3" >&2
	exit 1
}

# wait_event OBJECT REASON: until an event with that reason is recorded.
wait_event() {
	for _ in $(seq 1 150); do
		out=$(kubectl get events -n $ns --field-selector "involvedObject.name=$1,reason=$2" \
			-o custom-columns=REASON:.reason,MESSAGE:.message --no-headers 2>/dev/null || true)
		if [ -n "$out" ]; then echo "   event: $out"; return; fi
		sleep 0.2
	done
	echo "no $2 event for $1" >&2
	exit 1
}

# wait_scene GROUP SCENE: until the HueGroup shows the scene.
wait_scene() {
	for _ in $(seq 1 150); do
		if [ "$(kubectl get huegroup "$1" -n $ns -o jsonpath='{.status.activeScene}')" = "$2" ]; then
			echo "   huegroup/$1 shows scene $2"; return
		fi
		sleep 0.2
	done
	echo "huegroup/$1 never showed scene $2" >&2
	exit 1
}

# wait_ready_now OBJECT: until Ready is True for the object's current spec
# (the condition's observedGeneration is the current generation).
wait_ready_now() {
	gen=$(kubectl get huelight "$1" -n $ns -o jsonpath='{.metadata.generation}')
	kubectl wait --for=jsonpath='{.status.conditions[?(@.type=="Ready")].observedGeneration}'="$gen" \
		--timeout=60s -n $ns "huelight/$1" >/dev/null
	run kubectl wait --for=condition=Ready --timeout=60s -n $ns "huelight/$1"
}

step "Switch the hallway light on with kubectl apply"
run kubectl apply -f config/samples/hue_v1alpha1_huelight.yaml
run kubectl wait --for=condition=Ready --timeout=60s -n $ns huelight/hallway-light
wait_light hallway on true
run kubectl get huelights -n $ns

step "Dim it"
run kubectl patch huelight hallway-light -n $ns --type merge -p '{"spec":{"brightness":60}}'
wait_light hallway bri 60

step "Make it red"
run kubectl patch huelight hallway-light -n $ns --type merge -p '{"spec":{"color":{"xy":[0.675,0.322]}}}'
wait_light hallway colormode xy
wait_ready_now hallway-light

step "Someone turns it off in the Hue app... and Tether puts it back"
id=$(kubectl get huelight hallway-light -n $ns -o jsonpath='{.status.lightID}')
run curl -fsS -X PUT "$HUESIM_CONTROL/lights/$id/state" -d '{"on":false}'
echo
wait_light hallway on true
wait_event hallway-light DriftCorrected

step "The bridge drops off the network"
run curl -fsS -X POST "$HUESIM_CONTROL/offline?mode=refuse"
echo
run kubectl wait --for=condition=Ready=false --timeout=60s -n $ns huelight/hallway-light
run kubectl get huelight hallway-light -n $ns -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}{"\n"}'

step "...and comes back: Tether recovers by itself"
run curl -fsS -X POST "$HUESIM_CONTROL/online"
echo
run kubectl wait --for=condition=Ready --timeout=120s -n $ns huelight/hallway-light

step "Delete the HueLight: the light goes off"
run kubectl delete huelight hallway-light -n $ns --timeout=60s
wait_light hallway on false

step "The living room, as the Hue app made it: one group command sets both of its lights"
run kubectl apply -f config/samples/hue_v1alpha1_huegroup.yaml
run kubectl wait --for=condition=Ready --timeout=60s -n $ns huegroup/living-room
wait_light living-room bri 180
run kubectl get huegroups -n $ns

step "Two scenes for it, stored on the bridge"
run kubectl apply -f config/samples/hue_v1alpha1_huescene.yaml
run kubectl wait --for=condition=Ready --timeout=60s -n $ns huescene/evening huescene/movie
run kubectl get huescenes -n $ns

step "Recall the Evening scene with kubectl apply"
run kubectl apply -f config/samples/hue_v1alpha1_huegroup_evening.yaml
wait_light living-room bri 150
wait_light bedroom bri 60
wait_scene living-room evening
run kubectl get huegroup living-room -n $ns

step "Movie night: the same room, the other scene"
run kubectl patch huegroup living-room -n $ns --type merge -p '{"spec":{"scene":"movie"}}'
wait_light bedroom on false
wait_scene living-room movie

step "Delete the room's HueGroup and its scenes: the lights go off, the room stays on the bridge"
run kubectl delete -f config/samples/hue_v1alpha1_huescene.yaml -f config/samples/hue_v1alpha1_huegroup_evening.yaml --ignore-not-found --timeout=60s
wait_light living-room on false
run kubectl delete huegroup downstairs -n $ns --ignore-not-found --timeout=60s

step "Create a DynamoDB table"
run kubectl apply -f config/samples/aws_v1alpha1_dynamodbtable.yaml
run kubectl wait --for=condition=Ready --timeout=120s dynamodbtable/orders
run kubectl get dynamodbtables

step "Scale it: switch to provisioned capacity (the index's throughput goes in the same call)"
run kubectl patch dynamodbtable orders --type json -p '[
 {"op":"replace","path":"/spec/billingMode","value":"PROVISIONED"},
 {"op":"add","path":"/spec/provisionedThroughput","value":{"readCapacityUnits":5,"writeCapacityUnits":5}},
 {"op":"add","path":"/spec/globalSecondaryIndexes/0/provisionedThroughput","value":{"readCapacityUnits":5,"writeCapacityUnits":5}}]'
run kubectl wait --for=condition=Ready --timeout=120s dynamodbtable/orders
run kubectl get dynamodbtables

step "Add an index"
run kubectl patch dynamodbtable orders --type json -p '[
 {"op":"add","path":"/spec/attributeDefinitions/-","value":{"attributeName":"status","attributeType":"S"}},
 {"op":"add","path":"/spec/globalSecondaryIndexes/-","value":{"indexName":"by-status","keySchema":[{"attributeName":"status","keyType":"HASH"}],
  "projection":{"projectionType":"KEYS_ONLY"},"provisionedThroughput":{"readCapacityUnits":1,"writeCapacityUnits":1}}}]'
run kubectl wait --for=condition=Ready --timeout=120s dynamodbtable/orders
run kubectl get dynamodbtable orders -o jsonpath='{range .status.globalSecondaryIndexes[*]}{.indexName} {.indexStatus}{"\n"}{end}'

step "Delete it"
run kubectl delete dynamodbtable orders --timeout=120s

printf '\n\033[1mThat was the talk.\033[0m\n'
