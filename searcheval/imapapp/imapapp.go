// Package imapapp is a real service of the search evaluation: a helpdesk's
// ticket archive that support agents read in their own mail clients over
// IMAP (emersion/go-imap v1, github.com/emersion/go-imap, with go-message
// and go-sasl; nobody here wrote them). Tickets arrive as raw messages
// through an HTTP intake endpoint and are filed into one shared mailbox per
// queue ("INBOX" for tickets nobody triaged); agents log in with their own
// passwords, flag and mark tickets, copy them to another queue to reassign
// them, and see new tickets arrive while they idle. It is an archive:
// nothing is ever deleted or expunged, mailboxes are not created, renamed
// or removed over IMAP, and repeated failed logins from one address lock
// that address out for a while. At /mcp, the service serves the code tools
// and the tool enquiry over a source snapshot of the service and its
// dependencies, as an adopter would serve them. Command imapserver runs it.
package imapapp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/emersion/go-imap"
	"github.com/emersion/go-imap/backend"
	"github.com/emersion/go-imap/backend/backendutil"
	"github.com/emersion/go-imap/server"
	"github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the archive.
type Config struct {
	Addr          string            // IMAP listen address; "" for 127.0.0.1:0
	Agents        map[string]string // agent name to password
	Queues        []string          // mailboxes besides INBOX, such as "billing"
	MaxTicket     uint32            // bytes of one ticket at most; 0 for 10 MiB
	MaxFailures   int               // failed logins from one address before it is locked out; 0 for 5
	LockoutFor    time.Duration     // how long a locked-out address waits; 0 for 15m
	IdleLogout    time.Duration     // idle clients are logged out after this; 0 for 30m
	InsecureLogin bool              // allow LOGIN without TLS (loopback and tests)
}

// errReadOnly is the answer to an IMAP command that would change the
// archive's mailboxes or delete tickets.
var errReadOnly = errors.New("the ticket archive is read-only: mailboxes are managed by the helpdesk")

// errLockedOut is the answer to a login from an address that failed too
// often.
var errLockedOut = errors.New("too many failed logins from this address; try again later")

// Archive is the running archive: its mailboxes, agents and IMAP server.
type Archive struct {
	cfg     Config
	logger  *slog.Logger
	imap    *server.Server
	ln      net.Listener
	updates chan backend.Update

	mu        sync.Mutex
	boxes     map[string]*queue   // by mailbox name
	passwords map[string][32]byte // sha256 of each agent's password
	failures  map[string]*failed  // by remote IP
}

// failed counts the failed logins of one remote address.
type failed struct {
	n     int
	until time.Time // locked out until then
}

// NewService starts the archive and returns the MCP server over snapshot
// (a directory written by mcpsnapshot; nil for none), the archive and the
// HTTP handler of the intake API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Archive, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "imapserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "imapserver", Version: "0.1.0", Logger: logger})
	a, err := Start(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("POST /tickets/{queue}", a.handleIntake)
	mux.HandleFunc("GET /queues", a.handleQueues)
	return srv, a, mux, nil
}

// Start fills in the defaults, creates the mailboxes and serves IMAP.
func Start(cfg Config, logger *slog.Logger) (*Archive, error) {
	if len(cfg.Agents) == 0 {
		return nil, errors.New("imap: at least one agent is required")
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.MaxTicket == 0 {
		cfg.MaxTicket = 10 << 20
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = 5
	}
	if cfg.LockoutFor <= 0 {
		cfg.LockoutFor = 15 * time.Minute
	}
	if cfg.IdleLogout <= 0 {
		cfg.IdleLogout = 30 * time.Minute
	}
	a := &Archive{cfg: cfg, logger: logger, updates: make(chan backend.Update, 64),
		boxes: map[string]*queue{}, passwords: map[string][32]byte{}, failures: map[string]*failed{}}
	for name, pw := range cfg.Agents {
		a.passwords[name] = sha256.Sum256([]byte(pw))
	}
	for _, q := range append([]string{"INBOX"}, cfg.Queues...) {
		if strings.ContainsAny(q, "/%*\r\n") {
			return nil, fmt.Errorf("imap: queue name %q has a character IMAP reserves", q)
		}
		a.boxes[q] = &queue{name: q, archive: a, uidValidity: uint32(time.Now().Unix())}
	}
	s := server.New(a)
	s.Addr = cfg.Addr
	s.AllowInsecureAuth = cfg.InsecureLogin
	s.AutoLogout = cfg.IdleLogout
	s.MaxLiteralSize = cfg.MaxTicket
	s.Updates = a.updates
	s.ErrorLog = slogLogger{logger}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("imap listen: %w", err)
	}
	a.imap, a.ln = s, ln
	go func() {
		if err := s.Serve(ln); err != nil && !errors.Is(err, net.ErrClosed) {
			logger.Warn("imap server stopped", "error", err)
		}
	}()
	return a, nil
}

