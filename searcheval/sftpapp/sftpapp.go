// Package sftpapp is a real service of the search evaluation: a drop box
// where partners upload files over SFTP (pkg/sftp, github.com/pkg/sftp, its
// request server, over golang.org/x/crypto/ssh; nobody here wrote them).
// Each partner logs in with a password and sees an inbox of its own, kept in
// memory up to a quota; uploads cannot be deleted or renamed by partners,
// only through a small HTTP admin API. At /mcp, the service serves the code
// tools and the tool enquiry over a source snapshot of the service and its
// dependencies, as an adopter would serve them. Command sftpserver runs it.
package sftpapp

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the drop box.
type Config struct {
	SSHAddr    string            // address SFTP listens on; "" picks a free loopback port
	Partners   map[string]string // partner name to password
	QuotaBytes int64             // bytes one partner may store at most; 0 for 100 MiB
	MaxFiles   int               // files one partner may store at most; 0 for 1000
}

// Box is the running SFTP server and the partners' uploads.
type Box struct {
	ln       net.Listener
	ssh      *ssh.ServerConfig
	partners map[string]string
	quota    int64
	maxFiles int
	logger   *slog.Logger
	mu       sync.Mutex
	files    map[string]map[string]*upload // by partner, then by path
}

// upload is one file a partner sent.
type upload struct {
	mu       sync.Mutex
	name     string
	data     []byte
	modified time.Time
}

// NewService starts the SFTP server and returns the MCP server over snapshot
// (a directory written by mcpsnapshot; nil for none), the drop box and the
// HTTP handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Box, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "sftpserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "sftpserver", Version: "0.1.0", Logger: logger})
	b := &Box{quota: cfg.QuotaBytes, maxFiles: cfg.MaxFiles, logger: logger, files: map[string]map[string]*upload{}}
	if b.quota <= 0 {
		b.quota = 100 << 20
	}
	if b.maxFiles <= 0 {
		b.maxFiles = 1000
	}
	b.partners = cfg.Partners
	b.ssh = &ssh.ServerConfig{PasswordCallback: b.checkPassword, MaxAuthTries: 3}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	b.ssh.AddHostKey(signer)
	addr := cfg.SSHAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if b.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, nil, nil, fmt.Errorf("sftp listen: %w", err)
	}
	go b.accept()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/uploads/{partner}", b.handleList)
	mux.HandleFunc("DELETE /admin/uploads/{partner}/{name}", b.handleDelete)
	return srv, b, mux, nil
}

// Addr is the address of the SFTP listener.
func (b *Box) Addr() string { return b.ln.Addr().String() }

// Close stops accepting connections.
func (b *Box) Close() error { return b.ln.Close() }

// checkPassword lets a partner in with its password.
func (b *Box) checkPassword(c ssh.ConnMetadata, password []byte) (*ssh.Permissions, error) {
	want, ok := b.partners[c.User()]
	if !ok || subtle.ConstantTimeCompare([]byte(want), password) != 1 {
		b.logger.Warn("sftp login refused", "partner", c.User(), "remote", c.RemoteAddr().String())
		return nil, errors.New("wrong partner name or password")
	}
	return &ssh.Permissions{}, nil
}

// accept serves each connection in its own goroutine until the listener
// closes.
func (b *Box) accept() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		go b.serveConn(c)
	}
}

// serveConn runs the SSH handshake and serves the sftp subsystem of each
// session channel.
func (b *Box) serveConn(c net.Conn) {
	sc, chans, reqs, err := ssh.NewServerConn(c, b.ssh)
	if err != nil {
		b.logger.Debug("ssh handshake", "remote", c.RemoteAddr().String(), "error", err)
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, requests, err := nc.Accept()
		if err != nil {
			continue
		}
		go b.serveSession(sc.User(), ch, requests)
	}
}

// serveSession waits for the session's sftp subsystem request and serves
// the partner's inbox on it; any other request is refused.
func (b *Box) serveSession(partner string, ch ssh.Channel, requests <-chan *ssh.Request) {
	defer ch.Close()
	for req := range requests {
		if req.Type != "subsystem" || len(req.Payload) < 4 || string(req.Payload[4:]) != "sftp" {
			req.Reply(false, nil)
			continue
		}
		req.Reply(true, nil)
		rs := sftp.NewRequestServer(ch, b.handlers(partner), sftp.WithStartDirectory("/inbox"))
		if err := rs.Serve(); err != nil && err != io.EOF {
			b.logger.Info("sftp session ended", "partner", partner, "error", err)
		}
		return
	}
}

// inbox serves one partner's uploads to the request server.
type inbox struct {
	b       *Box
	partner string
}

// handlers are the request server's handlers over a partner's inbox.
func (b *Box) handlers(partner string) sftp.Handlers {
	in := &inbox{b: b, partner: partner}
	return sftp.Handlers{FileGet: in, FilePut: in, FileCmd: in, FileList: in}
}

// Fileread opens an upload for reading.
func (in *inbox) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	in.b.mu.Lock()
	defer in.b.mu.Unlock()
	u, ok := in.b.files[in.partner][r.Filepath]
	if !ok {
		return nil, os.ErrNotExist
	}
	return u, nil
}

