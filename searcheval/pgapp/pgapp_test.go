package pgapp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// start runs a facade with two users, grafana and loader (who may COPY).
func start(t *testing.T, cfg Config) (*Facade, http.Handler) {
	t.Helper()
	cfg.Users = map[string]string{"grafana": "secret", "loader": "secret"}
	cfg.Loaders = []string{"loader"}
	_, f, h, err := NewService(nil, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.Close(ctx)
	})
	return f, h
}

func connect(t *testing.T, f *Facade, user, password string) (*pgconn.PgConn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, "postgres://"+user+":"+password+"@"+f.Addr()+"/analytics?sslmode=disable")
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

func TestQueries(t *testing.T) {
	f, h := start(t, Config{})
	f.SetMetric("cpu", 0.5)
	f.SetMetric("mem", 0.25)
	if _, err := connect(t, f, "grafana", "wrong"); sqlState(err) != "28P01" {
		t.Fatalf("wrong password: %v, want SQLSTATE 28P01", err)
	}
	c, err := connect(t, f, "grafana", "secret")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := c.Exec(ctx, "SELECT * FROM metrics").ReadAll()
	if err != nil || len(res) != 1 || len(res[0].Rows) != 2 || string(res[0].Rows[0][0]) != "cpu" {
		t.Fatalf("SELECT * FROM metrics: %v %v", res, err)
	}
	if tag := res[0].CommandTag.String(); tag != "SELECT 2" {
		t.Errorf("tag %q, want SELECT 2", tag)
	}
	r := c.ExecParams(ctx, "SELECT * FROM metrics WHERE name = $1", [][]byte{[]byte("mem")}, nil, nil, nil).Read()
	if r.Err != nil || len(r.Rows) != 1 || string(r.Rows[0][1]) != "0.25" {
		t.Fatalf("SELECT with a parameter: %q %v", r.Rows, r.Err)
	}
	for sql, want := range map[string]string{
		"INSERT INTO metrics VALUES (1)": "25006",
		"SELECT * FROM users":            "42P01",
		"SELECT * FROM metrics LIMIT x":  "22023",
		"VACUUM":                         "0A000",
		"COPY inventory FROM STDIN":      "42501",
	} {
		if _, err := c.Exec(ctx, sql).ReadAll(); sqlState(err) != want {
			t.Errorf("%s: %v, want SQLSTATE %s", sql, err, want)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/admin/sessions", nil))
	if !strings.Contains(rec.Body.String(), `"user":"grafana"`) {
		t.Errorf("sessions: %s", rec.Body)
	}
}

func TestCopyInventory(t *testing.T) {
	f, h := start(t, Config{})
	c, err := connect(t, f, "loader", "secret")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tag, err := c.CopyFrom(ctx, strings.NewReader("A-1,bolt,40,north\nA-2,nut,7,south\n"), "COPY inventory FROM STDIN")
	if err != nil || tag.RowsAffected() != 2 {
		t.Fatalf("COPY: %v %v", tag, err)
	}
	r := c.ExecParams(ctx, "SELECT * FROM inventory WHERE warehouse = $1", [][]byte{[]byte("south")}, nil, nil, nil).Read()
	if r.Err != nil || len(r.Rows) != 1 || string(r.Rows[0][2]) != "7" {
		t.Fatalf("SELECT from inventory: %q %v", r.Rows, r.Err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/admin/tables", nil))
	if !strings.Contains(rec.Body.String(), `"inventory":2`) {
		t.Errorf("tables: %s", rec.Body)
	}
}

func TestTooManyClients(t *testing.T) {
	f, _ := start(t, Config{MaxConns: 1})
	if _, err := connect(t, f, "grafana", "secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := connect(t, f, "grafana", "secret"); sqlState(err) != "53300" {
		t.Fatalf("second client: %v, want SQLSTATE 53300", err)
	}
}
