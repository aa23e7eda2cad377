// Package ldapapp is a real service of the search evaluation: a small LDAP
// directory for staging environments (vjeantet/ldapserver,
// github.com/vjeantet/ldapserver, over the goldap message codec; nobody
// here wrote them) whose people come from the configuration: simple binds
// check their passwords, searches match their entries, with a small HTTP
// admin API and, at /mcp, the code tools and the tool enquiry over a
// source snapshot of the service and its dependencies, as an adopter would
// serve them. Command ldapserver runs it.
package ldapapp

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	ldap "github.com/lor00x/goldap/message"
	"github.com/vjeantet/ldapserver"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the directory.
type Config struct {
	LDAPAddr       string        // address LDAP listens on; "" picks a free loopback port
	BaseDN         string        // suffix of every entry, such as dc=example,dc=org
	People         []Person      // the entries, under ou=people
	AllowAnonymous bool          // a connection that has not bound may search
	MaxResults     int           // entries one search answers at most; 0 for 500
	IdleTimeout    time.Duration // a connection with no request this long is closed; 0 for never
}

// Person is one entry of the directory.
type Person struct {
	UID      string   `json:"uid"`
	Password string   `json:"-"`
	Name     string   `json:"cn"`
	Mail     string   `json:"mail"`
	Groups   []string `json:"groups"`
}

// Directory is the running LDAP server's data and state.
type Directory struct {
	base      string
	anonymous bool
	max       int
	logger    *slog.Logger
	mu        sync.Mutex
	people    map[string]*Person // by uid
	bound     map[string]string  // DN bound on each connection, by remote address
}

// NewService starts the LDAP server and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the LDAP
// server, the directory and the HTTP handler that serves the admin API and
// MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *ldapserver.Server, *Directory, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "ldapserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "ldapserver", Version: "0.1.0", Logger: logger})
	d := &Directory{base: strings.ToLower(cfg.BaseDN), anonymous: cfg.AllowAnonymous, max: cfg.MaxResults, logger: logger,
		people: map[string]*Person{}, bound: map[string]string{}}
	if d.max <= 0 {
		d.max = 500
	}
	for i := range cfg.People {
		p := cfg.People[i]
		if p.UID == "" || strings.ContainsAny(p.UID, ",=") {
			return nil, nil, nil, nil, fmt.Errorf("person %d: uid %q is empty or holds ',' or '='", i+1, p.UID)
		}
		d.people[p.UID] = &p
	}
	// The library logs every packet to its package-level logger: send it
	// to the service's log at debug level.
	ldapserver.Logger = slog.NewLogLogger(logger.Handler(), slog.LevelDebug)
	routes := ldapserver.NewRouteMux()
	routes.Bind(d.handleBind).AuthenticationChoice("simple")
	routes.Search(d.handleSearch)
	routes.NotFound(d.handleOther)
	ls := ldapserver.NewServer()
	ls.ReadTimeout = cfg.IdleTimeout
	ls.Handle(routes)
	addr := cfg.LDAPAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	go func() {
		if err := ls.ListenAndServe(addr); err != nil {
			logger.Error("ldap", "error", err)
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/people", d.handleList)
	mux.HandleFunc("PUT /admin/people/{uid}/password", d.handlePassword)
	return srv, ls, d, mux, nil
}

// dn is the distinguished name of a person's entry.
func (d *Directory) dn(uid string) string { return "uid=" + uid + ",ou=people," + d.base }

// personOf returns the person whose entry dn names, or nil.
func (d *Directory) personOf(dn string) *Person {
	rdn, rest, ok := strings.Cut(strings.ToLower(strings.ReplaceAll(dn, " ", "")), ",")
	uid, found := strings.CutPrefix(rdn, "uid=")
	if !ok || !found || rest != "ou=people,"+d.base {
		return nil
	}
	for _, p := range d.people {
		if strings.EqualFold(p.UID, uid) {
			return p
		}
	}
	return nil
}

// handleBind checks the password of a simple bind and remembers the
// identity bound on the connection.
func (d *Directory) handleBind(w ldapserver.ResponseWriter, m *ldapserver.Message) {
	r := m.GetBindRequest()
	name, password := string(r.Name()), string(r.AuthenticationSimple())
	remote := m.Client.Addr().String()
	d.mu.Lock()
	defer d.mu.Unlock()
	if name == "" && d.anonymous {
		delete(d.bound, remote)
		w.Write(ldapserver.NewBindResponse(ldapserver.LDAPResultSuccess))
		return
	}
	p := d.personOf(name)
	if p == nil || subtle.ConstantTimeCompare([]byte(p.Password), []byte(password)) != 1 {
		d.logger.Warn("ldap bind refused", "dn", name, "remote", remote)
		res := ldapserver.NewBindResponse(ldapserver.LDAPResultInvalidCredentials)
		res.SetDiagnosticMessage("invalid credentials")
		w.Write(res)
		return
	}
	d.bound[remote] = d.dn(p.UID)
	w.Write(ldapserver.NewBindResponse(ldapserver.LDAPResultSuccess))
}

// handleSearch answers the people whose entries match the filter, at most
// MaxResults of them, to a connection that has bound (or to anyone when
// anonymous searches are allowed).
func (d *Directory) handleSearch(w ldapserver.ResponseWriter, m *ldapserver.Message) {
	r := m.GetSearchRequest()
	d.mu.Lock()
	_, bound := d.bound[m.Client.Addr().String()]
	var hits []*Person
	for _, p := range d.people {
		if matches(p, r.Filter()) {
			hits = append(hits, p)
		}
	}
	d.mu.Unlock()
	if !bound && !d.anonymous {
		res := ldapserver.NewResponse(ldapserver.LDAPResultInsufficientAccessRights)
		res.SetDiagnosticMessage("bind before searching")
		w.Write(ldap.SearchResultDone(res))
		return
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].UID < hits[j].UID })
	for i, p := range hits {
		select {
		case <-m.Done:
			d.logger.Info("ldap search abandoned", "filter", r.FilterString())
			return
		default:
		}
		if i == d.max {
			res := ldapserver.NewResponse(ldapserver.LDAPResultSizeLimitExceeded)
			res.SetDiagnosticMessage(fmt.Sprintf("more than %d entries match", d.max))
			w.Write(ldap.SearchResultDone(res))
			return
		}
		w.Write(d.entry(p))
	}
	w.Write(ldapserver.NewSearchResultDoneResponse(ldapserver.LDAPResultSuccess))
}