// Filewrite creates an upload in /inbox, or reopens the partner's own, as
// long as the partner stays within its file count.
func (in *inbox) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	if path.Dir(r.Filepath) != "/inbox" {
		return nil, sftp.ErrSSHFxPermissionDenied
	}
	in.b.mu.Lock()
	defer in.b.mu.Unlock()
	files := in.b.files[in.partner]
	if files == nil {
		files = map[string]*upload{}
		in.b.files[in.partner] = files
	}
	if u, ok := files[r.Filepath]; ok {
		return &quotaWriter{u: u, in: in}, nil
	}
	if len(files) >= in.b.maxFiles {
		in.b.logger.Warn("sftp file limit reached", "partner", in.partner, "files", len(files))
		return nil, sftp.ErrSSHFxFailure
	}
	u := &upload{name: r.Filepath, modified: time.Now()}
	files[r.Filepath] = u
	in.b.logger.Info("sftp upload", "partner", in.partner, "file", r.Filepath)
	return &quotaWriter{u: u, in: in}, nil
}

// Filecmd refuses every change but making the inbox: partners cannot
// delete, rename or link what they sent.
func (in *inbox) Filecmd(r *sftp.Request) error {
	if r.Method == "Mkdir" && r.Filepath == "/inbox" {
		return nil
	}
	in.b.logger.Info("sftp command refused", "partner", in.partner, "method", r.Method, "file", r.Filepath)
	return sftp.ErrSSHFxPermissionDenied
}

// Filelist lists /inbox, or stats one file.
func (in *inbox) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	in.b.mu.Lock()
	defer in.b.mu.Unlock()
	var out listing
	switch r.Method {
	case "List":
		if r.Filepath != "/inbox" {
			return nil, os.ErrNotExist
		}
		for _, u := range in.b.files[in.partner] {
			out = append(out, u.info())
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	case "Stat":
		if r.Filepath == "/inbox" || r.Filepath == "/" {
			return listing{dirInfo(path.Base(r.Filepath))}, nil
		}
		u, ok := in.b.files[in.partner][r.Filepath]
		if !ok {
			return nil, os.ErrNotExist
		}
		out = listing{u.info()}
	default:
		return nil, sftp.ErrSSHFxOpUnsupported
	}
	return out, nil
}

// used is the bytes a partner stores; the caller holds b.mu.
func (b *Box) used(partner string) int64 {
	var n int64
	for _, u := range b.files[partner] {
		u.mu.Lock()
		n += int64(len(u.data))
		u.mu.Unlock()
	}
	return n
}

// quotaWriter writes into an upload while the partner stays within its
// quota.
type quotaWriter struct {
	u  *upload
	in *inbox
}

// WriteAt writes p at off, refusing what would take the partner over its
// quota.
func (w *quotaWriter) WriteAt(p []byte, off int64) (int, error) {
	w.in.b.mu.Lock()
	used := w.in.b.used(w.in.partner)
	w.in.b.mu.Unlock()
	w.u.mu.Lock()
	defer w.u.mu.Unlock()
	end := off + int64(len(p))
	if grow := end - int64(len(w.u.data)); grow > 0 && used+grow > w.in.b.quota {
		w.in.b.logger.Warn("sftp quota exceeded", "partner", w.in.partner, "used", used, "quota", w.in.b.quota)
		return 0, fmt.Errorf("quota of %d bytes exceeded", w.in.b.quota)
	}
	if end > int64(len(w.u.data)) {
		w.u.data = append(w.u.data, make([]byte, end-int64(len(w.u.data)))...)
	}
	copy(w.u.data[off:], p)
	w.u.modified = time.Now()
	return len(p), nil
}

// ReadAt reads an upload at off.
func (u *upload) ReadAt(p []byte, off int64) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if off >= int64(len(u.data)) {
		return 0, io.EOF
	}
	n := copy(p, u.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// info is the file information of an upload.
func (u *upload) info() os.FileInfo {
	u.mu.Lock()
	defer u.mu.Unlock()
	return fileInfo{name: path.Base(u.name), size: int64(len(u.data)), mode: 0o640, modified: u.modified}
}

// fileInfo is the os.FileInfo of an upload or of a directory.
type fileInfo struct {
	name     string
	size     int64
	mode     os.FileMode
	modified time.Time
}

func dirInfo(name string) fileInfo {
	return fileInfo{name: name, mode: os.ModeDir | 0o750, modified: time.Now()}
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() os.FileMode  { return f.mode }
func (f fileInfo) ModTime() time.Time { return f.modified }
func (f fileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fileInfo) Sys() any           { return nil }

// listing is a directory listing the request server pages through.
type listing []os.FileInfo

// ListAt copies the entries from offset on into ls.
func (l listing) ListAt(ls []os.FileInfo, offset int64) (int, error) {
	if offset >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(ls, l[offset:])
	if n < len(ls) {
		return n, io.EOF
	}
	return n, nil
}

// uploadInfo is one upload in the answer of the uploads endpoint.
type uploadInfo struct {
	Name     string    `json:"name"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
}

// handleList answers a partner's uploads as JSON.
func (b *Box) handleList(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	out := []uploadInfo{}
	for _, u := range b.files[r.PathValue("partner")] {
		fi := u.info()
		out = append(out, uploadInfo{Name: fi.Name(), Size: fi.Size(), Modified: fi.ModTime()})
	}
	b.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		b.logger.Warn("uploads", "error", err)
	}
}

// handleDelete removes a partner's upload once it has been processed.
func (b *Box) handleDelete(w http.ResponseWriter, r *http.Request) {
	partner, name := r.PathValue("partner"), r.PathValue("name")
	if strings.Contains(name, "/") {
		http.Error(w, "name must not hold '/'", http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	_, ok := b.files[partner]["/inbox/"+name]
	delete(b.files[partner], "/inbox/"+name)
	b.mu.Unlock()
	if !ok {
		http.Error(w, "no such upload", http.StatusNotFound)
		return
	}
	b.logger.Info("upload deleted by admin", "partner", partner, "file", name, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
