package hue

// Condition reasons of the Hue kinds that the adapters give (those of a
// bridge's answers are beside classify).
const (
	ReasonNotPaired           = "NotPaired"
	ReasonLinkButton          = "LinkButtonNotPressed"
	ReasonPaired              = "Paired"
	ReasonLightUnreachable    = "LightUnreachable"
	ReasonLightNotFound       = "LightNotFound"
	ReasonConflict            = "Conflict"
	ReasonThrottled           = "Throttled"
	ReasonBridgeNotFound      = "BridgeNotFound"
	ReasonBridgeAmbiguous     = "BridgeAmbiguous"
	ReasonNamespaceNotAllowed = "NamespaceNotAllowed"
	// ReasonLimited: Ready=True, the bulb shows all it can of the spec and
	// the message says what it cannot (projected or not reported).
	ReasonLimited = "Limited"
	// ReasonAttributeRefused: Ready=False, the bridge refused part of the
	// spec and the message names it; it is not sent again unchanged.
	ReasonAttributeRefused = "AttributeRefused"
)

// Condition reasons of HueGroups and HueScenes.
const (
	ReasonGroupNotFound     = "GroupNotFound"
	ReasonGroupTypeMismatch = "GroupTypeMismatch"
	ReasonSceneNotFound     = "SceneNotFound"
	ReasonSceneNotReady     = "SceneNotReady"
	ReasonLightNotInGroup   = "LightNotInGroup"
	// ReasonSomeUnreachable: Ready=True, the reachable members show the
	// spec and the message names the others (nothing is sent for them).
	ReasonSomeUnreachable = "SomeUnreachable"
)
