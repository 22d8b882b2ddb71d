package huesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Error types of the v1 API that the simulator produces.
const (
	ErrUnauthorized       = 1
	ErrInvalidJSON        = 2
	ErrNotAvailable       = 3
	ErrMethodNotAvailable = 4
	ErrMissingParameters  = 5
	ErrParameterNotAvail  = 6
	ErrInvalidValue       = 7
	ErrLinkButton         = 101
	ErrDeviceOff          = 201
	ErrInternal           = 901
)

// apiError is one element of the bridge's answer array: the bridge always
// fills type, address and description.
type apiError struct {
	Type        int    `json:"type"`
	Address     string `json:"address"`
	Description string `json:"description"`
}

// result is one element of the answer array of a PUT/POST.
type result map[string]any

func success(address string, value any) result {
	return result{"success": map[string]any{address: value}}
}

func failure(typ int, address, description string) result {
	return result{"error": apiError{Type: typ, Address: address, Description: description}}
}

func unauthorized(address string) result {
	return failure(ErrUnauthorized, address, "unauthorized user")
}

func notAvailable(address string) result {
	return failure(ErrNotAvailable, address, fmt.Sprintf("resource, %s, not available", address))
}

func invalidValue(address, param string, value any) result {
	return failure(ErrInvalidValue, address, fmt.Sprintf("invalid value, %v, for parameter, %s", value, param))
}

func deviceOff(address, param string) result {
	return failure(ErrDeviceOff, address, fmt.Sprintf("parameter, %s, is not modifiable. Device is set to off.", param))
}

// resourcePath is the address the bridge uses in answers: the URL path
// without /api/<username>.
func resourcePath(r *http.Request) string {
	rest := strings.TrimPrefix(r.URL.Path, "/api")
	rest = strings.TrimPrefix(rest, "/")
	if rest == "config" {
		return "/config"
	}
	if i := strings.Index(rest, "/"); i >= 0 {
		return strings.TrimSuffix(rest[i:], "/")
	}
	return "/"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
