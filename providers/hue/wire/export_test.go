package wire

// The unexported parts the external tests (package wire_test, which holds
// what wire returns against the adapters' retry policy) reach.
var (
	DecodeAnswer = decodeAnswer
	Redact       = redact
)
