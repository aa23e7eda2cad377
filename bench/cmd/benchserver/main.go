// Command benchserver serves one implementation of the benchmark's echo
// server on a loopback address, for the loopback load test:
//
//	benchserver -impl embed|gosdk|mcpgo|bare [-addr 127.0.0.1:0] [-tools 1000]
//	            [-cpuprofile cpu.out] [-memprofile mem.out]
//
// It serves the echo tool alone at /mcp and the echo tool among -tools
// tools at /list/mcp, prints its base URL (http://127.0.0.1:PORT) on the
// first line of stdout, and runs until it is interrupted or its stdin is
// closed. With -cpuprofile and -memprofile it writes runtime/pprof
// profiles of everything it served (the memory profile samples every
// allocation) when it stops.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/embedmcp/mcp/bench/servers"
)

func main() {
	impl := flag.String("impl", servers.ImplEmbed, "implementation: bare, embed, gosdk or mcpgo")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	tools := flag.Int("tools", 1000, "number of tools served at /list/mcp")
	watchStdin := flag.Bool("stdin", true, "exit when stdin is closed")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile (every allocation) to this file")
	flag.Parse()
	log.SetPrefix("benchserver: ")
	log.SetFlags(0)
	if *memProfile != "" {
		runtime.MemProfileRate = 1
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				log.Print(err)
			}
		}()
	}
	if *memProfile != "" {
		defer func() {
			f, err := os.Create(*memProfile)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				log.Print(err)
			}
		}()
	}

	one, err := servers.New(*impl, 1)
	if err != nil {
		log.Fatal(err)
	}
	many, err := servers.New(*impl, *tools)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", one)
	mux.Handle("/list/mcp", many)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	fmt.Printf("http://%s\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
