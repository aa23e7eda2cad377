package dnsapp

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

func TestZone(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := Config{Zone: "svc.example.internal", Secondaries: []string{"192.0.2.1"}, QPS: 0.01, Burst: 2}
	_, z, h, err := NewService(nil, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()

	resp, err := http.Post(hs.URL+"/admin/records", "text/dns", strings.NewReader("api 60 IN A 10.1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("add: status %d, want 201", resp.StatusCode)
	}
	resp, err = http.Post(hs.URL+"/admin/records", "text/dns", strings.NewReader("api.example.com. 60 IN A 10.1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("add outside the zone: status %d, want 400", resp.StatusCode)
	}

	c := new(dns.Client)
	query := func(name string, qtype uint16) *dns.Msg {
		t.Helper()
		r, _, err := c.Exchange(new(dns.Msg).SetQuestion(name, qtype), z.Addr())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := query("API.svc.example.internal.", dns.TypeA)
	if r.Rcode != dns.RcodeSuccess || !r.Authoritative || len(r.Answer) != 1 || r.Answer[0].(*dns.A).A.String() != "10.1.2.3" {
		t.Fatalf("A query: %v", r)
	}
	if r := query("nope.svc.example.internal.", dns.TypeA); r.Rcode != dns.RcodeNameError || len(r.Ns) != 1 {
		t.Fatalf("missing name: %v", r)
	}
	if r := query("www.example.com.", dns.TypeA); r.Rcode != dns.RcodeRefused {
		t.Fatalf("other zone: rcode %s, want REFUSED", dns.RcodeToString[r.Rcode])
	}
	// The burst of 2 is spent (the other zone's query never reached the zone); the next query is refused by the limit.
	if r := query("api.svc.example.internal.", dns.TypeA); r.Rcode != dns.RcodeRefused {
		t.Fatalf("over the limit: rcode %s, want REFUSED", dns.RcodeToString[r.Rcode])
	}

	z.mu.Lock()
	delete(z.buckets, "127.0.0.1")
	z.mu.Unlock()
	tc := &dns.Client{Net: "tcp"}
	r, _, err = tc.Exchange(new(dns.Msg).SetAxfr("svc.example.internal."), z.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if r.Rcode != dns.RcodeRefused {
		t.Fatalf("transfer to an unlisted client: rcode %s, want REFUSED", dns.RcodeToString[r.Rcode])
	}

	req, _ := http.NewRequest(http.MethodDelete, hs.URL+"/admin/records/api.svc.example.internal./a", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("remove: status %d, want 204", resp.StatusCode)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("remove again: status %d, want 404", resp.StatusCode)
	}
}
