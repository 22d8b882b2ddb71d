// Drives the Hue simulator with node-hue-api, a client written against real
// bridges. Usage: node nodehue.js HOST PORT NODE_MODULES_DIR
// It pairs (the Go test pressed the link button), lists the lights, sets
// "hallway" on at 50%, then asks every light for on, 50%, ct 500 and an
// RGB red, and prints what it saw as one JSON line. node-hue-api sends a
// light only the state keys GET /lights reports for it and converts RGB
// with the gamut the light reports, so what it sends depends on the
// simulator describing each bulb as a real bridge does.
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

  const models = [];
  for (const l of lights) {
    // node-hue-api warns on stderr for each key it leaves out.
    const set = await api.lights.setLightState(l.id, new v3.lightStates.LightState().on().brightness(50).ct(500));
    let rgb = 'sent';
    try {
      await api.lights.setLightState(l.id, new v3.lightStates.LightState().rgb(255, 0, 0));
    } catch (err) {
      rgb = String(err.message || err);
    }
    const now = await api.lights.getLight(l.id);
    models.push({
      name: l.name, type: l.type, modelid: l.modelid, gamut: l.colorGamut,
      supported: l.getSupportedStates().sort(), set, rgb, state: now.state,
    });
  }
  console.log(JSON.stringify({
    names: lights.map((l) => l.name).sort(),
    set: ok,
    on: after.state.on,
    bri: after.state.bri,
    bridgeid: config.bridgeid,
    models,
  }));
}

main().catch((err) => {
  console.error('node-hue-api failed:', err && (err.stack || err.message || err));
  process.exit(1);
});
