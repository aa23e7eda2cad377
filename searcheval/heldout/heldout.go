// Package heldout runs the held-out code_search evaluation sets: real
// open-source Go services nobody here had worked with (miniredis,
// mochi-mqtt, pion/turn), each served by an adopter of this module with a
// -deps snapshot that mcpsnapshot writes, as go generate would. The sets
// (../testdata/miniredis.tsv, mochi.tsv, pionturn.tsv) were written from
// the services' source before any ranking ran on them and are frozen: their
// sha256 sums are in ../testdata/heldout.sha256. The tests print the
// summary tables only; the per-query tables are printed when
// SEARCHEVAL_SHOW_QUERIES=1, which turns a set into a tuning set for whoever
// reads them.
package heldout

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/searcheval/mqttapp"
	"github.com/embedmcp/mcp/searcheval/redisapp"
	"github.com/embedmcp/mcp/searcheval/turnapp"
)

// Service is one held-out set and the service it is evaluated on.
type Service struct {
	Name string // as the tables print it
	Set  string // file of the set, relative to the searcheval module
	Main string // main package of the service, relative to the searcheval module
	// Start serves the code tools over the snapshot directory; stop
	// releases what it started.
	Start func(snapshot string) (srv *mcp.Server, stop func(), err error)
}

// Services are the held-out services.
var Services = []Service{
	{Name: "miniredis", Set: "testdata/miniredis.tsv", Main: "./redisserver", Start: startRedis},
	{Name: "mochi-mqtt", Set: "testdata/mochi.tsv", Main: "./mqttserver", Start: startMQTT},
	{Name: "pion/turn", Set: "testdata/pionturn.tsv", Main: "./turnserver", Start: startTURN},
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func startRedis(snapshot string) (*mcp.Server, func(), error) {
	srv, svc, _, err := redisapp.NewService(os.DirFS(snapshot), redisapp.Config{RedisAddr: "127.0.0.1:0"}, quiet())
	if err != nil {
		return nil, nil, err
	}
	return srv, svc.Close, nil
}

func startMQTT(snapshot string) (*mcp.Server, func(), error) {
	srv, broker, _, err := mqttapp.NewService(os.DirFS(snapshot), mqttapp.Config{AuditTopics: []string{"audit/"}}, quiet())
	if err != nil {
		return nil, nil, err
	}
	return srv, func() { broker.Close() }, nil
}

func startTURN(snapshot string) (*mcp.Server, func(), error) {
	cfg := turnapp.Config{ListenUDP: "127.0.0.1:0", PublicIP: "127.0.0.1", Realm: "example.org",
		Users: map[string]string{"alice": "secret"}, MinPort: 50000, MaxPort: 50100}
	srv, relay, _, err := turnapp.NewService(os.DirFS(snapshot), cfg, quiet())
	if err != nil {
		return nil, nil, err
	}
	return srv, func() { relay.Close() }, nil
}

// WriteSnapshot writes the -deps snapshot of the main package main into
// dir with mcpsnapshot, as an adopter's go generate would; module is the
// directory of the searcheval module.
func WriteSnapshot(module, main, dir string) error {
	cmd := exec.Command("go", "run", "github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot", "-deps", "-o", dir, main)
	cmd.Dir = module
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mcpsnapshot %s: %v\n%s", main, err, out)
	}
	return nil
}
