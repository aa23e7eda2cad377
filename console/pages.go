package console

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/embedmcp/mcp"
)

//go:embed templates/*.html templates/console.css templates/console.js
var templateFS embed.FS

// page is what every page's template receives.
type page struct {
	Title     string // the service
	Name      string // the page: "tools", "calls", "tasks", "process"
	Nonce     string
	Principal string
	CSRF      string
	Refresh   int // seconds between refreshes by the page's script; 0 for none
	Write     bool
	Profile   bool
	Style     template.CSS
	Script    template.JS
	Rendered  string
	Data      any
}

// parsePages parses the layout with each page's template.
func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"dur":    formatDuration,
		"count":  func(v uint32) string { return formatCount(float64(v)) },
		"pct":    formatPercent,
		"age":    formatAge,
		"join":   strings.Join,
		"inc":    func(i int) int { return i + 1 },
		"chartW": func() int { return chartW },
		"chartH": func() int { return chartH },
		"sparkW": func() int { return sparkW },
		"sparkH": func() int { return sparkH },
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/chart.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, name := range []string{"tools", "calls", "tasks", "process"} {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}

// parseCells parses the template of a tool's cells on the Tools page.
func parseCells() (*template.Template, error) {
	return template.ParseFS(templateFS, "templates/toolcells.html")
}

// render writes p, wrapped in the layout.
func (c *Console) render(w http.ResponseWriter, r *http.Request, req *request, p *page) {
	style, _ := templateFS.ReadFile("templates/console.css")
	script, _ := templateFS.ReadFile("templates/console.js")
	p.Title, p.Nonce, p.Principal = c.title, req.nonce, req.caller.Principal
	p.Write, p.Profile = req.write, req.profile
	p.Rendered = c.now().UTC().Format("2006-01-02 15:04:05")
	p.Style, p.Script = template.CSS(style), template.JS(script)
	if req.write || req.profile {
		p.CSRF = c.keys.csrfToken(req.caller, c.now()) // cancel forms, CPU profile forms
	}
	var buf bytes.Buffer
	last := c.sizes[p.Name]
	buf.Grow(int(last.Load()) + 8<<10)
	if err := c.pages[p.Name].Execute(&buf, p); err != nil {
		http.Error(w, "500 internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	last.Store(int64(buf.Len()))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(buf.Bytes())
}

// query checks r's query: only the named parameters, each at most once
// and at most 4 KiB.
func query(r *http.Request, allowed ...string) (url.Values, error) {
	if len(r.URL.RawQuery) > 16<<10 {
		return nil, &badRequest{"the query is longer than 16 KiB"}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, &badRequest{"the query is not valid URL encoding"}
	}
	for k, v := range q {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			return nil, &badRequest{"unknown parameter " + strconv.Quote(truncate(k, 40)) + "; this page takes " + strings.Join(allowed, ", ")}
		}
		if len(v) > 1 {
			return nil, &badRequest{"parameter " + k + " is given more than once"}
		}
		if len(v[0]) > 4<<10 {
			return nil, &badRequest{"parameter " + k + " is longer than 4 KiB"}
		}
	}
	return q, nil
}

// limitParam reads a limit between 1 and most, def when absent.
func limitParam(q url.Values, def, most int) (int, error) {
	s := q.Get("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > most {
		return 0, &badRequest{"limit must be a whole number from 1 to " + strconv.Itoa(most)}
	}
	return n, nil
}

// nameParam reads a name made of printable characters, at most 128 bytes.
func nameParam(q url.Values, key string) (string, error) {
	s := strings.TrimSpace(q.Get(key))
	if len(s) > 128 {
		return "", &badRequest{key + " is longer than 128 bytes"}
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f || r == 0xfffd {
			return "", &badRequest{key + " holds a control character or invalid UTF-8"}
		}
	}
	return s, nil
}

// toolsData is the Tools page.
type toolsData struct {
	Query   string
	Preview bool   // the "who may call" preview is on
	Grants  string // as typed
	As      string // the preview's principal
	Rows    []toolRow
	Total   int
	Allowed int
}

type toolRow struct {
	Name    string
	Cells   template.HTML
	Allowed bool
	Calls   string
}

// maxGrants bounds the preview's grants.
const maxGrants = 64

func (c *Console) toolsPage(r *http.Request, req *request) (*page, error) {
	q, err := query(r, "q", "grants", "as")
	if err != nil {
		return nil, err
	}
	d := &toolsData{}
	if d.Query, err = nameParam(q, "q"); err != nil {
		return nil, err
	}
	_, hasGrants := q["grants"]
	_, hasAs := q["as"]
	d.Preview = hasGrants || hasAs
	var preview mcp.Caller
	var pctx context.Context
	if d.Preview {
		d.Grants = q.Get("grants")
		grants, err := parseGrants(d.Grants)
		if err != nil {
			return nil, err
		}
		if d.As, err = nameParam(q, "as"); err != nil {
			return nil, err
		}
		preview = mcp.Caller{Principal: d.As, Grants: grants, Server: req.caller.Server}
		pctx = mcp.ContextWithCaller(r.Context(), preview)
	}
	calls := c.rec.toolCounts(c.now())
	registered := 0
	for range c.reg.All() {
		registered++
	}
	lq := strings.ToLower(d.Query)
	for t := range c.reg.All() {
		info := t.Info()
		if info == nil {
			continue
		}
		d.Total++
		tv := c.views.get(info, registered)
		if lq != "" && !strings.Contains(strings.ToLower(tv.Name), lq) && !strings.Contains(strings.ToLower(tv.Title), lq) &&
			!strings.Contains(strings.ToLower(tv.Permission), lq) {
			continue
		}
		row := toolRow{Name: tv.Name, Cells: tv.Cells, Calls: formatCount(float64(calls[tv.Name]))}
		if d.Preview {
			row.Allowed = c.allowed(pctx, preview, info.Permission)
			if row.Allowed {
				d.Allowed++
			}
		}
		d.Rows = append(d.Rows, row)
	}
	return &page{Name: "tools", Data: d}, nil
}

// parseGrants splits grants typed in the preview at commas, spaces and
// line ends; each is a permission, a prefix ending in ".*", or "*".
func parseGrants(s string) ([]string, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
	if len(fields) > maxGrants {
		return nil, &badRequest{"grants: at most " + strconv.Itoa(maxGrants) + " grants"}
	}
	for _, g := range fields {
		if len(g) > 128 {
			return nil, &badRequest{"grants: a grant is longer than 128 bytes"}
		}
		for i := 0; i < len(g); i++ {
			ch := g[i]
			if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("._*:-/", ch) >= 0) {
				return nil, &badRequest{"grants: " + strconv.Quote(truncate(g, 40)) + " holds a character other than letters, digits and . _ * : - /"}
			}
		}
	}
	return fields, nil
}
