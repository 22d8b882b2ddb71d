package v1alpha1

// A bare `on:` key. YAML 1.1, which kubectl, Helm, Argo CD and Flux read
// manifests with (sigs.k8s.io/yaml), takes the plain scalar `on` for the
// boolean true, as a key too: `on: false` reaches the API server as
// `"true": false` (sigs.k8s.io/yaml's YAMLToJSON gives {"true":false};
// the YAML 1.1 type repository, https://yaml.org/type/bool.html, lists
// on/off/yes/no as booleans). Pruned as an unknown field, the light would
// then take `on`'s default, true: a light told to be off switches on. So
// each object with an `on` field also knows the key `true`, only to refuse
// it with the fix.

// BareOn is where a bare `on:` key lands.
type BareOn struct {
	// True is never written on purpose: it is where a YAML 1.1 reader
	// (kubectl, Helm, Argo CD, Flux) puts a bare `on:` key, which it reads
	// as the boolean true. It is refused at admission: write "on" in
	// quotes.
	// +optional
	True *bool `json:"true,omitempty"`
}

// Every type that embeds BareOn carries the rule
// `!has(self.__true__)` (CEL spells the key `true`, a CEL keyword, so);
// markers cannot share a constant, so it is written out on each type, and
// the admission tests check each one.
