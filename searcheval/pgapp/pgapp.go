// Package pgapp is a real service of the search evaluation: a read-mostly
// SQL facade that lets BI tools (Grafana, Metabase, psql) query the
// service's in-memory metrics and inventory tables over the PostgreSQL wire
// protocol (psql-wire, github.com/jeroenrinzema/psql-wire, over
// jackc/pgx's pgtype; nobody here wrote them). Clients log in with a
// password, may upgrade to TLS, and can only SELECT, except for the users
// allowed to load inventory with COPY FROM STDIN. A small HTTP admin API
// lists the tables and sessions and cancels a running query. At /mcp, the
// service serves the code tools and the tool enquiry over a source snapshot
// of the service and its dependencies, as an adopter would serve them.
// Command pgserver runs it.
package pgapp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/jackc/pgx/v5/pgtype"
	wire "github.com/jeroenrinzema/psql-wire"
	"github.com/jeroenrinzema/psql-wire/codes"
	pgerror "github.com/jeroenrinzema/psql-wire/errors"
	"github.com/jeroenrinzema/psql-wire/pkg/buffer"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the SQL facade.
type Config struct {
	PGAddr          string            // address the wire protocol listens on; "" picks a free loopback port
	Users           map[string]string // user name to password
	Loaders         []string          // users allowed to COPY rows into inventory
	TLS             *tls.Config       // certificates offered on SSLRequest; nil for plaintext only
	RequireTLS      bool              // refuse clients that do not upgrade to TLS (needs TLS)
	MaxConns        int               // concurrent client connections; 0 for 32
	MaxRows         int               // rows one SELECT returns at most; 0 for 10000
	MaxMessageBytes int               // largest protocol message a client may send; 0 for 1 MiB
	ShutdownTimeout time.Duration     // how long Close waits for running queries; 0 for 5s
}

// Facade is the running wire protocol server and its tables.
type Facade struct {
	cfg      Config
	srv      *wire.Server
	ln       net.Listener
	logger   *slog.Logger
	nextPID  atomic.Int32
	mu       sync.Mutex
	tables   map[string]*table
	sessions map[int32]*session
}

// table is one in-memory table the facade serves.
type table struct {
	columns wire.Columns
	rows    [][]any
}

// session is one logged-in client; its running query can be cancelled.
type session struct {
	pid     int32
	secret  int32
	user    string
	remote  string
	since   time.Time
	cancel  context.CancelFunc // of the running query, nil when idle
	queries int
}

type sessionKey struct{}

