#!/usr/bin/env bash
# The talk's walkthrough, step by step, against a running `make demo`.
# Each step says what it does, runs the kubectl command the audience sees, and
# waits until the light or table shows it. Enter moves on; DEMO_AUTO=1 runs
# straight through, and fails on the first step that does not happen.
#
# It starts by clearing the stage: whatever the README's commands (or an
# earlier run) left that the walkthrough would make again, or that drives a
# bulb the walkthrough drives, is deleted first, each with the reason.
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
# The bulbs the walkthrough drives: the hallway, the living room's two and
# the downstairs zone's two.
bulbs=" hallway living-room bedroom kitchen desk "
# The colours it asks for are ones the bulbs can show (their gamuts are in
# docs/hue-behaviour.md): red inside gamut C for the hallway's LCA001 (the
# LCT015's gamut, and effects).
red='[0.68,0.31]'

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

# wait_ready_now KIND/NAME [NAMESPACE]: until Ready is True for the
# object's current spec (the condition's observedGeneration is the current
# generation: a Ready from before the change does not count).
wait_ready_now() {
	local namespace=${2:-$ns}
	gen=$(kubectl get "$1" -n "$namespace" -o jsonpath='{.metadata.generation}')
	kubectl wait --for=jsonpath='{.status.conditions[?(@.type=="Ready")].observedGeneration}'="$gen" \
		--timeout=120s -n "$namespace" "$1" >/dev/null
	run kubectl wait --for=condition=Ready --timeout=120s -n "$namespace" "$1"
}

# clear_stage deletes what would get in the walkthrough's way, saying why:
# a HueLight that drives one of its bulbs (the README's bedroom-light holds
# the bedroom bulb, so the living room's HueGroup could send nothing:
# Conflict), and its own objects left from the README or an earlier run (so
# each step changes what the audience sees).
clear_stage() {
	printf '\n\033[1m== Clearing the stage\033[0m\n'
	local cleared=0 namespace name bulb
	while read -r namespace name bulb; do
		if [ -n "$name" ] && [[ $bulbs == *" $bulb "* ]]; then
			echo "   HueLight $namespace/$name drives the $bulb bulb, which the walkthrough drives: deleting it"
			kubectl delete huelight "$name" -n "$namespace" --timeout=60s >/dev/null
			cleared=1
		fi
	done < <(kubectl get huelights -A -o jsonpath='{range .items[*]}{.metadata.namespace}{" "}{.metadata.name}{" "}{.spec.name}{"\n"}{end}')
	local left
	left=$(kubectl get huescenes,huegroups -n $ns -o name --ignore-not-found 2>/dev/null | grep -E '/(evening|movie|living-room|downstairs)$' || true)
	left+=$'\n'$(kubectl get dynamodbtable orders -n default -o name --ignore-not-found)
	for obj in $left; do
		echo "   $obj is one the walkthrough makes: deleting it so it starts afresh"
		kubectl delete "$obj" -n "$([[ $obj == dynamodbtable* ]] && echo default || echo $ns)" --timeout=120s >/dev/null
		cleared=1
	done
	if [ $cleared = 0 ]; then echo "   nothing in the way"; fi
}

clear_stage

step "Switch the hallway light on with kubectl apply"
run kubectl apply -f config/samples/hue_v1alpha1_huelight.yaml
run kubectl wait --for=condition=Ready --timeout=60s -n $ns huelight/hallway-light
wait_light hallway on true
run kubectl get huelights -n $ns

step "Dim it"
run kubectl patch huelight hallway-light -n $ns --type merge -p '{"spec":{"brightness":60}}'
wait_light hallway bri 60

step "Make it red"
run kubectl patch huelight hallway-light -n $ns --type merge -p '{"spec":{"color":{"xy":'"$red"'}}}'
wait_light hallway colormode xy
wait_ready_now huelight/hallway-light

