// Package routefixture is a service whose routes are registered through
// wrappers of each form codetools unwraps: a closure returning an
// http.HandlerFunc around a method value, an http.Handler middleware
// chain, and wrappers nested two levels. The codetools tests register it
// on a codetools.ServeMux and read this file from a snapshot.
package routefixture

import (
	"log/slog"
	"net/http"
	"time"
)

// Mux is what Register registers on: an http.ServeMux or a
// codetools.ServeMux.
type Mux interface {
	Handle(pattern string, handler http.Handler)
	HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request))
}

// API serves prices, orders and quotes.
type API struct {
	Log *slog.Logger
}

// Register registers the API's routes on mux, each through its wrappers.
func (a *API) Register(mux Mux) {
	p := "GET /v1/prices/{id}"
	mux.HandleFunc(p, a.accessLog(p, a.getPrice))
	mux.Handle("GET /v1/orders/{id}", logging(a.Log, a.auth(http.HandlerFunc(a.getOrder))))
	q := "GET /v1/quotes/{id}"
	mux.HandleFunc(q, a.accessLog(q,
		a.timed(q, a.getQuote)))
	mux.HandleFunc("GET /v1/health", a.health)
}

// accessLog is a closure wrapper: it returns an http.HandlerFunc that logs
// the route's pattern and calls next.
func (a *API) accessLog(pattern string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.Log.Info("access", "route", pattern, "path", r.URL.Path)
		next(w, r)
	}
}

// timed is a closure wrapper that logs how long next took.
func (a *API) timed(pattern string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		next(w, r)
		a.Log.Info("timed", "route", pattern, "took", time.Since(start))
	}
}

// auth is http.Handler middleware that refuses a request without a token.
func (a *API) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// logging is http.Handler middleware that logs every request.
func logging(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Info("request", "method", r.Method, "path", r.URL.Path)
		next.ServeHTTP(w, r)
	})
}

func (a *API) getPrice(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("42")) }

func (a *API) getOrder(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("order")) }

func (a *API) getQuote(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("quote")) }

func (a *API) health(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
