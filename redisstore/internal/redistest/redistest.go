// Package redistest provides a Redis for tests: the one REDIS_ADDR names,
// or a redis-server started on a free loopback port, without persistence,
// and stopped at the end.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a Redis for tests.
type Server struct {
	Addr string
	cmd  *exec.Cmd
	dir  string
	args []string
}

// Start returns REDIS_ADDR's Redis, or starts redis-server. It returns an
// error when neither is available.
func Start() (*Server, error) {
	if addr := os.Getenv("REDIS_ADDR"); addr != "" {
		return &Server{Addr: addr}, ping(addr)
	}
	return StartOwn()
}

// StartOwn starts a redis-server of its own (one a test may kill),
// whatever REDIS_ADDR says, with extra command-line arguments (after the
// defaults, so that they win: "--appendonly", "yes").
func StartOwn(extra ...string) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("no REDIS_ADDR and no redis-server on PATH (apt-get install redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, err := os.MkdirTemp("", "redistest")
	if err != nil {
		return nil, err
	}
	args := append([]string{"--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", ""}, extra...)
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, args: args}
	if err := s.start(bin); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, s.wait()
}

func (s *Server) start(bin string) error {
	cmd := exec.Command(bin, s.args...)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { // drain the log
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	s.cmd = cmd
	return nil
}

// Restart starts a killed server again, on the same port, from the same
// directory (its data survives if it had persistence).
func (s *Server) Restart() error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return err
	}
	s.Kill()
	if err := s.start(bin); err != nil {
		return err
	}
	return s.wait()
}

// wait waits until the server answers.
func (s *Server) wait() error {
	var err error
	for i := 0; ; i++ {
		if err = ping(s.Addr); err == nil {
			return nil
		}
		if i == 250 {
			s.Stop()
			return fmt.Errorf("redis-server did not answer on %s: %v", s.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ping(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// Stop stops a redis-server Start started, and removes its directory.
func (s *Server) Stop() {
	if s == nil || s.cmd == nil {
		return
	}
	s.Kill()
	os.RemoveAll(s.dir)
}

// Kill stops the server at once, as a crash would; Stop still removes its
// directory.
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// Prefix returns a key prefix no other test uses.
func Prefix(name string) string {
	return "test:" + strings.ReplaceAll(name, "/", ":") + ":" + fmt.Sprint(time.Now().UnixNano()) + ":"
}

// Pause stops the server's process (SIGSTOP): connections stay open and
// nothing answers, as in a long GC pause or a frozen VM. Resume continues
// it.
func (s *Server) Pause() error { return s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Server) Resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

// Wipe removes the data files of a killed server, so that Restart starts
// it empty.
func (s *Server) Wipe() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(s.dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
