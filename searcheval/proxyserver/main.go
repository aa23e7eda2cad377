// Command proxyserver serves an office's egress proxy (goproxy) with a
// block list, added headers, HTTPS inspection of selected domains, an admin
// API and the code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/proxysnap ./proxyserver
//	go run ./proxyserver -snapshot /tmp/proxysnap -block ads.example,tracker.example -inspect corp.example [-proxy 127.0.0.1:3128]
package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/proxyapp"
)

func main() {
	f := evalcmd.New("proxyserver", "127.0.0.1:9011")
	proxyAddr := flag.String("proxy", "127.0.0.1:3128", "proxy listen `address`")
	block := flag.String("block", "", "comma-separated `hosts` to refuse, with their subdomains")
	inspect := flag.String("inspect", "", "comma-separated `domains` whose HTTPS is opened with the office CA")
	headers := flag.String("header", "Via=1.1 office-proxy", "comma-separated `name=value` headers set on every request")
	upstream := flag.String("upstream", "", "parent proxy `URL`")
	maxBody := flag.Int64("max-body", 10<<20, "largest request body forwarded, in `bytes`")
	dial := flag.Duration("dial-timeout", 10*time.Second, "`time` to connect to a destination")
	verbose := flag.Bool("v", false, "log goproxy's per-request lines")
	flag.Parse()
	cfg := proxyapp.Config{ProxyAddr: *proxyAddr, Blocked: split(*block), Inspect: split(*inspect),
		AddHeaders: map[string]string{}, Upstream: *upstream, MaxRequestBytes: *maxBody, DialTimeout: *dial, Verbose: *verbose}
	for _, h := range split(*headers) {
		name, value, ok := strings.Cut(h, "=")
		if !ok {
			f.Check(fmt.Errorf("header %q: want name=value", h))
		}
		cfg.AddHeaders[name] = value
	}
	if f.Evaluating() {
		cfg.ProxyAddr = ""
	}
	mcpSrv, gw, h, err := proxyapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer gw.Close()
	f.Serve(mcpSrv, proxyapp.Grants, h, "proxy", gw.Addr())
}

// split splits a comma-separated list, dropping empty items.
func split(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
