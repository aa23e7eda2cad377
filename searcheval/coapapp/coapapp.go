// Package coapapp is a real service of the search evaluation: the CoAP
// gateway of a sensor network (plgd-dev/go-coap, github.com/plgd-dev/go-coap/v3,
// its UDP server, router and block-wise transfer; nobody here wrote it)
// where registered sensors POST their readings, clients observe a sensor's
// latest reading, devices fetch their firmware block by block, with a small
// HTTP admin API for the device registry and, at /mcp, the code tools and
// the tool enquiry over a source snapshot of the service and its
// dependencies, as an adopter would serve them. Command coapserver runs it.
package coapapp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/plgd-dev/go-coap/v3/message"
	"github.com/plgd-dev/go-coap/v3/message/codes"
	"github.com/plgd-dev/go-coap/v3/mux"
	coapnet "github.com/plgd-dev/go-coap/v3/net"
	"github.com/plgd-dev/go-coap/v3/net/blockwise"
	"github.com/plgd-dev/go-coap/v3/options"
	"github.com/plgd-dev/go-coap/v3/udp"
	udpClient "github.com/plgd-dev/go-coap/v3/udp/client"
	udpServer "github.com/plgd-dev/go-coap/v3/udp/server"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the gateway.
type Config struct {
	Addr            string        // UDP address CoAP listens on; "" for :5683
	MaxMessageBytes uint32        // largest CoAP message accepted; 0 for 4 KiB
	BlockSize       blockwise.SZX // block size of block-wise transfers; 0 for 1024 bytes
	BlockTimeout    time.Duration // how long a block-wise transfer may stall; 0 for 10 s
	IdleTimeout     time.Duration // a silent sensor's connection is dropped after it; 0 for 2 min
	MaxReadingBytes int           // largest reading payload; 0 for 256 bytes
	HistoryLen      int           // readings kept per device; 0 for 32
	Devices         []string      // ids of the devices registered at start
}

// Reading is one value a sensor reported.
type Reading struct {
	At    time.Time `json:"at"`
	Value string    `json:"value"`
}

// observer is a client observing a device's readings.
type observer struct {
	conn  mux.Conn
	token message.Token
	seq   uint32
}

// device is one registered sensor.
type device struct {
	history   []Reading
	observers map[string]*observer // by remote address and token
}

// Gateway is the device registry, the readings and the observers.
type Gateway struct {
	cfg      Config
	logger   *slog.Logger
	mu       sync.Mutex
	devices  map[string]*device
	firmware []byte
	fwETag   []byte
}

var deviceID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// NewService starts the CoAP gateway and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the CoAP
// server, the gateway, its UDP address and the HTTP handler that serves the
// admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *udpServer.Server, *Gateway, string, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "coapserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, "", nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, "", nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "coapserver", Version: "0.1.0", Logger: logger})
	g := newGateway(cfg, logger)
	for _, id := range cfg.Devices {
		if err := g.register(id); err != nil {
			return nil, nil, nil, "", nil, err
		}
	}
	router := mux.NewRouter()
	router.SetErrorHandler(func(err error) { logger.Warn("coap router", "error", err) })
	router.Use(g.logRequests)
	if err := router.Handle("/sensors/{id}", mux.HandlerFunc(g.serveSensor)); err != nil {
		return nil, nil, nil, "", nil, err
	}
	if err := router.Handle("/fw", mux.HandlerFunc(g.serveFirmware)); err != nil {
		return nil, nil, nil, "", nil, err
	}
	router.DefaultHandleFunc(func(w mux.ResponseWriter, r *mux.Message) {
		g.reply(w, codes.NotFound, "no such resource")
	})
	addr := cfg.Addr
	if addr == "" {
		addr = ":5683"
	}
	l, err := coapnet.NewListenUDP("udp", addr)
	if err != nil {
		return nil, nil, nil, "", nil, fmt.Errorf("coap listen: %w", err)
	}
	cs := udp.NewServer(
		options.WithMux(router),
		options.WithMaxMessageSize(g.cfg.MaxMessageBytes),
		options.WithBlockwise(true, g.cfg.BlockSize, g.cfg.BlockTimeout),
		options.WithInactivityMonitor(g.cfg.IdleTimeout, func(cc *udpClient.Conn) {
			logger.Info("coap peer idle", "remote", cc.RemoteAddr().String())
			_ = cc.Close()
		}),
		options.WithOnNewConn(func(cc *udpClient.Conn) {
			remote := cc.RemoteAddr().String()
			logger.Debug("coap peer", "remote", remote)
			cc.AddOnClose(func() { g.dropObserver(remote) })
		}),
		options.WithErrors(func(err error) { logger.Warn("coap", "error", err) }),
	)
	go func() {
		if err := cs.Serve(l); err != nil {
			logger.Error("coap serve", "error", err)
		}
	}()
	hm := http.NewServeMux()
	hm.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	hm.HandleFunc("GET /admin/devices", g.handleList)
	hm.HandleFunc("PUT /admin/devices/{id}", g.handleRegister)
	hm.HandleFunc("DELETE /admin/devices/{id}", g.handleUnregister)
	hm.HandleFunc("PUT /admin/firmware", g.handleFirmware)
	return srv, cs, g, l.LocalAddr().String(), hm, nil
}

