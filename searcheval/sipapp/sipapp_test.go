package sipapp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// TestRegistrar registers a phone through the digest challenge, refuses a
// registration shorter than the minimum and a wrong password, lists the
// registration in the admin API and removes it there.
func TestRegistrar(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, reg, h, err := NewService(nil, Config{Users: map[string]string{"201": "secret"}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ua, err := sipgo.NewUA()
	if err != nil {
		t.Fatal(err)
	}
	defer ua.Close()
	cl, err := sipgo.NewClient(ua, sipgo.WithClientHostname("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := sip.ParseAddr(reg.Addr())
	register := func(expires, password string) int {
		t.Helper()
		req := sip.NewRequest(sip.REGISTER, sip.Uri{Scheme: "sip", Host: host, Port: port})
		req.AppendHeader(&sip.ToHeader{Address: sip.Uri{Scheme: "sip", User: "201", Host: host}})
		req.AppendHeader(&sip.ContactHeader{Address: sip.Uri{Scheme: "sip", User: "201", Host: "127.0.0.1", Port: 5999}})
		req.AppendHeader(sip.NewHeader("Expires", expires))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := cl.Do(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != sip.StatusUnauthorized {
			t.Fatalf("REGISTER without credentials: %d, want 401", res.StatusCode)
		}
		res, err = cl.DoDigestAuth(ctx, req, res, sipgo.DigestAuth{Username: "201", Password: password})
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode
	}
	if got := register("10", "secret"); got != sip.StatusIntervalToBrief {
		t.Errorf("REGISTER for 10s: %d, want 423", got)
	}
	if got := register("600", "wrong"); got != sip.StatusForbidden {
		t.Errorf("REGISTER with a wrong password: %d, want 403", got)
	}
	if got := register("600", "secret"); got != sip.StatusOK {
		t.Fatalf("REGISTER: %d, want 200", got)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/admin/registrations")
	if err != nil {
		t.Fatal(err)
	}
	var regs []registration
	err = json.NewDecoder(resp.Body).Decode(&regs)
	resp.Body.Close()
	if err != nil || len(regs) != 1 || regs[0].Extension != "201" || regs[0].Contact != "sip:201@127.0.0.1:5999" {
		t.Fatalf("registrations %+v, %v; want 201 at sip:201@127.0.0.1:5999", regs, err)
	}
	if left := time.Until(regs[0].Expires); left < 590*time.Second || left > 600*time.Second {
		t.Errorf("registration expires in %v, want about 600s", left)
	}
	del, _ := http.NewRequest(http.MethodDelete, srv.URL+"/admin/registrations/201", nil)
	resp, err = http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", resp.StatusCode)
	}
	if _, ok := reg.lookup("201"); ok {
		t.Error("extension 201 still registered after DELETE")
	}
}
