package huesim

import "fmt"

// A light's dynamics: the speed of what it plays, a CLIP v2 feature only.
// Every light the simulator serves carries a dynamics object {status,
// status_values, speed, speed_valid} (the simulator's choice: which real
// lights lack one is not recorded), and a client sets the speed with PUT
// {"dynamics": {"speed": 0..1}} (CLIP v2 API reference, "light",
// dynamics; aiohue's DynamicsFeature and DynamicsFeaturePut,
// models/feature.py; openhue-go v0.4.0's LightDynamics). What the
// simulator shows of it, from those descriptions:
//   - speed is 0 to 1; any other value is answered 400;
//   - "the speed is valid for the dynamic palette if the status is
//     dynamic_palette or for the corresponding effect listed in status. In
//     case of status none, the speed is not valid": the simulator plays no
//     dynamic palettes, so speed_valid is true while the light plays an
//     effect, and false otherwise, the speed kept either way;
//   - the status stays none (no dynamic palette plays).
// The speed is kept as sent: whether a bridge keeps it in steps is not
// recorded.

// dynamicsJSON is the light's dynamics object.
func dynamicsJSON(st LightState) map[string]any {
	return map[string]any{"status": "none", "status_values": []string{"none"}, "speed": st.V2Speed,
		"speed_valid": playsEffect(st)}
}

// playsEffect reports whether the light plays an effect.
func playsEffect(st LightState) bool { return st.V2Effect != "" && st.V2Effect != noEffect }

// speedRefusal says why a v2 bridge answers 400 to a speed, "" when it
// takes it.
func speedRefusal(speed float64) string {
	if !unit(speed) {
		return fmt.Sprintf("invalid value for dynamics.speed: %g", speed)
	}
	return ""
}
