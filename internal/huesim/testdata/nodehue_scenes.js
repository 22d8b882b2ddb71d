// Drives the simulator's rooms, zones and scenes with node-hue-api, a client
// written against real bridges. Usage: node nodehue_scenes.js HOST PORT
// NODE_MODULES_DIR USERNAME. It creates a room and a zone with node-hue-api's
// own models, tries a second room with a light of the first, stores a
// LightScene with lightstates, reads it back, recalls it on the zone and
// with activateScene (group 0), deletes it, and prints what it saw as one
// JSON line (node-hue-api also logs each scene of getAll on stdout; the Go
// test reads the last line).
'use strict';

const [host, port, modules, username] = process.argv.slice(2);
process.env.NODE_HUE_API_USE_INSECURE_CONNECTION = '1';
const v3 = require(require('path').join(modules, 'node-hue-api')).v3;

async function main() {
  const api = await v3.api.createInsecureLocal(host, Number(port)).connect(username);
  const out = {};

  const room = v3.model.createRoom();
  room.name = 'Kitchen';
  room.class = 'Kitchen';
  room.lights = ['1'];
  const kitchen = await api.groups.createGroup(room);
  out.room = { id: String(kitchen.id), type: kitchen.type, class: kitchen.class };

  const second = v3.model.createRoom();
  second.name = 'Hall';
  second.lights = ['1', '2'];
  try {
    await api.groups.createGroup(second);
    out.secondRoom = 'created';
  } catch (err) {
    out.secondRoom = err.getHueErrorType ? err.getHueErrorType() : String(err.message || err);
  }

  const zone = v3.model.createZone();
  zone.name = 'Downstairs';
  zone.lights = ['1', '2'];
  const downstairs = await api.groups.createGroup(zone);
  out.zone = { id: String(downstairs.id), type: downstairs.type };

  const scene = v3.model.createLightScene();
  scene.name = 'Evening';
  scene.lights = ['1', '2'];
  scene.lightstates = { 1: { on: true, bri: 100, ct: 300 }, 2: { on: true, bri: 50, xy: [0.3, 0.3] } };
  const created = await api.scenes.createScene(scene);
  out.sceneId = created.id;
  const stored = await api.scenes.getScene(created.id);
  out.stored = { name: stored.name, type: stored.type, lights: stored.lights, lightstates: stored.lightstates };

  out.recallOnZone = await api.groups.setGroupState(downstairs.id, new v3.lightStates.GroupLightState().scene(created.id));
  const afterZone = await api.lights.getLight(1);
  out.light1 = { on: afterZone.state.on, bri: afterZone.state.bri, ct: afterZone.state.ct, colormode: afterZone.state.colormode };

  await api.lights.setLightState(2, new v3.lightStates.LightState().on().brightness(10));
  out.activated = await api.scenes.activateScene(created.id);
  const afterAll = await api.lights.getLight(2);
  out.light2 = { on: afterAll.state.on, bri: afterAll.state.bri, colormode: afterAll.state.colormode };

  out.listed = (await api.scenes.getAll()).map((s) => s.name);
  out.deleted = await api.scenes.deleteScene(created.id);
  out.left = (await api.scenes.getAll()).length;
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error('node-hue-api failed:', err && (err.stack || err.message || err));
  process.exit(1);
});