// newGateway fills in the configuration's defaults.
func newGateway(cfg Config, logger *slog.Logger) *Gateway {
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = 4 << 10
	}
	if cfg.BlockSize == 0 {
		cfg.BlockSize = blockwise.SZX1024
	}
	if cfg.BlockTimeout <= 0 {
		cfg.BlockTimeout = 10 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Minute
	}
	if cfg.MaxReadingBytes <= 0 {
		cfg.MaxReadingBytes = 256
	}
	if cfg.HistoryLen <= 0 {
		cfg.HistoryLen = 32
	}
	return &Gateway{cfg: cfg, logger: logger, devices: map[string]*device{}}
}

// logRequests is the router's middleware: it logs every request with its
// method, path and peer.
func (g *Gateway) logRequests(next mux.Handler) mux.Handler {
	return mux.HandlerFunc(func(w mux.ResponseWriter, r *mux.Message) {
		path, _ := r.Options().Path()
		g.logger.Debug("coap request", "code", r.Code().String(), "path", path, "remote", w.Conn().RemoteAddr().String())
		next.ServeCOAP(w, r)
	})
}

// reply sets a plain-text response.
func (g *Gateway) reply(w mux.ResponseWriter, code codes.Code, text string) {
	if err := w.SetResponse(code, message.TextPlain, bytes.NewReader([]byte(text))); err != nil {
		g.logger.Warn("coap response", "error", err)
	}
}

// serveSensor records a reading a sensor POSTs, and answers a GET with the
// latest reading, registering the client as an observer when it asks to
// observe.
func (g *Gateway) serveSensor(w mux.ResponseWriter, r *mux.Message) {
	id := r.RouteParams.Vars["id"]
	switch r.Code() {
	case codes.POST:
		body, err := r.ReadBody()
		if err != nil {
			g.reply(w, codes.BadRequest, "unreadable payload")
			return
		}
		if len(body) == 0 || len(body) > g.cfg.MaxReadingBytes {
			g.reply(w, codes.RequestEntityTooLarge, fmt.Sprintf("a reading is 1 to %d bytes", g.cfg.MaxReadingBytes))
			return
		}
		if !g.record(id, string(body)) {
			g.logger.Warn("reading from unregistered device", "device", id, "remote", w.Conn().RemoteAddr().String())
			g.reply(w, codes.Forbidden, "device not registered")
			return
		}
		g.reply(w, codes.Changed, "")
	case codes.GET:
		g.mu.Lock()
		d, ok := g.devices[id]
		var last Reading
		if ok && len(d.history) > 0 {
			last = d.history[len(d.history)-1]
		}
		var seq uint32
		if obs, err := r.Options().Observe(); ok && err == nil && obs == 0 {
			key := w.Conn().RemoteAddr().String() + "/" + r.Token().String()
			d.observers[key] = &observer{conn: w.Conn(), token: r.Token(), seq: 2}
			seq = 1
			g.logger.Info("observer added", "device", id, "remote", w.Conn().RemoteAddr().String())
		}
		g.mu.Unlock()
		if !ok {
			g.reply(w, codes.NotFound, "device not registered")
			return
		}
		g.reply(w, codes.Content, last.Value)
		if seq > 0 {
			w.Message().SetObserve(seq)
		}
	default:
		g.reply(w, codes.MethodNotAllowed, "GET or POST")
	}
}

// record appends a reading to a device's history and notifies its
// observers; it says whether the device is registered.
func (g *Gateway) record(id, value string) bool {
	g.mu.Lock()
	d, ok := g.devices[id]
	if !ok {
		g.mu.Unlock()
		return false
	}
	d.history = append(d.history, Reading{At: time.Now(), Value: value})
	if n := len(d.history) - g.cfg.HistoryLen; n > 0 {
		d.history = append(d.history[:0], d.history[n:]...)
	}
	obs := make([]*observer, 0, len(d.observers))
	for _, o := range d.observers {
		obs = append(obs, o)
	}
	g.mu.Unlock()
	for _, o := range obs {
		g.notify(o, value)
	}
	return true
}

