package huesim

// The Hue Bridge Pro (BSB003, September 2025), as Options.Pro makes the
// simulator. Each behaviour is from a public source:
//
//   - Identity: the bridge device's product_data is model_id BSB003,
//     product_archetype bridge_v3, product_name "Hue Bridge", software
//     1.78.2071401010 (aiohue tests/fixtures/v2_resources.json, a dump of
//     a live Bridge Pro); its id starts c42996fffe (ebaauw/homebridge-hue
//     #1219).
//   - HTTPS only: plain HTTP is answered 301 to https (zim514/
//     script.service.hue #332). A client that follows the redirect turns
//     the pairing POST /api into a GET, and pairing fails quietly
//     (LedFx/LedFx PR #1856). The v1 API is still served over HTTPS
//     (Q42/Q42.HueApi #333; soffes/hue PR #56).
//   - Its certificate: EC P-256, subject C=NL, O=Philips Hue, OU=BSB003,
//     CN = the bridge id in upper case, issued by CN=root-bridge (the
//     Pro certificate openhab-addons ships as huebridge3_cacert.pem,
//     issue #19337). The simulator's stand-in root is its own
//     "root-bridge" CA (v2tls.go), which tests pass as caBundle; an
//     intermediate, sent or not, is an option (ProChain).
//   - Newer resource types (aiohue aiohue/v2/models/resource.py, "verified
//     against a live Bridge Pro"), each served with a plausible minimal
//     body; a type no client knows yet (proFutureType) and fields no client
//     knows on the bridge and its device, to check that readers ignore them.
//   - GET /clip/v2/resource leaves motion_area_candidate and
//     wifi_connectivity out; they are served by type (ebaauw/homebridge-hue2
//     lib/Hue2Accessory/Bridge.js, missingRtypes).
//   - Omitted keys: scene palettes without effects, motion area
//     participants without health (aiohue PR #659, which fixed the
//     resources aiohue discarded for them).
//   - 429 past three requests at once: every v2 bridge in the simulator
//     does that (v2request.go, v2MaxConcurrent); the Pro holds up to
//     ProMaxLights lights.

// ProChain is how a Pro's certificate reaches the root. The Pro
// certificate openhab-addons ships is issued by root-bridge directly
// (ProDirect). Clients have reported "unable to verify the first
// certificate" with a Pro (michael5r/MMM-hue-lights #31; Q42/Q42.HueApi
// #333), and openhab-addons PR #20400 validates "via an intermediate on v3
// bridges": whether some units send an intermediate, or leave it out, is
// not on record. ProIntermediate and ProIncompleteChain are the
// simulator's two readings of that, for testing what a client does.
type ProChain string

const (
	// ProDirect: the leaf is issued by the root (the default).
	ProDirect ProChain = ""
	// ProIntermediate: the leaf is issued by an intermediate, which the
	// bridge sends after it.
	ProIntermediate ProChain = "intermediate"
	// ProIncompleteChain: the leaf is issued by an intermediate the bridge
	// does not send.
	ProIncompleteChain ProChain = "incomplete"
)

// ProMaxLights is how many lights a Bridge Pro holds (Signify's launch
// figures, quoted by hueblog.com: 150, against 50 on the square bridge).
const ProMaxLights = 150

// proIDPrefix starts every Bridge Pro's id (its MAC prefix C42996 and
// FFFE; ebaauw/homebridge-hue #1219).
const proIDPrefix = "C42996FFFE"

// proFutureType is a resource type no client knows: a bridge's next
// firmware may add one at any time.
const proFutureType = "tether_future_thing"

// proUnlisted are the types the Pro leaves out of GET /clip/v2/resource
// (homebridge-hue2 Bridge.js missingRtypes).
var proUnlisted = []string{"motion_area_candidate", "wifi_connectivity"}

// product is the bridge device's product_data and the public config's
// modelid and version.
type product struct {
	ModelID, Archetype, Software, SWVersion, APIVersion string
}

// bridgeProduct is the bridge the simulator is: a square bridge (BSB002,
// as the aiohue fixtures of it show) or a Pro (BSB003, its fixture).
func (o Options) bridgeProduct() product {
	if o.Pro {
		return product{ModelID: "BSB003", Archetype: "bridge_v3", Software: "1.78.2071401010", SWVersion: "2071401010", APIVersion: "1.78.0"}
	}
	return product{ModelID: "BSB002", Archetype: "bridge_v2", Software: "1.65.1965111030", SWVersion: "1965111030", APIVersion: APIVersion}
}

// PlainRequests lists the requests a Bridge Pro received over plain HTTP,
// in order: a client that pairs and binds at https directly sends none.
func (b *Bridge) PlainRequests() []PlainRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]PlainRequest(nil), b.plain...)
}

// ChangeProResources changes the Pro's newer and unknown resources (its
// software update state and the future type), which the event stream
// pushes: a reader must take those messages in its stride.
func (b *Bridge) ChangeProResources() {
	defer b.notify()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.proFutureVersion++
	if b.proUpdateState == "no_update" {
		b.proUpdateState = "update_pending"
	} else {
		b.proUpdateState = "no_update"
	}
}