// Addr is the address the IMAP server listens on.
func (a *Archive) Addr() string { return a.ln.Addr().String() }

// Close stops the IMAP server and disconnects its clients.
func (a *Archive) Close() error { return a.imap.Close() }

// slogLogger is the IMAP server's error log, written to slog.
type slogLogger struct{ logger *slog.Logger }

func (l slogLogger) Printf(format string, v ...any) {
	l.logger.Warn("imap", "msg", fmt.Sprintf(format, v...))
}

func (l slogLogger) Println(v ...any) {
	l.logger.Warn("imap", "msg", strings.TrimSuffix(fmt.Sprintln(v...), "\n"))
}

// Login checks an agent's password, counting failures per remote address
// and refusing an address that failed MaxFailures times until its lockout
// ends.
func (a *Archive) Login(conn *imap.ConnInfo, username, password string) (backend.User, error) {
	ip := remoteIP(conn)
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.failures[ip]; f != nil && time.Now().Before(f.until) {
		return nil, errLockedOut
	}
	want, ok := a.passwords[username]
	got := sha256.Sum256([]byte(password))
	if !ok || subtle.ConstantTimeCompare(want[:], got[:]) != 1 {
		f := a.failures[ip]
		if f == nil {
			f = &failed{}
			a.failures[ip] = f
		}
		f.n++
		if f.n >= a.cfg.MaxFailures {
			f.n, f.until = 0, time.Now().Add(a.cfg.LockoutFor)
			a.logger.Warn("imap address locked out", "ip", ip, "agent", username, "for", a.cfg.LockoutFor)
		}
		return nil, backend.ErrInvalidCredentials
	}
	delete(a.failures, ip)
	a.logger.Info("imap agent logged in", "agent", username, "ip", ip, "tls", conn.TLS != nil)
	return &agent{name: username, archive: a}, nil
}

// remoteIP is the IP of the client, without its port.
func remoteIP(conn *imap.ConnInfo) string {
	if conn == nil || conn.RemoteAddr == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(conn.RemoteAddr.String())
	if err != nil {
		return conn.RemoteAddr.String()
	}
	return host
}

// CreateMessageLimit announces the largest ticket APPEND accepts
// (the APPENDLIMIT extension).
func (a *Archive) CreateMessageLimit() *uint32 { return &a.cfg.MaxTicket }

// agent is a logged-in support agent; all agents share the queues.
type agent struct {
	name    string
	archive *Archive
}

func (u *agent) Username() string { return u.name }