// entry is the search result of a person.
func (d *Directory) entry(p *Person) ldap.SearchResultEntry {
	e := ldapserver.NewSearchResultEntry(d.dn(p.UID))
	e.AddAttribute("objectClass", "inetOrgPerson")
	e.AddAttribute("uid", ldap.AttributeValue(p.UID))
	e.AddAttribute("cn", ldap.AttributeValue(p.Name))
	e.AddAttribute("mail", ldap.AttributeValue(p.Mail))
	for _, g := range p.Groups {
		e.AddAttribute("memberOf", ldap.AttributeValue("cn="+g+",ou=groups,"+d.base))
	}
	return e
}

// attribute returns the values of a person's attribute, by its
// case-insensitive name.
func attribute(p *Person, name string) []string {
	switch strings.ToLower(name) {
	case "uid":
		return []string{p.UID}
	case "cn":
		return []string{p.Name}
	case "mail":
		return []string{p.Mail}
	case "memberof":
		return p.Groups
	case "objectclass":
		return []string{"inetOrgPerson"}
	}
	return nil
}

// matches evaluates a search filter on a person: equality, presence,
// substrings and their and, or and not; any other filter matches nothing.
func matches(p *Person, f ldap.Filter) bool {
	switch f := f.(type) {
	case ldap.FilterAnd:
		for _, c := range f {
			if !matches(p, c) {
				return false
			}
		}
		return true
	case ldap.FilterOr:
		for _, c := range f {
			if matches(p, c) {
				return true
			}
		}
		return false
	case ldap.FilterNot:
		return !matches(p, f.Filter)
	case ldap.FilterPresent:
		return len(attribute(p, string(f))) > 0
	case ldap.FilterEqualityMatch:
		for _, v := range attribute(p, string(f.AttributeDesc())) {
			if strings.EqualFold(v, string(f.AssertionValue())) {
				return true
			}
		}
	case ldap.FilterSubstrings:
		for _, v := range attribute(p, string(f.Type_())) {
			if substringsMatch(strings.ToLower(v), f) {
				return true
			}
		}
	}
	return false
}

// substringsMatch says whether v has the initial, any and final parts of
// a substrings filter, in that order.
func substringsMatch(v string, f ldap.FilterSubstrings) bool {
	for _, s := range f.Substrings() {
		switch s := s.(type) {
		case ldap.SubstringInitial:
			if !strings.HasPrefix(v, strings.ToLower(string(s))) {
				return false
			}
			v = v[len(s):]
		case ldap.SubstringAny:
			i := strings.Index(v, strings.ToLower(string(s)))
			if i < 0 {
				return false
			}
			v = v[i+len(s):]
		case ldap.SubstringFinal:
			return strings.HasSuffix(v, strings.ToLower(string(s)))
		}
	}
	return true
}

// handleOther refuses the operations the directory does not implement:
// it is read-only.
func (d *Directory) handleOther(w ldapserver.ResponseWriter, m *ldapserver.Message) {
	res := ldapserver.NewResponse(ldapserver.LDAPResultUnwillingToPerform)
	res.SetDiagnosticMessage("the staging directory is read-only")
	w.Write(res)
}

// handleList answers the people as JSON, without their passwords.
func (d *Directory) handleList(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	out := make([]Person, 0, len(d.people))
	for _, p := range d.people {
		out = append(out, *p)
	}
	d.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		d.logger.Warn("people", "error", err)
	}
}

// handlePassword sets a person's password to the request body.
func (d *Directory) handlePassword(w http.ResponseWriter, r *http.Request) {
	pw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 256))
	if err != nil || len(pw) == 0 {
		http.Error(w, "body must be the new password, 1 to 256 bytes", http.StatusBadRequest)
		return
	}
	d.mu.Lock()
	p, ok := d.people[r.PathValue("uid")]
	if ok {
		p.Password = string(pw)
	}
	d.mu.Unlock()
	if !ok {
		http.Error(w, "no such person", http.StatusNotFound)
		return
	}
	d.logger.Info("password reset", "uid", p.UID, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
