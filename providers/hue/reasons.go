package hue

// Condition reasons of the Hue kinds that the adapters and the connect
// stage give (those of a bridge's answers are beside Classify, in retry.go).
const (
	ReasonNotPaired           = "NotPaired"
	ReasonLinkButton          = "LinkButtonNotPressed"
	ReasonPaired              = "Paired"
	ReasonLightUnreachable    = "LightUnreachable"
	ReasonLightNotFound       = "LightNotFound"
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

// Reasons of the API choice (connect.go).
const (
	// ReasonDowngradeRefused: Auto found no CLIP v2 at the address of a
	// bridge it had verified over v2, and did not speak plain v1 instead.
	ReasonDowngradeRefused = "DowngradeRefused"
	// ReasonInsecureTLS: Ready, and spec.insecureSkipVerify leaves the
	// bridge's certificate unchecked.
	ReasonInsecureTLS = "InsecureSkipVerify"
	// ReasonPlainV1: Ready, and Auto speaks plain v1 (the username
	// travels unencrypted, only the address vouches for the bridge).
	ReasonPlainV1 = "PlainV1"
)

// ReasonBridgeIdentityConflict: the HueBridge names a bridge id another
// HueBridge's session holds, and its transport does not prove that id as
// the session's does.
const ReasonBridgeIdentityConflict = "BridgeIdentityConflict"

// ReasonBridgeProofMismatch: the bridge at the HueBridge's address proves
// its id in another way, or less strongly, than the credentials Secret
// records (proof.go, ProofKey), so the username is not sent.
const ReasonBridgeProofMismatch = "BridgeProofMismatch"

// Reasons of the credentials Secret's refusals (secretaccess.go), in the
// HueBridge's conditions.
const (
	ReasonCredentialsNamespaceNotAllowed = "CredentialsNamespaceNotAllowed"
	ReasonCredentialsSecretNotOwned      = "CredentialsSecretNotOwned"
	// ReasonCredentialsBridgeIDMissing: the Secret holds a username but
	// not the id of the bridge it belongs to.
	ReasonCredentialsBridgeIDMissing = "CredentialsBridgeIDMissing"
	// ReasonCredentialsForAnotherBridge: the bridge at the address does
	// not prove the id the Secret's username belongs to.
	ReasonCredentialsForAnotherBridge = "CredentialsForAnotherBridge"
	// ReasonCredentialsSecretInUse: another HueBridge uses the Secret,
	// and this one does not name its bridge id.
	ReasonCredentialsSecretInUse = "CredentialsSecretInUse"
)

// ReasonBridgeNotDiscovered: no bridge with the HueBridge's id answered.
const ReasonBridgeNotDiscovered = "BridgeNotDiscovered"
