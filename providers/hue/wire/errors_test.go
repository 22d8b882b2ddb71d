package wire

import (
	"errors"
	"testing"

	"github.com/tether-dev/tether/providers/hue/model"
)

func TestDecodeAnswer(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		body     string
		wantType int // -1: protocol error, 0: nil
	}{
		{"all success", 200, `[{"success":{"/lights/1/state/on":true}}]`, 0},
		{"error after success", 200, `[{"success":{"/lights/1/state/on":true}},{"error":{"type":3,"address":"/lights/1","description":"resource, /lights/1, not available"}}]`, 3},
		{"error without address (huego would panic)", 200, `[{"error":{"type":901,"description":"busy"}}]`, 901},
		{"overload", 503, `[{"error":{"type":901,"address":"/lights/1/state","description":"Internal error, 503"}}]`, 901},
		{"html from a proxy", 502, `<html>bad gateway</html>`, -1},
		{"503 without error array", 503, `[]`, -1},
		// DELETE answers success with a string (huego's test data, from the
		// v1 API documentation).
		{"a group deleted", 200, `[{"success":"/groups/4 deleted."}]`, 0},
		{"a scene deleted", 200, `[{"success":"/scenes/3T2SvsxvwteNNys deleted"}]`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAnswer(tc.status, []byte(tc.body), model.StateBody{})
			var perr *ProtocolError
			switch {
			case tc.wantType == 0 && err != nil:
				t.Fatalf("want nil, got %v", err)
			case tc.wantType == -1 && !errors.As(err, &perr):
				t.Fatalf("want a protocol error, got %v", err)
			case tc.wantType > 0 && ErrorType(err) != tc.wantType:
				t.Fatalf("want API error %d, got %v", tc.wantType, err)
			}
		})
	}
}
