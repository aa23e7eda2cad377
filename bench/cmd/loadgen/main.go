// Command loadgen drives a benchserver over loopback HTTP: a fixed number
// of workers, each sending one standalone POST after another (every request
// with a unique JSON-RPC id and, for echo, a unique text), for a fixed
// duration after a warm-up. It checks every response (status 200, the id
// and the echoed text present; a full decode of the first and every 64th
// response of each worker) and prints one JSON line: requests, req/s, p50
// and p99 latency, errors. It exits with status 1 if any response was
// wrong.
//
// Requests that complete after the warm-up are counted, over the time from
// the end of the warm-up to the last completion. Workers start no request
// after the duration, unless fewer than -min requests have completed: slow
// servers are measured for longer rather than not at all.
//
//	loadgen -url http://127.0.0.1:PORT -case echo|echo64k|list1000 [-workers 16] [-duration 3s]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp/bench/servers"
)

// Result is one run's measurement, printed as a JSON line.
type Result struct {
	Impl     string  `json:"impl"`
	Case     string  `json:"case"`
	Round    int     `json:"round"`
	Workers  int     `json:"workers"`
	Seconds  float64 `json:"seconds"`
	Requests int     `json:"requests"`
	RPS      float64 `json:"rps"`
	P50us    float64 `json:"p50_us"`
	P99us    float64 `json:"p99_us"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
}

const payloadSize = 64 << 10

func main() {
	url := flag.String("url", "", "benchserver base URL (http://127.0.0.1:PORT)")
	kase := flag.String("case", "echo", "echo, echo64k or list1000")
	workers := flag.Int("workers", 16, "concurrent clients")
	duration := flag.Duration("duration", 3*time.Second, "measured duration")
	warmup := flag.Duration("warmup", 500*time.Millisecond, "unmeasured warm-up before it")
	tools := flag.Int("tools", 1000, "tools the server lists at /list/mcp")
	impl := flag.String("impl", "", "implementation label for the output")
	round := flag.Int("round", 0, "round label for the output")
	minRequests := flag.Int64("min", 32, "least number of measured requests")
	flag.Parse()
	log.SetPrefix("loadgen: ")
	log.SetFlags(0)
	if *url == "" {
		log.Fatal("-url is required")
	}
	endpoint := *url + "/mcp"
	switch *kase {
	case "echo", "echo64k":
	case "list1000":
		endpoint = *url + "/list/mcp"
	default:
		log.Fatalf("unknown -case %q", *kase)
	}

	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns: *workers, MaxIdleConnsPerHost: *workers, MaxConnsPerHost: *workers,
		IdleConnTimeout: time.Minute, DisableCompression: true,
	}}
	var nextID atomic.Int64
	start := time.Now()
	measureFrom := start.Add(*warmup)
	end := measureFrom.Add(*duration)

	var completed atomic.Int64
	type workerResult struct {
		lat    []time.Duration
		last   time.Time
		errors int
		first  string
	}
	results := make([]workerResult, *workers)
	var wg sync.WaitGroup
	for w := range *workers {
		wg.Go(func() {
			res := &results[w]
			res.lat = make([]time.Duration, 0, 1<<14)
			var body, text []byte
			for n := 0; ; n++ {
				t0 := time.Now()
				if !t0.Before(end) && completed.Load() >= *minRequests {
					return
				}
				id := nextID.Add(1)
				switch *kase {
				case "list1000":
					body = servers.AppendListCall(body[:0], id)
				default:
					text = fmt.Appendf(text[:0], "w%d-req%d-", w, id)
					if *kase == "echo64k" {
						for len(text) < payloadSize {
							text = append(text, 'x')
						}
					}
					body = servers.AppendEchoCall(body[:0], id, string(text))
				}
				err := call(client, endpoint, body, *kase, id, string(text), *tools, n%64 == 0)
				if err != nil {
					res.errors++
					if res.first == "" {
						res.first = err.Error()
					}
				}
				if t1 := time.Now(); !t1.Before(measureFrom) {
					res.lat = append(res.lat, t1.Sub(t0))
					res.last = t1
					completed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	last := measureFrom
	for _, r := range results {
		if r.last.After(last) {
			last = r.last
		}
	}
	elapsed := last.Sub(measureFrom)

	var all []time.Duration
	out := Result{Impl: *impl, Case: *kase, Round: *round, Workers: *workers, Seconds: elapsed.Seconds()}
	for _, r := range results {
		all = append(all, r.lat...)
		out.Errors += r.errors
		if out.FirstErr == "" {
			out.FirstErr = r.first
		}
	}
	slices.Sort(all)
	out.Requests = len(all)
	if elapsed > 0 {
		out.RPS = float64(len(all)) / elapsed.Seconds()
	}
	out.P50us = percentile(all, 0.50)
	out.P99us = percentile(all, 0.99)
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	if out.Errors > 0 || out.Requests == 0 {
		os.Exit(1)
	}
}

func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return float64(sorted[i].Nanoseconds()) / 1e3
}

// call sends one request and checks the answer; full decodes it.
func call(client *http.Client, url string, body []byte, kase string, id int64, text string, tools int, full bool) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	servers.SetHeaders(req.Header)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.200q", resp.StatusCode, got)
	}
	if full {
		if kase == "list1000" {
			return servers.CheckList(got, id, tools)
		}
		return servers.CheckEcho(got, id, text)
	}
	idField := strconv.AppendInt([]byte(`"id":`), id, 10)
	if i := bytes.Index(got, idField); i < 0 || i+len(idField) >= len(got) || got[i+len(idField)] >= '0' && got[i+len(idField)] <= '9' {
		return fmt.Errorf("id %d not in the response %.200q", id, got)
	}
	if kase != "list1000" {
		want := `"structuredContent":{"text":"` + text + `"}`
		if !bytes.Contains(got, []byte(want)) {
			return fmt.Errorf("echo text of request %d not in the response %.200q", id, got)
		}
	}
	return nil
}
