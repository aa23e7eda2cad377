// Package smtpapp is the service of the search evaluation's tuning set: a
// mail sink (go-smtp, github.com/emersion/go-smtp) that keeps the messages
// it receives in memory for tests, with, at /mcp, the code tools and the
// tool enquiry over a source snapshot of the service and its dependencies.
// Command smtpserver runs it. Unlike the held-out sets, its set is looked
// at query by query while the ranking is tuned.
package smtpapp

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/emersion/go-smtp"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Message is one mail the sink received.
type Message struct {
	From string
	To   []string
	Data []byte
}

// Sink keeps the received messages.
type Sink struct {
	mu       sync.Mutex
	messages []Message
	domains  []string // recipient domains accepted; empty accepts all
}

// NewService returns the MCP server over snapshot (a directory written by
// mcpsnapshot; nil for none), the SMTP server (not yet listening) and the
// HTTP handler that serves MCP at /mcp.
func NewService(snapshot fs.FS, domains []string, logger *slog.Logger) (*mcp.Server, *smtp.Server, *Sink, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "smtpserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "smtpserver", Version: "0.1.0", Logger: logger})
	sink := &Sink{domains: domains}
	s := smtp.NewServer(sink)
	s.Domain = "localhost"
	s.MaxMessageBytes = 10 << 20
	s.MaxRecipients = 50
	s.AllowInsecureAuth = true
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	return srv, s, sink, mux, nil
}

// NewSession starts the session of one SMTP connection.
func (s *Sink) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{sink: s}, nil }

// Messages returns the messages received so far.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// session collects one message's envelope and data.
type session struct {
	sink *Sink
	msg  Message
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.msg.From = from
	return nil
}

// errRelayDenied refuses recipients of domains the sink does not accept.
var errRelayDenied = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "relaying denied"}

// Rcpt accepts a recipient of an accepted domain.
func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !acceptedDomain(to, ss.sink.domains) {
		return errRelayDenied
	}
	ss.msg.To = append(ss.msg.To, to)
	return nil
}

// acceptedDomain reports whether the address's domain is one of domains
// (any, when domains is empty).
func acceptedDomain(addr string, domains []string) bool {
	if len(domains) == 0 {
		return true
	}
	_, d, ok := strings.Cut(addr, "@")
	for _, x := range domains {
		if ok && strings.EqualFold(d, x) {
			return true
		}
	}
	return false
}

// Data stores the message.
func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if len(ss.msg.To) == 0 {
		return errors.New("no recipients")
	}
	ss.msg.Data = b
	ss.sink.mu.Lock()
	ss.sink.messages = append(ss.sink.messages, ss.msg)
	ss.sink.mu.Unlock()
	return nil
}

func (ss *session) Reset()        { ss.msg = Message{} }
func (ss *session) Logout() error { return nil }
