package wire

import (
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	in := ": hi\n\nid: 1700000000:0\ndata: [1]\n\n\r\nid: 1700000000:1\r\ndata: [2,\r\ndata: 3]\r\n\r\nretry: 5\nevent: x\ndata:[4]\n\ndata: [5]"
	r := newSSEReader(strings.NewReader(in))
	want := []sseMessage{{}, {id: "1700000000:0", data: "[1]"}, {id: "1700000000:1", data: "[2,\n3]"}, {data: "[4]"}}
	for i, w := range want {
		got, err := r.next()
		if err != nil || got != w {
			t.Fatalf("message %d: %+v %v, want %+v", i, got, err, w)
		}
	}
	if _, err := r.next(); err == nil {
		t.Fatal("a message cut off by the end of the stream was delivered")
	}
}

// streamSession runs a session of a v2 client on the simulator, with its
// wake-ups counted per HueLight.
