// Command ldapserver serves a small read-only LDAP directory
// (vjeantet/ldapserver) with an admin API and the code tools at /mcp: a real
// service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/ldapsnap ./ldapserver
//	go run ./ldapserver -snapshot /tmp/ldapsnap [-addr 127.0.0.1:9007] [-ldap 127.0.0.1:3389] [-people people.json]
package main

import (
	"encoding/json"
	"flag"
	"os"
	"time"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/ldapapp"
)

func main() {
	f := evalcmd.New("ldapserver", "127.0.0.1:9007")
	ldapAddr := flag.String("ldap", "127.0.0.1:3389", "LDAP listen `address`")
	base := flag.String("base", "dc=example,dc=org", "base `DN` of the directory")
	people := flag.String("people", "", "JSON `file` of the people: [{\"uid\", \"password\", \"cn\", \"mail\", \"groups\"}]")
	flag.Parse()
	cfg := ldapapp.Config{LDAPAddr: *ldapAddr, BaseDN: *base, MaxResults: 200, IdleTimeout: 5 * time.Minute}
	if *people != "" {
		data, err := os.ReadFile(*people)
		f.Check(err)
		var ps []struct {
			ldapapp.Person
			Password string `json:"password"`
		}
		f.Check(json.Unmarshal(data, &ps))
		for _, p := range ps {
			p.Person.Password = p.Password
			cfg.People = append(cfg.People, p.Person)
		}
	}
	if f.Evaluating() {
		cfg.LDAPAddr = ""
	}
	mcpSrv, _, _, h, err := ldapapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	f.Serve(mcpSrv, ldapapp.Grants, h, "ldap", *ldapAddr)
}