// NewService starts the wire protocol server and returns the MCP server
// over snapshot (a directory written by mcpsnapshot; nil for none), the
// facade and the HTTP handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Facade, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "pgserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "pgserver", Version: "0.1.0", Logger: logger})
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 32
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = 10000
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = 1 << 20
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 5 * time.Second
	}
	if cfg.RequireTLS && cfg.TLS == nil {
		return nil, nil, nil, errors.New("pg: RequireTLS needs a TLS config")
	}
	f := &Facade{cfg: cfg, logger: logger, tables: builtinTables(), sessions: map[int32]*session{}}
	opts := []wire.OptionFn{
		wire.Logger(logger.With("component", "pgwire")),
		wire.SessionAuthStrategy(wire.ClearTextPassword(f.login)),
		wire.BackendKeyData(f.backendKey),
		wire.CancelRequest(f.cancelQuery),
		wire.SessionMiddleware(f.register),
		wire.CloseConn(f.unregister),
		wire.ErrorSanitizer(f.sanitize),
		wire.MessageBufferSize(cfg.MaxMessageBytes),
		wire.GlobalParameters(wire.Parameters{"TimeZone": "UTC", "DateStyle": "ISO, MDY", "integer_datetimes": "on"}),
		wire.Version("15.0"),
		wire.WithShutdownTimeout(cfg.ShutdownTimeout),
	}
	if cfg.TLS != nil {
		opts = append(opts, wire.TLSConfig(cfg.TLS))
	}
	if cfg.RequireTLS {
		opts = append(opts, wire.ClientAuth(tls.RequireAndVerifyClientCert))
	}
	var err error
	if f.srv, err = wire.NewServer(f.parse, opts...); err != nil {
		return nil, nil, nil, err
	}
	addr := cfg.PGAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("pg listen: %w", err)
	}
	f.ln = &limitListener{Listener: ln, slots: make(chan struct{}, cfg.MaxConns), logger: logger}
	go func() {
		if err := f.srv.Serve(f.ln); err != nil {
			logger.Error("pg serve", "error", err)
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/tables", f.handleTables)
	mux.HandleFunc("GET /admin/sessions", f.handleSessions)
	mux.HandleFunc("POST /admin/sessions/{pid}/cancel", f.handleCancel)
	return srv, f, mux, nil
}

// Addr is the address of the wire protocol listener.
func (f *Facade) Addr() string { return f.ln.Addr().String() }

// Close stops accepting connections and waits for running queries.
func (f *Facade) Close(ctx context.Context) error { return f.srv.Shutdown(ctx) }

// SetMetric records the current value of a metric in the metrics table.
func (f *Facade) SetMetric(name string, value float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tables["metrics"]
	for _, row := range t.rows {
		if row[0] == name {
			row[1], row[2] = value, time.Now().UTC()
			return
		}
	}
	t.rows = append(t.rows, []any{name, value, time.Now().UTC()})
}

// builtinTables are the tables the service exposes.
func builtinTables() map[string]*table {
	return map[string]*table{
		"metrics": {columns: wire.Columns{
			{Name: "name", Oid: pgtype.TextOID, Width: -1},
			{Name: "value", Oid: pgtype.Float8OID, Width: 8},
			{Name: "updated_at", Oid: pgtype.TimestamptzOID, Width: 8},
		}},
		"inventory": {columns: wire.Columns{
			{Name: "sku", Oid: pgtype.TextOID, Width: -1},
			{Name: "title", Oid: pgtype.TextOID, Width: -1},
			{Name: "quantity", Oid: pgtype.Int8OID, Width: 8},
			{Name: "warehouse", Oid: pgtype.TextOID, Width: -1},
		}},
	}
}

// login checks a client's password and opens its session.
func (f *Facade) login(ctx context.Context, database, user, password string) (context.Context, bool, error) {
	want, ok := f.cfg.Users[user]
	remote := fmt.Sprint(wire.RemoteAddress(ctx))
	if !ok || subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 {
		f.logger.Warn("pg login refused", "user", user, "database", database, "remote", remote)
		return ctx, false, nil
	}
	var secret [4]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return ctx, false, err
	}
	s := &session{pid: f.nextPID.Add(1), secret: int32(binary.BigEndian.Uint32(secret[:])), user: user, remote: remote, since: time.Now()}
	return context.WithValue(ctx, sessionKey{}, s), true, nil
}

// backendKey hands the client the key it cancels its queries with.
func (f *Facade) backendKey(ctx context.Context) (int32, int32) {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		return 0, 0
	}
	return s.pid, s.secret
}

// register adds a logged-in client to the sessions the admin API lists.
func (f *Facade) register(ctx context.Context) (context.Context, error) {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		return ctx, errors.New("pg: session without login")
	}
	f.mu.Lock()
	f.sessions[s.pid] = s
	f.mu.Unlock()
	app := wire.ClientParameters(ctx)[wire.ParamApplicationName]
	f.logger.Info("pg session opened", "pid", s.pid, "user", s.user, "application", app, "remote", s.remote)
	return ctx, nil
}