func (u *agent) ListMailboxes(subscribed bool) ([]backend.Mailbox, error) {
	u.archive.mu.Lock()
	defer u.archive.mu.Unlock()
	var out []backend.Mailbox
	for _, q := range u.archive.boxes {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (u *agent) GetMailbox(name string) (backend.Mailbox, error) {
	u.archive.mu.Lock()
	defer u.archive.mu.Unlock()
	if strings.EqualFold(name, "INBOX") {
		name = "INBOX"
	}
	q, ok := u.archive.boxes[name]
	if !ok {
		return nil, backend.ErrNoSuchMailbox
	}
	return q, nil
}

func (u *agent) CreateMailbox(string) error         { return errReadOnly }
func (u *agent) DeleteMailbox(string) error         { return errReadOnly }
func (u *agent) RenameMailbox(string, string) error { return errReadOnly }
func (u *agent) Logout() error {
	u.archive.logger.Info("imap agent logged out", "agent", u.name)
	return nil
}

// ticket is one archived message.
type ticket struct {
	uid   uint32
	date  time.Time
	flags []string
	raw   []byte
}

// queue is one shared mailbox of tickets.
type queue struct {
	name        string
	archive     *Archive
	uidValidity uint32
	tickets     []*ticket // guarded by archive.mu
	lastUID     uint32
}

func (q *queue) Name() string { return q.name }

func (q *queue) Info() (*imap.MailboxInfo, error) {
	return &imap.MailboxInfo{Delimiter: "/", Name: q.name}, nil
}

// Status answers the counts a client asks for; unseen counts the tickets
// no agent has opened yet.
func (q *queue) Status(items []imap.StatusItem) (*imap.MailboxStatus, error) {
	q.archive.mu.Lock()
	defer q.archive.mu.Unlock()
	st := imap.NewMailboxStatus(q.name, items)
	st.Flags = []string{imap.SeenFlag, imap.FlaggedFlag, imap.AnsweredFlag, "$Escalated"}
	st.PermanentFlags = []string{imap.SeenFlag, imap.FlaggedFlag, imap.AnsweredFlag, "$Escalated"}
	for i, t := range q.tickets {
		if !slices.Contains(t.flags, imap.SeenFlag) && st.UnseenSeqNum == 0 {
			st.UnseenSeqNum = uint32(i + 1)
		}
	}
	for _, item := range items {
		switch item {
		case imap.StatusMessages:
			st.Messages = uint32(len(q.tickets))
		case imap.StatusUidNext:
			st.UidNext = q.lastUID + 1
		case imap.StatusUidValidity:
			st.UidValidity = q.uidValidity
		case imap.StatusUnseen:
			for _, t := range q.tickets {
				if !slices.Contains(t.flags, imap.SeenFlag) {
					st.Unseen++
				}
			}
		}
	}
	return st, nil
}

func (q *queue) SetSubscribed(bool) error { return nil }
func (q *queue) Check() error             { return nil }

// each calls f with the sequence number of each ticket that seqSet
// selects, by sequence number or, when uid is set, by UID.
func (q *queue) each(uid bool, seqSet *imap.SeqSet, f func(seq uint32, t *ticket)) {
	for i, t := range q.tickets {
		seq := uint32(i + 1)
		id := seq
		if uid {
			id = t.uid
		}
		if seqSet.Contains(id) {
			f(seq, t)
		}
	}
}

// ListMessages answers a FETCH: envelopes, structures, flags, sizes and
// body sections of the selected tickets.
func (q *queue) ListMessages(uid bool, seqSet *imap.SeqSet, items []imap.FetchItem, ch chan<- *imap.Message) error {
	defer close(ch)
	q.archive.mu.Lock()
	var msgs []*imap.Message
	q.each(uid, seqSet, func(seq uint32, t *ticket) {
		m, err := t.fetch(seq, items)
		if err != nil {
			q.archive.logger.Warn("imap fetch", "queue", q.name, "uid", t.uid, "error", err)
			return
		}
		msgs = append(msgs, m)
	})
	q.archive.mu.Unlock()
	for _, m := range msgs {
		ch <- m
	}
	return nil
}

// fetch builds the FETCH answer of one ticket.
func (t *ticket) fetch(seq uint32, items []imap.FetchItem) (*imap.Message, error) {
	m := imap.NewMessage(seq, items)
	for _, item := range items {
		switch item {
		case imap.FetchEnvelope:
			hdr, _, err := t.header()
			if err != nil {
				return nil, err
			}
			if m.Envelope, err = backendutil.FetchEnvelope(hdr); err != nil {
				return nil, err
			}
		case imap.FetchBody, imap.FetchBodyStructure:
			hdr, body, err := t.header()
			if err != nil {
				return nil, err
			}
			if m.BodyStructure, err = backendutil.FetchBodyStructure(hdr, body, item == imap.FetchBodyStructure); err != nil {
				return nil, err
			}
		case imap.FetchFlags:
			m.Flags = slices.Clone(t.flags)
		case imap.FetchInternalDate:
			m.InternalDate = t.date
		case imap.FetchRFC822Size:
			m.Size = uint32(len(t.raw))
		case imap.FetchUid:
			m.Uid = t.uid
		default:
			section, err := imap.ParseBodySectionName(item)
			if err != nil {
				return nil, err
			}
			hdr, body, err := t.header()
			if err != nil {
				return nil, err
			}
			l, err := backendutil.FetchBodySection(hdr, body, section)
			if err != nil {
				return nil, err
			}
			m.Body[section] = l
		}
	}
	return m, nil
}

// header parses the ticket's header and returns it with the rest of the
// message.
func (t *ticket) header() (textproto.Header, io.Reader, error) {
	br := bufio.NewReader(bytes.NewReader(t.raw))
	hdr, err := textproto.ReadHeader(br)
	return hdr, br, err
}

// SearchMessages answers a SEARCH over the queue's tickets.
func (q *queue) SearchMessages(uid bool, c *imap.SearchCriteria) ([]uint32, error) {
	q.archive.mu.Lock()
	defer q.archive.mu.Unlock()
	var ids []uint32
	for i, t := range q.tickets {
		seq := uint32(i + 1)
		e, err := message.Read(bytes.NewReader(t.raw))
		if err != nil && !message.IsUnknownCharset(err) {
			continue
		}
		ok, err := backendutil.Match(e, seq, t.uid, t.date, t.flags, c)
		if err != nil || !ok {
			continue
		}
		if uid {
			ids = append(ids, t.uid)
		} else {
			ids = append(ids, seq)
		}
	}
	return ids, nil
}

// CreateMessage files a ticket that an agent appends, as the intake does.
func (q *queue) CreateMessage(flags []string, date time.Time, body imap.Literal) error {
	if uint32(body.Len()) > q.archive.cfg.MaxTicket {
		return backend.ErrTooBig
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	return q.archive.file(q, raw, flags, date)
}

// UpdateMessagesFlags sets, adds or removes flags on tickets; \Deleted is
// refused, since nothing leaves the archive.
func (q *queue) UpdateMessagesFlags(uid bool, seqSet *imap.SeqSet, op imap.FlagsOp, flags []string) error {
	if slices.Contains(flags, imap.DeletedFlag) && op != imap.RemoveFlags {
		return errReadOnly
	}
	q.archive.mu.Lock()
	var changed []*imap.Message
	q.each(uid, seqSet, func(seq uint32, t *ticket) {
		t.flags = backendutil.UpdateFlags(t.flags, op, flags)
		m := imap.NewMessage(seq, []imap.FetchItem{imap.FetchFlags, imap.FetchUid})
		m.Flags, m.Uid = slices.Clone(t.flags), t.uid
		changed = append(changed, m)
	})
	q.archive.mu.Unlock()
	// The server leaves the FETCH answers of a STORE to a backend that
	// sends updates: every client that has the queue open gets them.
	for _, m := range changed {
		q.archive.notify(&backend.MessageUpdate{Update: backend.NewUpdate("", q.name), Message: m})
	}
	return nil
}

// CopyMessages files copies of tickets into another queue: how an agent
// reassigns a ticket. The copies start unread.
func (q *queue) CopyMessages(uid bool, seqSet *imap.SeqSet, dest string) error {
	q.archive.mu.Lock()
	to, ok := q.archive.boxes[dest]
	var copies []*ticket
	if ok {
		q.each(uid, seqSet, func(_ uint32, t *ticket) { copies = append(copies, t) })
	}
	q.archive.mu.Unlock()
	if !ok {
		return backend.ErrNoSuchMailbox
	}
	for _, t := range copies {
		flags := slices.DeleteFunc(slices.Clone(t.flags), func(f string) bool { return f == imap.SeenFlag })
		if err := q.archive.file(to, t.raw, flags, t.date); err != nil {
			return err
		}
	}
	return nil
}

// Expunge is refused: tickets are never removed.
func (q *queue) Expunge() error { return errReadOnly }

// file adds a ticket to a queue under the next UID and tells the
// connected clients that the queue has one more message.
func (a *Archive) file(q *queue, raw []byte, flags []string, date time.Time) error {
	if _, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(raw))); err != nil {
		return fmt.Errorf("ticket header: %w", err)
	}
	if date.IsZero() {
		date = time.Now()
	}
	a.mu.Lock()
	q.lastUID++
	q.tickets = append(q.tickets, &ticket{uid: q.lastUID, date: date, flags: flags, raw: raw})
	st := imap.NewMailboxStatus(q.name, []imap.StatusItem{imap.StatusMessages})
	st.Messages = uint32(len(q.tickets))
	a.mu.Unlock()
	a.notify(&backend.MailboxUpdate{Update: backend.NewUpdate("", q.name), MailboxStatus: st})
	return nil
}

// notify hands an update to the IMAP server for the connected clients,
// dropping it when the server is that far behind: clients then see the
// change at their next command.
func (a *Archive) notify(u backend.Update) {
	select {
	case a.updates <- u:
	default:
		a.logger.Warn("imap update dropped", "mailbox", u.Mailbox())
	}
}

// handleIntake files the raw message of the body into a queue.
func (a *Archive) handleIntake(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	q, ok := a.boxes[r.PathValue("queue")]
	a.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("no queue %q", r.PathValue("queue")), http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(a.cfg.MaxTicket)))
	if err != nil {
		http.Error(w, fmt.Sprintf("ticket longer than %d bytes", a.cfg.MaxTicket), http.StatusRequestEntityTooLarge)
		return
	}
	if err := a.file(q, raw, nil, time.Time{}); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.logger.Info("ticket filed", "queue", q.name, "bytes", len(raw), "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusCreated)
}

// handleQueues answers each queue's ticket and unread counts, one queue a
// line.
func (a *Archive) handleQueues(w http.ResponseWriter, _ *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.boxes))
	for n := range a.boxes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		unread := 0
		for _, t := range a.boxes[n].tickets {
			if !slices.Contains(t.flags, imap.SeenFlag) {
				unread++
			}
		}
		fmt.Fprintf(w, "%s %d %d\n", n, len(a.boxes[n].tickets), unread)
	}
}