step "Someone turns it off in the Hue app... and Tether puts it back"
id=$(kubectl get huelight hallway-light -n $ns -o jsonpath='{.status.lightID}')
run curl -fsS -X PUT "$HUESIM_CONTROL/lights/$id/state" -d '{"on":false}'
echo
wait_light hallway on true
wait_event hallway-light DriftCorrected

step "The bridge drops off the network"
run curl -fsS -X POST "$HUESIM_CONTROL/offline?mode=refuse"
echo
run kubectl wait --for=jsonpath='{.status.conditions[?(@.type=="Ready")].reason}'=BridgeUnreachable --timeout=60s -n $ns huelight/hallway-light
run kubectl get huelight hallway-light -n $ns -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}{"\n"}'

step "...and comes back: Tether recovers by itself"
run curl -fsS -X POST "$HUESIM_CONTROL/online"
echo
run kubectl wait --for=condition=Ready --timeout=120s -n $ns huelight/hallway-light

step "Delete the HueLight: the light goes off"
run kubectl delete huelight hallway-light -n $ns --timeout=60s
wait_light hallway on false

step "A candle in the hallway: an effect only CLIP v2 bulbs play"
run kubectl apply -f config/samples/hue_v1alpha1_huelight_effect.yaml
wait_ready_now huelight/candle
run kubectl wait --for=jsonpath='{.status.observed.effect}'=candle --timeout=60s -n $ns huelight/candle

step "Someone stops the candle in the Hue app... and Tether lights it again"
id=$(kubectl get huelight candle -n $ns -o jsonpath='{.status.lightID}')
run curl -fsS -X PUT "$HUESIM_CONTROL/lights/$id/effect" -d '{"effect":"no_effect"}'
echo
wait_event candle DriftCorrected
run kubectl wait --for=jsonpath='{.status.observed.effect}'=candle --timeout=60s -n $ns huelight/candle

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
wait_ready_now dynamodbtable/orders default
run kubectl get dynamodbtables

step "Scale it: switch to provisioned capacity (the index's throughput goes in the same call)"
run kubectl patch dynamodbtable orders --type json -p '[
 {"op":"replace","path":"/spec/billingMode","value":"PROVISIONED"},
 {"op":"add","path":"/spec/provisionedThroughput","value":{"readCapacityUnits":5,"writeCapacityUnits":5}},
 {"op":"add","path":"/spec/globalSecondaryIndexes/0/provisionedThroughput","value":{"readCapacityUnits":5,"writeCapacityUnits":5}}]'
wait_ready_now dynamodbtable/orders default
run kubectl get dynamodbtables

step "Add two indexes: DynamoDB creates one per call, so Tether plans two steps (the page ticks them off)"
run kubectl patch dynamodbtable orders --type json -p '[
 {"op":"add","path":"/spec/attributeDefinitions/-","value":{"attributeName":"status","attributeType":"S"}},
 {"op":"add","path":"/spec/globalSecondaryIndexes/-","value":{"indexName":"by-status","keySchema":[{"attributeName":"status","keyType":"HASH"}],
  "projection":{"projectionType":"KEYS_ONLY"},"provisionedThroughput":{"readCapacityUnits":1,"writeCapacityUnits":1}}},
 {"op":"add","path":"/spec/globalSecondaryIndexes/-","value":{"indexName":"by-date","keySchema":[{"attributeName":"createdAt","keyType":"HASH"}],
  "projection":{"projectionType":"KEYS_ONLY"},"provisionedThroughput":{"readCapacityUnits":1,"writeCapacityUnits":1}}}]'
wait_ready_now dynamodbtable/orders default
run kubectl get dynamodbtable orders -o jsonpath='{range .status.globalSecondaryIndexes[*]}{.indexName} {.indexStatus}{"\n"}{end}'

step "Delete it"
run kubectl delete dynamodbtable orders --timeout=120s

printf '\n\033[1mThat was the talk.\033[0m\n'