// unregister forgets a session when its connection ends.
func (f *Facade) unregister(ctx context.Context) error {
	if s, _ := ctx.Value(sessionKey{}).(*session); s != nil {
		f.mu.Lock()
		delete(f.sessions, s.pid)
		queries := s.queries
		f.mu.Unlock()
		f.logger.Info("pg session closed", "pid", s.pid, "user", s.user, "queries", queries)
	}
	return nil
}

// cancelQuery cancels the running query of the session a cancel request
// names, if its secret matches.
func (f *Facade) cancelQuery(_ context.Context, pid, secret int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[pid]
	if !ok || s.secret != secret {
		return fmt.Errorf("pg: cancel request for unknown backend %d", pid)
	}
	if s.cancel != nil {
		s.cancel()
		f.logger.Info("pg query cancelled", "pid", pid, "user", s.user)
	}
	return nil
}

// sanitize keeps the errors the facade raised on purpose (they carry a
// SQLSTATE) and hides every other one behind a reference in the log.
func (f *Facade) sanitize(err error) error {
	if pgerror.GetCode(err) != codes.Uncategorized {
		return err
	}
	ref := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	f.logger.Error("pg internal error", "ref", ref, "error", err)
	return pgerror.WithCode(fmt.Errorf("internal error (ref %s)", ref), codes.Internal)
}

// sqlError is an error the client sees with its SQLSTATE and a hint.
func sqlError(code codes.Code, hint, format string, args ...any) error {
	err := pgerror.WithCode(fmt.Errorf(format, args...), code)
	if hint != "" {
		err = pgerror.WithHint(err, hint)
	}
	return err
}

// parse turns one query into the statement that answers it: SELECT from a
// table, SHOW TABLES, COPY into inventory, and the session statements BI
// tools send on connect, which are accepted and ignored.
func (f *Facade) parse(ctx context.Context, q wire.Query) (wire.PreparedStatements, error) {
	sql := strings.TrimSuffix(strings.TrimSpace(q.Query), ";")
	words := strings.Fields(strings.ToLower(sql))
	f.logger.Debug("pg query", "sql", sql, "simple", q.SimpleQuery)
	switch {
	case len(words) == 0:
		return nil, sqlError(codes.Syntax, "", "empty statement")
	case slices.Contains([]string{"set", "begin", "commit", "rollback", "discard"}, words[0]):
		tag := strings.ToUpper(words[0])
		return wire.Prepared(wire.NewStatement(func(ctx context.Context, w wire.DataWriter, _ []wire.Parameter) error {
			return w.Complete(tag)
		})), nil
	case len(words) == 2 && words[0] == "show" && words[1] == "tables":
		return wire.Prepared(wire.NewStatement(f.showTables, wire.WithColumns(wire.Columns{
			{Name: "table_name", Oid: pgtype.TextOID, Width: -1},
			{Name: "row_count", Oid: pgtype.Int8OID, Width: 8},
		}))), nil
	case words[0] == "copy":
		return f.parseCopy(ctx, words)
	case words[0] == "select":
		return f.parseSelect(words, wire.ParseParameters(sql))
	case slices.Contains([]string{"insert", "update", "delete", "create", "drop", "alter", "truncate"}, words[0]):
		return nil, sqlError(codes.ReadOnlySQLTransaction, "the tables are read-only; load inventory with COPY", "cannot execute %s: the facade is read-only", strings.ToUpper(words[0]))
	}
	return nil, sqlError(codes.FeatureNotSupported, "try SELECT * FROM metrics", "statement %q is not supported", words[0])
}

// showTables answers SHOW TABLES.
func (f *Facade) showTables(ctx context.Context, w wire.DataWriter, _ []wire.Parameter) error {
	f.mu.Lock()
	var rows [][]any
	for name, t := range f.tables {
		rows = append(rows, []any{name, int64(len(t.rows))})
	}
	f.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].(string) < rows[j][0].(string) })
	if err := wire.WriteRows(w, rows); err != nil {
		return err
	}
	return w.Complete(fmt.Sprintf("SELECT %d", len(rows)))
}

