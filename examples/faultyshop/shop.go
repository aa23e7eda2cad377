// Package faultyshop is a small order service with four planted faults,
// for the diagnosis test of the runtime tools: a goroutine leak, a lock
// held across a slow call, an accidentally quadratic function on a
// request path, and an error logged with an order id and an API key. Do
// not copy it: every fault is deliberate. The lines the diagnosis must
// point at are marked with a FAULT comment.
package faultyshop

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Shop is the service.
type Shop struct {
	log    *slog.Logger
	apiKey string

	mu    sync.Mutex
	stock map[string]int

	acks chan struct{} // never sent on: the leak

	catalog []string
	orders  int64
}

// New returns a Shop that logs to log and charges with apiKey.
func New(log *slog.Logger, apiKey string) *Shop {
	s := &Shop{log: log, apiKey: apiKey, stock: map[string]int{}, acks: make(chan struct{})}
	for i := range 1200 {
		s.catalog = append(s.catalog, "sku-"+strconv.Itoa(i%900))
	}
	return s
}

// Handler serves the shop's routes, each wrapped in the access log.
func (s *Shop) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /orders", s.accessLog(http.HandlerFunc(s.placeOrder)))
	mux.Handle("GET /stock/{sku}", s.accessLog(http.HandlerFunc(s.stockLevel)))
	mux.Handle("GET /search", s.accessLog(http.HandlerFunc(s.search)))
	return mux
}

// accessLog logs every request at info: the flood the errors must survive.
func (s *Shop) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		next.ServeHTTP(w, r)
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "duration", time.Since(start))
	})
}

// placeOrder takes an order, tells the warehouse in the background and
// charges the card.
func (s *Shop) placeOrder(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.orders++
	id := fmt.Sprintf("A-%d", 1000+s.orders)
	s.mu.Unlock()
	go s.notifyWarehouse(id) // FAULT: leak creation
	if err := s.charge(id); err != nil {
		s.log.Error("payment provider rejected charge", "order_id", id, "api_key", s.apiKey, "err", err) // FAULT: error log
		http.Error(w, "payment failed", http.StatusPaymentRequired)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// notifyWarehouse waits for the warehouse's acknowledgement, which never
// comes.
func (s *Shop) notifyWarehouse(id string) {
	<-s.acks // FAULT: leak wait
	s.log.Info("warehouse acknowledged", "order_id", id)
}

// errDeclined is the payment provider's answer to every other order.
var errDeclined = errors.New("faultyshop: card declined by issuer")

func (s *Shop) charge(id string) error {
	if id[len(id)-1]%2 == 0 {
		return errDeclined
	}
	return nil
}

// stockLevel answers a SKU's stock, refreshing it from the supplier.
func (s *Shop) stockLevel(w http.ResponseWriter, r *http.Request) {
	n := s.refreshStock(r.PathValue("sku"))
	fmt.Fprintln(w, n)
}

// refreshStock asks the supplier while holding the shop's lock.
func (s *Shop) refreshStock(sku string) int {
	s.mu.Lock()
	n := s.supplierLevel(sku) // slow, under the lock
	s.stock[sku] = n
	s.mu.Unlock() // FAULT: lock held
	return n
}

// supplierLevel is a slow call to the supplier.
func (s *Shop) supplierLevel(sku string) int {
	time.Sleep(5 * time.Millisecond)
	return len(sku)
}

// search answers the catalog's distinct SKUs that contain q.
func (s *Shop) search(w http.ResponseWriter, r *http.Request) {
	found := dedupe(s.catalog)
	fmt.Fprintln(w, len(found), r.URL.Query().Get("q"))
}

// dedupe returns the distinct items, in order, by comparing each with
// every one kept so far.
func dedupe(items []string) []string {
	var out []string
	for _, it := range items {
		seen := false
		for _, o := range out { // FAULT: quadratic begin
			if o == it {
				seen = true
				break
			}
		} // FAULT: quadratic end
		if !seen {
			out = append(out, it)
		}
	}
	return out
}
