// Package davapp is a real service of the search evaluation: a team's
// calendar and file server (emersion/go-webdav, github.com/emersion/go-webdav,
// with its CalDAV package and the go-ical codec; nobody here wrote them)
// that keeps each user's calendars in memory behind HTTP basic
// authentication, shares a directory over WebDAV (read-only if asked), with
// a small HTTP admin API and, at /mcp, the code tools and the tool enquiry
// over a source snapshot of the service and its dependencies, as an adopter
// would serve them. Command davserver runs it.
package davapp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	"github.com/emersion/go-webdav/caldav"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the server.
type Config struct {
	Users         map[string]string // user name to password of basic authentication
	FilesDir      string            // directory shared under /files/; "" shares none
	ReadOnlyFiles bool              // the shared directory can be read but not changed
	MaxEvents     int               // events one calendar holds at most; 0 for 1000
	MaxEventSize  int64             // bytes of one event at most; 0 for 64 KiB
}

// userKey is the context key of the authenticated user name.
type userKey struct{}

// Store is every user's calendars and their events, in memory.
type Store struct {
	mu        sync.Mutex
	calendars map[string]*calendar // by path, such as /dav/alice/calendars/work/
	maxEvents int
	maxSize   int64
	logger    *slog.Logger
}

// calendar is one calendar and its events.
type calendar struct {
	owner  string
	info   caldav.Calendar
	events map[string]caldav.CalendarObject // by path
}

// NewService returns the MCP server over snapshot (a directory written by
// mcpsnapshot; nil for none), the calendar store and the HTTP handler that
// serves CalDAV under /dav/, the shared files under /files/, the admin API
// and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Store, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "davserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "davserver", Version: "0.1.0", Logger: logger})
	st := &Store{calendars: map[string]*calendar{}, maxEvents: cfg.MaxEvents, maxSize: cfg.MaxEventSize, logger: logger}
	if st.maxEvents <= 0 {
		st.maxEvents = 1000
	}
	if st.maxSize <= 0 {
		st.maxSize = 64 << 10
	}
	for user := range cfg.Users {
		if user == "" || strings.ContainsAny(user, "/ ") {
			return nil, nil, nil, fmt.Errorf("user %q: empty or holds '/' or a space", user)
		}
		p := homeSet(user) + "default/"
		st.calendars[p] = &calendar{owner: user, events: map[string]caldav.CalendarObject{},
			info: caldav.Calendar{Path: p, Name: "Default", MaxResourceSize: st.maxSize, SupportedComponentSet: []string{ical.CompEvent}}}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	dav := &caldav.Handler{Backend: st, Prefix: "/dav"}
	mux.Handle("/dav/", basicAuth(cfg.Users, logger, dav))
	mux.Handle("/.well-known/caldav", basicAuth(cfg.Users, logger, dav))
	if cfg.FilesDir != "" {
		var files webdav.FileSystem = webdav.LocalFileSystem(cfg.FilesDir)
		if cfg.ReadOnlyFiles {
			files = readOnly{files}
		}
		mux.Handle("/files/", basicAuth(cfg.Users, logger, http.StripPrefix("/files", &webdav.Handler{FileSystem: files})))
	}
	mux.HandleFunc("GET /admin/calendars", st.handleList)
	mux.HandleFunc("DELETE /admin/calendars/{user}/{name}", st.handleDrop)
	return srv, st, mux, nil
}