// parseSelect prepares SELECT * FROM table [WHERE column = $1] [LIMIT n].
func (f *Facade) parseSelect(words []string, params []uint32) (wire.PreparedStatements, error) {
	if len(words) < 4 || words[1] != "*" || words[2] != "from" {
		return nil, sqlError(codes.FeatureNotSupported, "only SELECT * FROM <table> [WHERE <column> = $1] [LIMIT <n>] is supported", "unsupported SELECT")
	}
	f.mu.Lock()
	t, ok := f.tables[words[3]]
	f.mu.Unlock()
	if !ok {
		return nil, sqlError(codes.UndefinedTable, "SHOW TABLES lists the tables", "relation %q does not exist", words[3])
	}
	limit, filter, rest := f.cfg.MaxRows, -1, words[4:]
	if len(rest) >= 4 && rest[0] == "where" && rest[2] == "=" && rest[3] == "$1" {
		if filter = slices.IndexFunc(t.columns, func(c wire.Column) bool { return c.Name == rest[1] }); filter < 0 {
			return nil, sqlError(codes.UndefinedColumn, "", "column %q does not exist", rest[1])
		}
		rest = rest[4:]
	}
	if len(rest) == 2 && rest[0] == "limit" {
		n, err := strconv.Atoi(rest[1])
		if err != nil || n < 0 {
			return nil, sqlError(codes.InvalidParameterValue, "", "LIMIT must be a non-negative integer, not %q", rest[1])
		}
		limit = min(n, limit)
	} else if len(rest) != 0 {
		return nil, sqlError(codes.Syntax, "", "syntax error at or near %q", rest[0])
	}
	run := func(ctx context.Context, w wire.DataWriter, args []wire.Parameter) error {
		return f.selectRows(ctx, w, t, filter, args, limit)
	}
	return wire.Prepared(wire.NewStatement(run, wire.WithColumns(t.columns), wire.WithParameters(params))), nil
}

// selectRows writes the rows of t that match the filter, up to limit; the
// session's cancel request stops it.
func (f *Facade) selectRows(ctx context.Context, w wire.DataWriter, t *table, filter int, args []wire.Parameter, limit int) error {
	ctx, done := f.track(ctx)
	defer done()
	var want string
	if filter >= 0 {
		if len(args) != 1 {
			return sqlError(codes.Syntax, "", "bind message supplies %d parameters, but the statement requires 1", len(args))
		}
		want = string(args[0].Value())
	}
	f.mu.Lock()
	var rows [][]any
	for _, row := range t.rows {
		if len(rows) == limit {
			break
		}
		if filter < 0 || fmt.Sprint(row[filter]) == want {
			rows = append(rows, slices.Clone(row))
		}
	}
	f.mu.Unlock()
	if ctx.Err() != nil {
		return sqlError(codes.QueryCanceled, "", "canceling statement due to user request")
	}
	if len(rows) == 0 {
		return w.Empty()
	}
	if err := wire.WriteRows(w, rows); err != nil {
		return err
	}
	return w.Complete(fmt.Sprintf("SELECT %d", w.Written()))
}

// parseCopy prepares COPY inventory FROM STDIN for the loaders.
func (f *Facade) parseCopy(ctx context.Context, words []string) (wire.PreparedStatements, error) {
	if len(words) < 4 || words[1] != "inventory" || words[2] != "from" || words[3] != "stdin" {
		return nil, sqlError(codes.FeatureNotSupported, "", "only COPY inventory FROM STDIN is supported")
	}
	if user := wire.AuthenticatedUsername(ctx); !slices.Contains(f.cfg.Loaders, user) {
		return nil, sqlError(codes.InsufficientPrivilege, "ask an operator to add you to the loaders", "permission denied for table inventory")
	}
	f.mu.Lock()
	columns := f.tables["inventory"].columns
	f.mu.Unlock()
	return wire.Prepared(wire.NewStatement(f.copyInventory, wire.WithColumns(columns))), nil
}

