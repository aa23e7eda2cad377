package snmpapp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

// sendTrap sends a linkDown trap to addr as g, with g's version and
// credentials.
func sendTrap(t *testing.T, g *gosnmp.GoSNMP, addr string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	g.Target, g.Port, g.Timeout, g.Retries = host, uint16(p), time.Second, 0
	if err := g.Connect(); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, err := g.SendTrap(gosnmp.SnmpTrap{Variables: []gosnmp.SnmpPDU{
		{Name: oidSnmpTrapOID, Type: gosnmp.ObjectIdentifier, Value: ".1.3.6.1.6.3.1.1.5.3"},
		{Name: ".1.3.6.1.2.1.2.2.1.1.7", Type: gosnmp.Integer, Value: 7},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTraps sends traps with a known and an unknown community and as a v3
// user, and reads back the ones accepted from the admin API.
func TestTraps(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	user := User{Name: "noc", AuthProtocol: gosnmp.SHA, AuthPass: "authpass1", PrivProtocol: gosnmp.AES, PrivPass: "privpass1"}
	_, m, h, err := NewService(nil, Config{Communities: []string{"team"}, Users: []User{user}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sendTrap(t, &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: "team"}, m.Addr())
	sendTrap(t, &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: "guess"}, m.Addr())
	sp, flags := usm(user, gosnmp.Logger{})
	sp.AuthoritativeEngineID = "\x80\x00\x1f\x88\x04switch7"
	sp.AuthoritativeEngineBoots, sp.AuthoritativeEngineTime = 1, 1
	sendTrap(t, &gosnmp.GoSNMP{Version: gosnmp.Version3, SecurityModel: gosnmp.UserSecurityModel, MsgFlags: flags, SecurityParameters: sp}, m.Addr())

	var traps []Trap
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/admin/traps", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /admin/traps: %d %s", rec.Code, rec.Body)
		}
		traps = nil
		if err := json.Unmarshal(rec.Body.Bytes(), &traps); err != nil {
			t.Fatal(err)
		}
		if len(traps) >= 2 {
			break
		}
	}
	time.Sleep(100 * time.Millisecond) // the refused trap has had its chance
	if len(traps) != 2 {
		t.Fatalf("got %d traps, want the v2c one and the v3 one: %+v", len(traps), traps)
	}
	got := map[string]Trap{}
	for _, tr := range traps {
		got[tr.Security] = tr
	}
	for _, sec := range []string{"team", "noc"} {
		tr, ok := got[sec]
		if !ok {
			t.Errorf("no trap from %q: %+v", sec, traps)
			continue
		}
		if tr.Name != "linkDown" || tr.Vars[".1.3.6.1.2.1.2.2.1.1.7"] != "7" {
			t.Errorf("trap from %q = %+v, want linkDown with ifIndex 7", sec, tr)
		}
	}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/admin/traps?limit=0", nil))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("limit=0: %d, want 400", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/polls/core9", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("poll of an unknown device: %d, want 404", rec.Code)
	}
}
