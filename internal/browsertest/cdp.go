package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"golang.org/x/net/websocket"
)

// cdpConn is one DevTools protocol connection (to the browser or to one
// page). Only request/response is needed here, so events are dropped.
type cdpConn struct {
	ws *websocket.Conn

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpReply
	err     error // set once the connection is gone
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *cdpError       `json:"error"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *cdpError) Error() string { return fmt.Sprintf("devtools error %d: %s", e.Code, e.Message) }

// origin is what the client claims; Chromium is started with
// --remote-allow-origins set to it, as Chromium refuses other origins.
const origin = "http://127.0.0.1"

func dialCDP(url string) (*cdpConn, error) {
	ws, err := websocket.Dial(url, "", origin)
	if err != nil {
		return nil, err
	}
	c := &cdpConn{ws: ws, pending: map[int64]chan cdpReply{}}
	go c.readLoop()
	return c, nil
}

func (c *cdpConn) readLoop() {
	for {
		var msg struct {
			ID int64 `json:"id"`
			cdpReply
		}
		if err := websocket.JSON.Receive(c.ws, &msg); err != nil {
			c.fail(err)
			return
		}
		c.mu.Lock()
		ch, ok := c.pending[msg.ID]
		delete(c.pending, msg.ID)
		c.mu.Unlock()
		if ok { // id 0 is an event; other unknown ids are calls given up on
			ch <- msg.cdpReply
		}
	}
}

// fail ends every waiting call with err.
func (c *cdpConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.err = fmt.Errorf("devtools connection closed: %w", err)
	for id, ch := range c.pending {
		ch <- cdpReply{Error: &cdpError{Code: -1, Message: c.err.Error()}}
		delete(c.pending, id)
	}
}

// call sends method with params and decodes the result into result (which
// may be nil).
func (c *cdpConn) call(ctx context.Context, method string, params, result any) error {
	ch := make(chan cdpReply, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	req := map[string]any{"id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if err := websocket.JSON.Send(c.ws, req); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %w", method, r.Error)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(r.Result, result)
	}
}

func (c *cdpConn) close() { _ = c.ws.Close() }