// copyInventory reads CSV rows from the client and replaces the inventory
// with them once the copy completes.
func (f *Facade) copyInventory(ctx context.Context, w wire.DataWriter, _ []wire.Parameter) error {
	cr, err := w.CopyIn(wire.TextFormat)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	rd, err := wire.NewTextColumnReader(ctx, cr, csv.NewReader(&buf), &buf, "")
	if err != nil {
		return err
	}
	var rows [][]any
	for {
		row, err := rd.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if len(rows) == f.cfg.MaxRows {
			return sqlError(codes.ProgramLimitExceeded, "", "COPY of more than %d rows refused", f.cfg.MaxRows)
		}
		rows = append(rows, row)
	}
	f.mu.Lock()
	f.tables["inventory"].rows = rows
	f.mu.Unlock()
	f.logger.Info("pg inventory loaded", "user", wire.AuthenticatedUsername(ctx), "rows", len(rows))
	return w.Complete(fmt.Sprintf("COPY %d", len(rows)))
}

// track makes the session's running query cancellable and counts it.
func (f *Facade) track(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		return ctx, cancel
	}
	f.mu.Lock()
	s.cancel = cancel
	s.queries++
	f.mu.Unlock()
	return ctx, func() {
		f.mu.Lock()
		s.cancel = nil
		f.mu.Unlock()
		cancel()
	}
}

// limitListener refuses connections beyond the number of slots with the
// error PostgreSQL sends when it has too many clients.
type limitListener struct {
	net.Listener
	slots  chan struct{}
	logger *slog.Logger
}

// Accept returns the next connection that fits in a free slot.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			l.logger.Warn("pg connection refused: too many clients", "remote", c.RemoteAddr().String(), "max", cap(l.slots))
			tooMany := pgerror.WithSeverity(pgerror.WithCode(errors.New("sorry, too many clients already"), codes.TooManyConnections), pgerror.LevelFatal)
			_ = wire.WriteUnterminatedError(buffer.NewWriter(l.logger, c), tooMany)
			c.Close()
		}
	}
}

// slotConn gives its slot back once when it closes.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and frees its slot.
func (c *slotConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// sessionInfo is one session in the answer of the sessions endpoint.
type sessionInfo struct {
	PID     int32     `json:"pid"`
	User    string    `json:"user"`
	Remote  string    `json:"remote"`
	Since   time.Time `json:"since"`
	Queries int       `json:"queries"`
	Running bool      `json:"running"`
}

// handleSessions lists the logged-in clients as JSON.
func (f *Facade) handleSessions(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	out := []sessionInfo{}
	for _, s := range f.sessions {
		out = append(out, sessionInfo{PID: s.pid, User: s.user, Remote: s.remote, Since: s.since, Queries: s.queries, Running: s.cancel != nil})
	}
	f.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	writeJSON(w, f.logger, out)
}

// handleTables lists the tables and their row counts as JSON.
func (f *Facade) handleTables(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	out := map[string]int{}
	for name, t := range f.tables {
		out[name] = len(t.rows)
	}
	f.mu.Unlock()
	writeJSON(w, f.logger, out)
}

// handleCancel cancels a session's running query from the admin API.
func (f *Facade) handleCancel(w http.ResponseWriter, r *http.Request) {
	pid, err := strconv.ParseInt(r.PathValue("pid"), 10, 32)
	if err != nil {
		http.Error(w, "pid must be an integer", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	s, ok := f.sessions[int32(pid)]
	running := ok && s.cancel != nil
	if running {
		s.cancel()
	}
	f.mu.Unlock()
	if !ok {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	f.logger.Info("pg query cancelled by admin", "pid", pid, "running", running, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, logger *slog.Logger, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		logger.Warn("admin answer", "error", err)
	}
}
