// Drives the Hue simulator with node-hue-api, a client written against real
// bridges. Usage: node nodehue.js HOST PORT NODE_MODULES_DIR
// It pairs (the Go test pressed the link button), lists the lights, sets
// "hallway" on at 50% and prints what it saw as one JSON line.
'use strict';

const [host, port, modules] = process.argv.slice(2);
process.env.NODE_HUE_API_USE_INSECURE_CONNECTION = '1';
const v3 = require(require('path').join(modules, 'node-hue-api')).v3;

async function main() {
  const anon = await v3.api.createInsecureLocal(host, Number(port)).connect();
  const user = await anon.users.createUser('tether', 'fidelity');
  const api = await v3.api.createInsecureLocal(host, Number(port)).connect(user.username);
  const lights = await api.lights.getAll();
  const hallway = lights.find((l) => l.name === 'hallway');
  const state = new v3.lightStates.LightState().on().brightness(50);
  const ok = await api.lights.setLightState(hallway.id, state);
  const after = await api.lights.getLight(hallway.id);
  const config = await api.configuration.getConfiguration();
  console.log(JSON.stringify({
    names: lights.map((l) => l.name).sort(),
    set: ok,
    on: after.state.on,
    bri: after.state.bri,
    bridgeid: config.bridgeid,
  }));
}

main().catch((err) => {
  console.error('node-hue-api failed:', err && (err.stack || err.message || err));
  process.exit(1);
});