// basicAuth lets through the requests whose basic credentials are a
// user's, with the user's name in their context, and answers 401 to the
// others.
func basicAuth(users map[string]string, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		want, known := users[user]
		if !ok || !known || subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 {
			if ok {
				logger.Warn("dav login refused", "user", user, "remote", r.RemoteAddr)
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="team calendar"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

// userOf returns the authenticated user of a request's context.
func userOf(ctx context.Context) (string, error) {
	user, ok := ctx.Value(userKey{}).(string)
	if !ok {
		return "", webdav.NewHTTPError(http.StatusUnauthorized, fmt.Errorf("no authenticated user"))
	}
	return user, nil
}

// homeSet is the path of a user's calendar home.
func homeSet(user string) string { return "/dav/" + user + "/calendars/" }

// CurrentUserPrincipal is the path of the authenticated user's principal.
func (st *Store) CurrentUserPrincipal(ctx context.Context) (string, error) {
	user, err := userOf(ctx)
	if err != nil {
		return "", err
	}
	return "/dav/" + user + "/", nil
}

// CalendarHomeSetPath is the path under which the user's calendars are.
func (st *Store) CalendarHomeSetPath(ctx context.Context) (string, error) {
	user, err := userOf(ctx)
	if err != nil {
		return "", err
	}
	return homeSet(user), nil
}

// CreateCalendar adds a calendar under the user's home.
func (st *Store) CreateCalendar(ctx context.Context, cal *caldav.Calendar) error {
	user, err := userOf(ctx)
	if err != nil {
		return err
	}
	p := dirPath(cal.Path)
	if !strings.HasPrefix(p, homeSet(user)) {
		return webdav.NewHTTPError(http.StatusForbidden, fmt.Errorf("calendars go under %s", homeSet(user)))
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.calendars[p]; ok {
		return webdav.NewHTTPError(http.StatusMethodNotAllowed, fmt.Errorf("calendar %s exists", p))
	}
	info := *cal
	info.Path, info.MaxResourceSize = p, st.maxSize
	st.calendars[p] = &calendar{owner: user, info: info, events: map[string]caldav.CalendarObject{}}
	st.logger.Info("calendar created", "user", user, "path", p)
	return nil
}

// ListCalendars returns the user's calendars, sorted by path.
func (st *Store) ListCalendars(ctx context.Context) ([]caldav.Calendar, error) {
	user, err := userOf(ctx)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []caldav.Calendar
	for _, c := range st.calendars {
		if c.owner == user {
			out = append(out, c.info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// GetCalendar returns the user's calendar at path.
func (st *Store) GetCalendar(ctx context.Context, p string) (*caldav.Calendar, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c, err := st.calendarAt(ctx, dirPath(p))
	if err != nil {
		return nil, err
	}
	info := c.info
	return &info, nil
}

// calendarAt returns the user's calendar at the path of a collection; the
// caller holds st.mu.
func (st *Store) calendarAt(ctx context.Context, p string) (*calendar, error) {
	user, err := userOf(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := st.calendars[p]
	if !ok || c.owner != user {
		return nil, webdav.NewHTTPError(http.StatusNotFound, fmt.Errorf("no calendar %s", p))
	}
	return c, nil
}

// GetCalendarObject returns the event at path.
func (st *Store) GetCalendarObject(ctx context.Context, p string, req *caldav.CalendarCompRequest) (*caldav.CalendarObject, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c, err := st.calendarAt(ctx, path.Dir(p)+"/")
	if err != nil {
		return nil, err
	}
	co, ok := c.events[p]
	if !ok {
		return nil, webdav.NewHTTPError(http.StatusNotFound, fmt.Errorf("no event %s", p))
	}
	return &co, nil
}

// ListCalendarObjects returns the events of the calendar at path, sorted
// by path.
func (st *Store) ListCalendarObjects(ctx context.Context, p string, req *caldav.CalendarCompRequest) ([]caldav.CalendarObject, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c, err := st.calendarAt(ctx, dirPath(p))
	if err != nil {
		return nil, err
	}
	out := make([]caldav.CalendarObject, 0, len(c.events))
	for _, co := range c.events {
		out = append(out, co)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// QueryCalendarObjects returns the events of the calendar at path that
// match the query's filter (a time range, properties, components).
func (st *Store) QueryCalendarObjects(ctx context.Context, p string, query *caldav.CalendarQuery) ([]caldav.CalendarObject, error) {
	all, err := st.ListCalendarObjects(ctx, p, &query.CompRequest)
	if err != nil {
		return nil, err
	}
	return caldav.Filter(query, all)
}

// PutCalendarObject stores an event: it must hold one kind of component
// and one UID, fit the size and count limits, and meet the request's
// If-Match and If-None-Match conditions.
func (st *Store) PutCalendarObject(ctx context.Context, p string, cal *ical.Calendar, opts *caldav.PutCalendarObjectOptions) (*caldav.CalendarObject, error) {
	if _, _, err := caldav.ValidateCalendarObject(cal); err != nil {
		return nil, caldav.NewPreconditionError(caldav.PreconditionValidCalendarObjectResource)
	}
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		return nil, webdav.NewHTTPError(http.StatusBadRequest, err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if int64(buf.Len()) > st.maxSize {
		return nil, caldav.NewPreconditionError(caldav.PreconditionMaxResourceSize)
	}
	c, err := st.calendarAt(ctx, path.Dir(p)+"/")
	if err != nil {
		return nil, err
	}
	old, exists := c.events[p]
	if opts.IfNoneMatch.IsWildcard() && exists {
		return nil, webdav.NewHTTPError(http.StatusPreconditionFailed, fmt.Errorf("event %s exists", p))
	}
	if opts.IfMatch.IsSet() {
		etag, err := opts.IfMatch.ETag()
		if err != nil || !exists || etag != old.ETag {
			return nil, webdav.NewHTTPError(http.StatusPreconditionFailed, fmt.Errorf("event %s changed", p))
		}
	}
	if !exists && len(c.events) >= st.maxEvents {
		st.logger.Warn("calendar full", "path", c.info.Path, "events", len(c.events))
		return nil, webdav.NewHTTPError(http.StatusInsufficientStorage, fmt.Errorf("calendar holds %d events at most", st.maxEvents))
	}
	sum := sha256.Sum256(buf.Bytes())
	co := caldav.CalendarObject{Path: p, ModTime: time.Now().UTC(), ContentLength: int64(buf.Len()),
		ETag: hex.EncodeToString(sum[:8]), Data: cal}
	c.events[p] = co
	return &co, nil
}

// DeleteCalendarObject removes the event at path.
func (st *Store) DeleteCalendarObject(ctx context.Context, p string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	c, err := st.calendarAt(ctx, path.Dir(p)+"/")
	if err != nil {
		return err
	}
	if _, ok := c.events[p]; !ok {
		return webdav.NewHTTPError(http.StatusNotFound, fmt.Errorf("no event %s", p))
	}
	delete(c.events, p)
	return nil
}

// dirPath is p cleaned, with a trailing slash, as collections are keyed.
func dirPath(p string) string { return strings.TrimSuffix(path.Clean(p), "/") + "/" }

// readOnly is a file system whose files can be read but not changed.
type readOnly struct{ webdav.FileSystem }

// errReadOnly is the error of every change to a read-only share.
var errReadOnly = webdav.NewHTTPError(http.StatusForbidden, fmt.Errorf("the share is read-only"))

func (readOnly) Create(context.Context, string, io.ReadCloser) (*webdav.FileInfo, bool, error) {
	return nil, false, errReadOnly
}
func (readOnly) RemoveAll(context.Context, string) error { return errReadOnly }
func (readOnly) Mkdir(context.Context, string) error     { return errReadOnly }
func (readOnly) Copy(context.Context, string, string, *webdav.CopyOptions) (bool, error) {
	return false, errReadOnly
}
func (readOnly) Move(context.Context, string, string, *webdav.MoveOptions) (bool, error) {
	return false, errReadOnly
}

// calendarInfo is one calendar in the answer of the calendars endpoint.
type calendarInfo struct {
	Owner  string `json:"owner"`
	Path   string `json:"path"`
	Name   string `json:"name"`
	Events int    `json:"events"`
}

// handleList answers every user's calendars with their event counts, as
// JSON.
func (st *Store) handleList(w http.ResponseWriter, r *http.Request) {
	st.mu.Lock()
	out := make([]calendarInfo, 0, len(st.calendars))
	for _, c := range st.calendars {
		out = append(out, calendarInfo{Owner: c.owner, Path: c.info.Path, Name: c.info.Name, Events: len(c.events)})
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		st.logger.Warn("calendars", "error", err)
	}
}

// handleDrop deletes a user's calendar and its events.
func (st *Store) handleDrop(w http.ResponseWriter, r *http.Request) {
	p := homeSet(r.PathValue("user")) + r.PathValue("name") + "/"
	st.mu.Lock()
	c, ok := st.calendars[p]
	delete(st.calendars, p)
	st.mu.Unlock()
	if !ok {
		http.Error(w, "no such calendar", http.StatusNotFound)
		return
	}
	st.logger.Info("calendar dropped by admin", "path", p, "events", len(c.events), "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
