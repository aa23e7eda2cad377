package coapapp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plgd-dev/go-coap/v3/message"
	"github.com/plgd-dev/go-coap/v3/message/codes"
	"github.com/plgd-dev/go-coap/v3/message/pool"
	"github.com/plgd-dev/go-coap/v3/udp"
)

// TestGateway posts readings over CoAP, observes them, refuses an
// unregistered device and downloads a firmware image larger than one
// block.
func TestGateway(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, cs, _, addr, h, err := NewService(nil, Config{Addr: "127.0.0.1:0", Devices: []string{"boiler-1"}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cc, err := udp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()

	notes := make(chan string, 4)
	obs, err := cc.Observe(ctx, "/sensors/boiler-1", func(n *pool.Message) {
		if b, err := n.ReadBody(); err == nil && len(b) > 0 {
			notes <- string(b)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Cancel(ctx)

	resp, err := cc.Post(ctx, "/sensors/boiler-1", message.TextPlain, bytes.NewReader([]byte("21.5")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code() != codes.Changed {
		t.Fatalf("POST reading: %v, want Changed", resp.Code())
	}
	select {
	case got := <-notes:
		if got != "21.5" {
			t.Errorf("notification %q, want 21.5", got)
		}
	case <-ctx.Done():
		t.Fatal("no notification")
	}

	resp, err = cc.Post(ctx, "/sensors/intruder", message.TextPlain, bytes.NewReader([]byte("1")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code() != codes.Forbidden {
		t.Errorf("POST from unregistered device: %v, want Forbidden", resp.Code())
	}

	fw := bytes.Repeat([]byte("firmware"), 600) // 4800 bytes: five blocks
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/admin/firmware", bytes.NewReader(fw)))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("PUT firmware: %d %s", rec.Code, rec.Body)
	}
	resp, err = cc.Get(ctx, "/fw")
	if err != nil {
		t.Fatal(err)
	}
	got, err := resp.ReadBody()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code() != codes.Content || !bytes.Equal(got, fw) {
		t.Errorf("GET /fw: %v, %d bytes; want Content, %d bytes", resp.Code(), len(got), len(fw))
	}
}