// notify sends one observe notification with the next sequence number.
func (g *Gateway) notify(o *observer, value string) {
	m := o.conn.AcquireMessage(o.conn.Context())
	defer o.conn.ReleaseMessage(m)
	m.SetCode(codes.Content)
	m.SetToken(o.token)
	m.SetContentFormat(message.TextPlain)
	m.SetBody(bytes.NewReader([]byte(value)))
	g.mu.Lock()
	m.SetObserve(o.seq)
	o.seq++
	g.mu.Unlock()
	if err := o.conn.WriteMessage(m); err != nil {
		g.logger.Warn("observe notification", "remote", o.conn.RemoteAddr().String(), "error", err)
	}
}

// dropObserver forgets every observation of a peer whose connection closed.
func (g *Gateway) dropObserver(remote string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, d := range g.devices {
		for key, o := range d.observers {
			if o.conn.RemoteAddr().String() == remote {
				delete(d.observers, key)
			}
		}
	}
}

// serveFirmware answers the current firmware image; the server splits it
// into blocks when it is larger than the block size.
func (g *Gateway) serveFirmware(w mux.ResponseWriter, r *mux.Message) {
	if r.Code() != codes.GET {
		g.reply(w, codes.MethodNotAllowed, "GET only")
		return
	}
	g.mu.Lock()
	fw, etag := g.firmware, g.fwETag
	g.mu.Unlock()
	if fw == nil {
		g.reply(w, codes.NotFound, "no firmware uploaded")
		return
	}
	if have, err := r.ETag(); err == nil && bytes.Equal(have, etag) {
		g.reply(w, codes.Valid, "")
		return
	}
	if err := w.SetResponse(codes.Content, message.AppOctets, bytes.NewReader(fw),
		message.Option{ID: message.ETag, Value: etag}); err != nil {
		g.logger.Warn("firmware response", "error", err)
	}
}

// register adds a device to the registry.
func (g *Gateway) register(id string) error {
	if !deviceID.MatchString(id) {
		return fmt.Errorf("device id %.64q: want 1 to 63 lower-case letters, digits and dashes", id)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.devices[id]; !ok {
		g.devices[id] = &device{observers: map[string]*observer{}}
	}
	return nil
}

// DeviceInfo is a registered device as the admin API lists it.
type DeviceInfo struct {
	ID        string   `json:"id"`
	Last      *Reading `json:"last,omitempty"`
	Observers int      `json:"observers"`
}

// handleList answers the registered devices as JSON, sorted by id.
func (g *Gateway) handleList(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	out := make([]DeviceInfo, 0, len(g.devices))
	for id, d := range g.devices {
		info := DeviceInfo{ID: id, Observers: len(d.observers)}
		if n := len(d.history); n > 0 {
			last := d.history[n-1]
			info.Last = &last
		}
		out = append(out, info)
	}
	g.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		g.logger.Warn("devices", "error", err)
	}
}

// handleRegister adds a device to the registry from the admin API.
func (g *Gateway) handleRegister(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := g.register(id); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	g.logger.Info("device registered by admin", "device", id, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// handleUnregister removes a device and cancels its observations.
func (g *Gateway) handleUnregister(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	g.mu.Lock()
	_, ok := g.devices[id]
	delete(g.devices, id) // its observers get no further notification
	g.mu.Unlock()
	if !ok {
		http.Error(w, "no such device", http.StatusNotFound)
		return
	}
	g.logger.Info("device removed by admin", "device", id, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// maxFirmwareBytes is the largest firmware image the admin API accepts.
const maxFirmwareBytes = 4 << 20

// handleFirmware replaces the firmware image devices download.
func (g *Gateway) handleFirmware(w http.ResponseWriter, r *http.Request) {
	fw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFirmwareBytes))
	if err != nil {
		http.Error(w, fmt.Sprintf("firmware: %v (at most %d bytes)", err, maxFirmwareBytes), http.StatusRequestEntityTooLarge)
		return
	}
	if len(fw) == 0 {
		http.Error(w, "firmware: empty image", http.StatusBadRequest)
		return
	}
	sum := sha256.Sum256(fw)
	etag := sum[:8]
	g.mu.Lock()
	g.firmware, g.fwETag = fw, etag
	g.mu.Unlock()
	g.logger.Info("firmware uploaded", "bytes", len(fw), "etag", hex.EncodeToString(etag))
	w.WriteHeader(http.StatusNoContent)
}
