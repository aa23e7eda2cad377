// Command codehost is the scale benchmark's host for codetools: a cluster
// gateway of the size of a real service, linking client-go (typed
// clientset, informers), grpc (health, reflection), the prometheus client
// and the AWS SDK v2 (s3, ec2). scripts/test.d/codetools-scale.sh builds
// it with and without a -deps snapshot and runs it with -bench, which
// prints the catalog's figures as "name value" lines; without -bench it
// serves the code tools on $ADDR.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
)

// gateway holds the clients the routes use.
type gateway struct {
	kube    kubernetes.Interface
	pods    cache.SharedIndexInformer
	s3      *s3.Client
	ec2     *ec2.Client
	served  *prometheus.CounterVec
	grpcSrv *grpc.Server
}

func main() {
	bench := flag.Bool("bench", false, "print the catalog's figures and exit")
	cpuProfile := flag.String("cpuprofile", "", "with -bench, write a CPU profile of the first search to `file`")
	memProfile := flag.String("memprofile", "", "with -bench, write a heap profile of the warm catalog to `file`")
	flag.Parse()
	var snap fs.FS
	if snapshotFS != nil {
		s, err := fs.Sub(snapshotFS, "snapshot")
		if err != nil {
			log.Fatal(err)
		}
		snap = s
	}
	if *bench {
		if *cpuProfile != "" {
			f, err := os.Create(*cpuProfile)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				log.Fatal(err)
			}
		}
		if err := runBench(snap, *memProfile); err != nil {
			log.Fatal(err)
		}
		return
	}
	g, err := newGateway()
	if err != nil {
		log.Fatal(err)
	}
	catalog := codetools.NewCatalog(&codetools.Options{Snapshot: snap, Logger: slog.Default()})
	go catalog.Warm(context.Background())
	tools := mcp.NewToolSet()
	if err := codetools.Register(tools, catalog); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "codehost", Version: "1.0.0"})
	mux := codetools.NewServeMux(catalog, nil)
	mux.HandleFunc("GET /v1/pods/{ns}", g.listPods)
	mux.HandleFunc("GET /v1/buckets", g.listBuckets)
	mux.HandleFunc("GET /v1/instances", g.listInstances)
	mux.Handle("GET /metrics", promhttp.Handler())
	mux.Handle("/mcp", mcp.NewHandler(server, &mcp.HandlerOptions{
		Authenticator: mcp.StaticTokens(map[string]mcp.Caller{
			os.Getenv("MCP_TOKEN"): {Principal: "ops", Grants: []string{codetools.Permission}},
		}),
	}))
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// newGateway builds the clients from the environment; none connects
// before a request needs it.
func newGateway() (*gateway, error) {
	cfg := &rest.Config{Host: os.Getenv("KUBE_HOST")}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(kube, 10*time.Minute)
	g := &gateway{kube: kube, pods: factory.Core().V1().Pods().Informer()}
	awsCfg := aws.Config{Region: os.Getenv("AWS_REGION")}
	g.s3 = s3.NewFromConfig(awsCfg)
	g.ec2 = ec2.NewFromConfig(awsCfg)
	g.served = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_requests_total"}, []string{"route"})
	prometheus.MustRegister(g.served)
	g.grpcSrv = grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(g.grpcSrv, hs)
	reflection.Register(g.grpcSrv)
	return g, nil
}

