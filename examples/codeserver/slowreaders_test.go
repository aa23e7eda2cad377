package main

// The slow-readers measurement of issue 23 (hostile load II), opt-in: it
// builds codeserver, starts it as a child process on a loopback port, opens
// 150 connections with a 4 KiB receive buffer, sends each a 256-element
// batch of code_file and reads nothing, and prints the child's peak RSS
// (VmHWM). Run it with
//
//	CODESERVER_SLOW_READERS=1 go test -count=1 -v -run '^TestSlowReadersPeakRSS$' ./examples/codeserver
//
// BASE_PORT, when set, puts the child on 127.0.0.1:BASE_PORT+1 (else a
// port the kernel picks); SLOW_READERS_CLIENTS changes the 150 clients and
// SLOW_READERS_MAX_RSS_MIB the 512 MiB the test fails above;
// SLOW_READERS_GCTRACE=1 prints the child's GODEBUG=gctrace=1 lines.

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// procStatus reads a kB field of /proc/pid/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// codeFileBatch is a 256-element batch of code_file over the largest Go
// files of the snapshot, each answer up to the 400 lines / 32 KB one holds.
func codeFileBatch(t *testing.T) []byte {
	t.Helper()
	type file struct {
		path string
		size int64
	}
	var files []file
	root := filepath.Join("snapshot", "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		name := strings.TrimSuffix(p, ".gz") // stored compressed
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".go.txt") || strings.HasSuffix(name, "_test.go.txt") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, strings.TrimSuffix(name, ".txt"))
		files = append(files, file{filepath.ToSlash(rel), info.Size()})
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshot files (%v): run go generate ./examples/codeserver", err)
	}
	slices.SortFunc(files, func(a, b file) int { return int(b.size - a.size) })
	files = files[:min(len(files), 64)]
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range 256 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"code_file","arguments":{"path":%q}}}`,
			i+1, files[i%len(files)].path)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// TestSlowReadersPeakRSS: 150 clients that read nothing of 256-element
// code_file batches keep codeserver's peak RSS at most 512 MiB.
func TestSlowReadersPeakRSS(t *testing.T) {
	if os.Getenv("CODESERVER_SLOW_READERS") == "" {
		t.Skip("opt-in: CODESERVER_SLOW_READERS=1 (builds and starts codeserver, takes about a minute)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	clients, maxRSS := envInt("SLOW_READERS_CLIENTS", 150), int64(envInt("SLOW_READERS_MAX_RSS_MIB", 512))<<20
	if _, err := os.Stat(filepath.Join("snapshot", "index.txt.gz")); err != nil {
		if out, err := exec.Command("go", "generate", ".").CombinedOutput(); err != nil {
			t.Fatalf("go generate: %v\n%s", err, out)
		}
	}
	bin := filepath.Join(t.TempDir(), "codeserver")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr := "127.0.0.1:0"
	if base := envInt("BASE_PORT", 0); base > 0 {
		addr = "127.0.0.1:" + strconv.Itoa(base+1)
	}
	cmd := exec.Command(bin, "-addr", addr)
	if os.Getenv("SLOW_READERS_GCTRACE") != "" {
		cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "codeserver: serving MCP at http://"); ok {
			addr = strings.TrimSuffix(u, "/mcp")
			break
		}
	}
	go func() { // drain the log
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), "gc ") {
				fmt.Println(lines.Text())
			}
		}
	}()
	batch := codeFileBatch(t)

	// One batch read in full first: the catalog is built, and the size of
	// an answer known.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	status, size := postBatch(t, c, addr, batch, true)
	c.Close()
	if status != 200 {
		t.Fatalf("the batch read in full: status %d", status)
	}
	time.Sleep(time.Second)
	base := procStatus(pid, "VmRSS")
	t.Logf("batch: %d bytes, answer %d bytes; codeserver RSS %d MiB before", len(batch), size, base>>20)

	conns := make([]net.Conn, clients)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		conns[i] = c
	}
	start := time.Now()
	for _, c := range conns {
		postBatch(t, c, addr, batch, false)
	}
	// Sample until the RSS has not grown for 5 s (at least 10 s).
	var peakSeen int64
	lastGrowth := time.Now()
	for time.Since(start) < 10*time.Second || time.Since(lastGrowth) < 5*time.Second {
		if rss := procStatus(pid, "VmRSS"); rss > peakSeen {
			peakSeen, lastGrowth = rss, time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	hwm := procStatus(pid, "VmHWM")
	// Now read the status lines (the server closes the connections it
	// could not write to at its write deadline; the status line is in the
	// first bytes either way).
	counts := map[string]int{}
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			counts["no status line: "+err.Error()]++
			continue
		}
		counts[strings.TrimSpace(line)]++
	}
	fmt.Printf("slow readers: %d clients reading nothing of %d-byte answers to %d-byte code_file batches: "+
		"codeserver peak RSS %d MiB (VmHWM; %d MiB before, sampled peak %d MiB); answers: %v\n",
		clients, size, len(batch), hwm>>20, base>>20, peakSeen>>20, counts)
	if hwm > maxRSS {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", hwm>>20, maxRSS>>20)
	}
}

// postBatch sends batch over c; with read, it reads the answer and returns
// its status and size.
func postBatch(t *testing.T, c net.Conn, addr string, batch []byte, read bool) (status, size int) {
	t.Helper()
	_, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(batch), batch)
	if err != nil {
		t.Fatal(err)
	}
	if !read {
		return 0, 0
	}
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(line)
	if len(f) > 1 {
		status, _ = strconv.Atoi(f[1])
	}
	for {
		h, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := strings.CutPrefix(strings.ToLower(h), "content-length:"); ok {
			size, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if h == "\r\n" {
			break
		}
	}
	return status, size
}
