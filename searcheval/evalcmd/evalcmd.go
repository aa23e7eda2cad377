// Package evalcmd is the frame that the commands of the search evaluation's
// services share (redisserver, mqttserver, turnserver, smtpserver,
// sshserver, modbusserver, ldapserver, davserver, dhcpserver, sftpserver,
// dnsserver, proxyserver, pgserver, coapserver, raftserver, sipserver,
// snmpserver, gossipserver, imapserver, lspserver):
// the flags every one of them has (-addr, -snapshot, -eval, -check), the
// logger, the evaluation run in the service's own binary, and the HTTP
// server of its admin API and /mcp.
//
// A command defines its own flags after New, parses them, builds its
// service over Frame.Snapshot and hands the MCP server and the HTTP
// handler to Frame.Serve:
//
//	f := evalcmd.New("redisserver", "127.0.0.1:9001")
//	redis := flag.String("redis", "127.0.0.1:6379", "Redis listen `address`")
//	flag.Parse()
//	if f.Evaluating() {
//		*redis = "127.0.0.1:0"
//	}
//	srv, svc, h, err := redisapp.NewService(f.Snapshot(), cfg, f.Logger)
//	f.Check(err)
//	defer svc.Close()
//	f.Serve(srv, redisapp.Grants, h, "redis", svc.Addr())
package evalcmd

import (
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/staticembed"
	"github.com/embedmcp/mcp/testsupport/searcheval"
)

// EmbedderEnv names the environment variable that chooses the Embedder of
// the services' catalogs (CatalogOptions): unset or empty, words alone;
// "staticembed", the table compiled into staticembed; "table:FILE", a
// staticembed table file (one the embedtable tooling built); "http", a
// codetools.HTTPEmbedder calling the embeddings endpoint EmbedURLEnv
// names, with the model EmbedModelEnv names for queries and the one
// EmbedDocumentModelEnv names, when set, for declarations (a snapshot's
// vectors.bin written by mcpsnapshot with the same -embed-model and
// -embed-document-model is read instead of embedding every declaration). The held-out and tuning tests run each
// set with each Embedder heldout.Embedders names.
const EmbedderEnv = "SEARCHEVAL_EMBEDDER"

// EmbedURLEnv, EmbedModelEnv and EmbedDocumentModelEnv name the
// environment variables holding the endpoint, the model and the document
// model (codetools.HTTPEmbedder.DocumentModel) of the "http" Embedder.
const (
	EmbedURLEnv           = "SEARCHEVAL_EMBED_URL"
	EmbedModelEnv         = "SEARCHEVAL_EMBED_MODEL"
	EmbedDocumentModelEnv = "SEARCHEVAL_EMBED_DOCUMENT_MODEL"
)

// CatalogOptions returns the options of a service's code catalog over
// snapshot, for the server named server, with the Embedder EmbedderEnv
// chooses (New refuses a value it does not know).
func CatalogOptions(snapshot fs.FS, server string) *codetools.Options {
	opts := &codetools.Options{Snapshot: snapshot, Server: server}
	opts.Embedder, _ = embedder()
	return opts
}

// embedder returns the Embedder EmbedderEnv names (nil for words alone),
// or an error when EmbedderEnv holds a value it does not know, a table
// that cannot be read, or "http" without an endpoint.
func embedder() (codetools.Embedder, error) {
	e := os.Getenv(EmbedderEnv)
	switch file, isTable := strings.CutPrefix(e, "table:"); {
	case e == "":
		return nil, nil
	case e == "staticembed":
		return staticembed.Default(), nil
	case isTable:
		t, err := staticembed.Load(os.DirFS(filepath.Dir(file)), filepath.Base(file))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EmbedderEnv, err)
		}
		return t, nil
	case e == "http":
		if os.Getenv(EmbedURLEnv) == "" {
			return nil, fmt.Errorf("%s=http: %s names no endpoint", EmbedderEnv, EmbedURLEnv)
		}
		return &codetools.HTTPEmbedder{URL: os.Getenv(EmbedURLEnv), Model: os.Getenv(EmbedModelEnv),
			DocumentModel: os.Getenv(EmbedDocumentModelEnv)}, nil
	}
	return nil, fmt.Errorf("%s=%.40q: want staticembed, table:FILE, http or nothing", EmbedderEnv, e)
}

// Frame is the shared part of a service command: its common flags and its
// logger.
type Frame struct {
	Name   string       // name of the command, as its log lines start
	Logger *slog.Logger // text logger to standard error

	addr, snapshot, eval, check *string
}

// New defines the common flags on flag.CommandLine, with addr the default
// HTTP listen address; the caller parses the flags. It exits with status
// 1 when EmbedderEnv holds an unknown value.
func New(name, addr string) *Frame {
	f := &Frame{
		Name:     name,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, nil)),
		addr:     flag.String("addr", addr, "HTTP listen `address`"),
		snapshot: flag.String("snapshot", "", "source snapshot `directory` written by mcpsnapshot"),
		eval:     flag.String("eval", "", "run the code_search evaluation set `file` over this service, print the report as JSON and exit"),
		check:    flag.String("check", "", "check that every id the evaluation set `file` expects is in the catalog (code_definition, no search) and exit"),
	}
	_, err := embedder()
	f.Check(err)
	return f
}

// Evaluating says whether the command runs an evaluation set (-eval or
// -check) rather than serving: its listeners should then take free
// loopback ports.
func (f *Frame) Evaluating() bool { return *f.eval != "" || *f.check != "" }

// Snapshot is the source snapshot of -snapshot, or nil when none was
// given.
func (f *Frame) Snapshot() fs.FS {
	if *f.snapshot == "" {
		return nil
	}
	return os.DirFS(*f.snapshot)
}

// Check logs err and exits with status 1 when err is not nil.
func (f *Frame) Check(err error) {
	if err != nil {
		f.Logger.Error(f.Name, "error", err)
		os.Exit(1)
	}
}

// Serve runs the evaluation set of -eval or -check through srv, with a
// caller holding grants, and returns; without them it serves h on the
// HTTP listen address until that fails, logging attrs with the address
// first. It exits with status 1 when the evaluation or the server fails.
func (f *Frame) Serve(srv *mcp.Server, grants []string, h http.Handler, attrs ...any) {
	c := &searcheval.Client{Server: srv, Caller: searcheval.Caller(grants)}
	switch {
	case *f.eval != "":
		if err := c.EvaluateTo(*f.eval, os.Stdout); err != nil {
			f.Logger.Error("evaluation", "error", err)
			os.Exit(1)
		}
		return
	case *f.check != "":
		if err := checkIDs(c, *f.check); err != nil {
			f.Logger.Error("check", "error", err)
			os.Exit(1)
		}
		return
	}
	hs := &http.Server{Addr: *f.addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	f.Logger.Info(f.Name, append([]any{"addr", *f.addr}, attrs...)...)
	f.Check(hs.ListenAndServe())
}

// checkIDs reports the ids that the set in file expects and that
// code_definition does not know. It runs no search.
func checkIDs(c *searcheval.Client, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	qs, err := searcheval.ParseQueries(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if unknown := c.Unknown(qs); len(unknown) > 0 {
		return fmt.Errorf("%s expects %d ids that are not in the catalog: %s", file, len(unknown), strings.Join(unknown, ", "))
	}
	return nil
}