// listPods lists the pods of a namespace from the informer's cache.
func (g *gateway) listPods(w http.ResponseWriter, r *http.Request) {
	g.served.WithLabelValues("pods").Inc()
	objs, err := g.pods.GetIndexer().ByIndex(cache.NamespaceIndex, r.PathValue("ns"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprintf(w, "%d pods\n", len(objs))
}

// listBuckets lists the S3 buckets of the account.
func (g *gateway) listBuckets(w http.ResponseWriter, r *http.Request) {
	g.served.WithLabelValues("buckets").Inc()
	out, err := g.s3.ListBuckets(r.Context(), &s3.ListBucketsInput{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	fmt.Fprintf(w, "%d buckets\n", len(out.Buckets))
}

// listInstances lists the EC2 instances of the region.
func (g *gateway) listInstances(w http.ResponseWriter, r *http.Request) {
	g.served.WithLabelValues("instances").Inc()
	out, err := g.ec2.DescribeInstances(r.Context(), &ec2.DescribeInstancesInput{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	fmt.Fprintf(w, "%d reservations\n", len(out.Reservations))
}

// benchQueries are the searches whose latency -bench measures: names,
// fragments and phrases over the host and its dependencies.
var benchQueries = []string{
	"NewSharedInformerFactory", "DeltaFIFO", "ListAndWatch", "listPods", "NewForConfig",
	"health check server", "reflection service", "CounterVec", "ListBuckets", "DescribeInstances",
	"retry backoff", "unmarshal protobuf message", "http server serve", "rate limiter", "watch events",
	"informer resync period", "tls config", "json decode", "context deadline", "register metrics",
}

// runBench builds a catalog as the service does and prints its figures:
// entries, the first search from a cold start, search p95, the live heap
// the catalog keeps (after loading references), and what Warm allocated;
// with memProfile, it writes a heap profile of the warm catalog there.
func runBench(snap fs.FS, memProfile string) error {
	ctx := context.Background()
	if _, err := newGateway(); err != nil {
		return err
	}
	heap0 := liveHeap()
	catalog := codetools.NewCatalog(&codetools.Options{Snapshot: snap, Logger: slog.Default()})
	start, cpu0 := time.Now(), cpuTime()
	if _, err := catalog.Search(ctx, codetools.SearchQuery{Query: "NewSharedInformerFactory"}); err != nil {
		return err
	}
	first, firstCPU := time.Since(start), cpuTime()-cpu0
	pprof.StopCPUProfile()
	stats, err := catalog.Warm(ctx)
	if err != nil {
		return err
	}
	var lat []time.Duration
	for range 3 {
		for _, q := range benchQueries {
			t := time.Now()
			if _, err := catalog.Search(ctx, codetools.SearchQuery{Query: q, Scope: "all"}); err != nil {
				return err
			}
			lat = append(lat, time.Since(t))
		}
	}
	slices.Sort(lat)
	p95 := lat[len(lat)*95/100]
	for _, name := range []string{"k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch", "net/http.(*Server).Serve", "main.(*gateway).listPods"} {
		d, err := catalog.Definition(ctx, codetools.DefinitionQuery{Name: name})
		if err != nil {
			fmt.Printf("definition %s ERROR %v\n", name, err)
			continue
		}
		fmt.Printf("definition %s %s linked=%v\n", name, d.Consistency.Status, d.Linked)
	}
	if snap != nil { // references come from the snapshot
		if _, err := catalog.References(ctx, codetools.ReferencesQuery{Name: "main.(*gateway).listPods", Relation: "callers"}); err != nil {
			fmt.Printf("references ERROR %v\n", err)
		}
	}
	heap := liveHeap() - heap0
	if st, err := catalog.Warm(ctx); err == nil { // retainedBytes with references loaded
		stats.RetainedBytes = st.RetainedBytes
	}
	fmt.Printf("entries %d\n", stats.Entries)
	fmt.Printf("first_search_ms %d\n", first.Milliseconds())
	fmt.Printf("first_search_cpu_ms %d\n", firstCPU.Milliseconds())
	fmt.Printf("search_p95_ms %.1f\n", float64(p95.Microseconds())/1000)
	fmt.Printf("live_heap_mb %.1f\n", float64(heap)/(1<<20))
	fmt.Printf("warm_alloc_mb %.1f\n", float64(stats.AllocatedBytes)/(1<<20))
	fmt.Printf("retained_mb %.1f\n", float64(stats.RetainedBytes)/(1<<20))
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			return err
		}
	}
	runtime.KeepAlive(catalog)
	return nil
}

// cpuTime returns the CPU time the process has used (user and system):
// on a loaded machine it measures the first search better than the clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap returns the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
