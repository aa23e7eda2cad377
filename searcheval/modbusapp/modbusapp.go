// Package modbusapp is a real service of the search evaluation: a Modbus
// TCP device simulator for commissioning tests of a plant's controllers
// (simonvetter/modbus, github.com/simonvetter/modbus, nobody here wrote
// it) that keeps coils and holding registers in memory, protects a range
// of setpoints from writes, with a small HTTP admin API and, at /mcp, the
// code tools and the tool enquiry over a source snapshot of the service
// and its dependencies, as an adopter would serve them. Command
// modbusserver runs it.
package modbusapp

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/simonvetter/modbus"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the simulator.
type Config struct {
	ModbusURL   string            // where Modbus listens, as tcp://host:port; "" for tcp://127.0.0.1:5020
	UnitID      uint8             // unit id the simulator answers; 0 answers every unit
	MaxClients  uint              // concurrent Modbus connections at most; 0 for the library's default
	IdleTimeout time.Duration     // a Modbus connection with no request this long is closed; 0 for the library's default
	Protected   [2]uint16         // first and last holding register clients may read but not write; {0, 0} protects none
	Setpoints   map[uint16]uint16 // holding register values at start
}

// bankSize is the number of coils and of holding registers.
const bankSize = 1024

// Bank is the simulated device: its coils and holding registers.
type Bank struct {
	mu        sync.Mutex
	unit      uint8
	protected [2]uint16
	coils     [bankSize]bool
	holding   [bankSize]uint16
	writes    uint16
	started   time.Time
	logger    *slog.Logger
}

// NewService starts the Modbus server and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the Modbus
// server, its register bank and the HTTP handler that serves the admin
// API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *modbus.ModbusServer, *Bank, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "modbusserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "modbusserver", Version: "0.1.0", Logger: logger})
	b := &Bank{unit: cfg.UnitID, protected: cfg.Protected, started: time.Now(), logger: logger}
	for addr, v := range cfg.Setpoints {
		if int(addr) >= bankSize {
			return nil, nil, nil, nil, fmt.Errorf("setpoint %d: beyond the %d holding registers", addr, bankSize)
		}
		b.holding[addr] = v
	}
	url := cfg.ModbusURL
	if url == "" {
		url = "tcp://127.0.0.1:5020"
	}
	ms, err := modbus.NewServer(&modbus.ServerConfiguration{
		URL:        url,
		Timeout:    cfg.IdleTimeout,
		MaxClients: cfg.MaxClients,
		Logger:     slog.NewLogLogger(logger.Handler(), slog.LevelInfo),
	}, b)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("modbus %s: %w", url, err)
	}
	if err := ms.Start(); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("modbus %s: %w", url, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/registers", b.handleDump)
	mux.HandleFunc("PUT /admin/registers/{addr}", b.handleSet)
	return srv, ms, b, mux, nil
}

// checkUnit refuses requests for another unit than the simulated one, as
// a gateway does for a device that does not answer.
func (b *Bank) checkUnit(unit uint8) error {
	if b.unit != 0 && unit != b.unit {
		return modbus.ErrGWTargetFailedToRespond
	}
	return nil
}

// inBank refuses an address range beyond the bank.
func inBank(addr, quantity uint16) error {
	if int(addr)+int(quantity) > bankSize {
		return modbus.ErrIllegalDataAddress
	}
	return nil
}

// HandleCoils reads or writes coils.
func (b *Bank) HandleCoils(req *modbus.CoilsRequest) ([]bool, error) {
	if err := b.checkUnit(req.UnitId); err != nil {
		return nil, err
	}
	if err := inBank(req.Addr, req.Quantity); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.IsWrite {
		copy(b.coils[req.Addr:], req.Args)
		b.writes++
		return nil, nil
	}
	return append([]bool(nil), b.coils[req.Addr:req.Addr+req.Quantity]...), nil
}

// HandleDiscreteInputs answers the coils: the simulated inputs follow the
// outputs, as if each output were wired back to an input.
func (b *Bank) HandleDiscreteInputs(req *modbus.DiscreteInputsRequest) ([]bool, error) {
	return b.HandleCoils(&modbus.CoilsRequest{UnitId: req.UnitId, Addr: req.Addr, Quantity: req.Quantity})
}

// HandleHoldingRegisters reads or writes holding registers; writes into
// the protected range fail with an illegal data address.
func (b *Bank) HandleHoldingRegisters(req *modbus.HoldingRegistersRequest) ([]uint16, error) {
	if err := b.checkUnit(req.UnitId); err != nil {
		return nil, err
	}
	if err := inBank(req.Addr, req.Quantity); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !req.IsWrite {
		return append([]uint16(nil), b.holding[req.Addr:req.Addr+req.Quantity]...), nil
	}
	last := req.Addr + req.Quantity - 1
	if b.protected != [2]uint16{} && req.Addr <= b.protected[1] && last >= b.protected[0] {
		b.logger.Warn("write to protected registers refused", "client", req.ClientAddr, "first", req.Addr, "last", last)
		return nil, modbus.ErrIllegalDataAddress
	}
	copy(b.holding[req.Addr:], req.Args)
	b.writes++
	return nil, nil
}

// HandleInputRegisters answers the device's status words: register 0 is
// the uptime in seconds (saturating), register 1 the count of writes.
func (b *Bank) HandleInputRegisters(req *modbus.InputRegistersRequest) ([]uint16, error) {
	if err := b.checkUnit(req.UnitId); err != nil {
		return nil, err
	}
	if int(req.Addr)+int(req.Quantity) > 2 {
		return nil, modbus.ErrIllegalDataAddress
	}
	b.mu.Lock()
	status := []uint16{uint16(min(time.Since(b.started)/time.Second, 0xffff)), b.writes}
	b.mu.Unlock()
	return status[req.Addr : req.Addr+req.Quantity], nil
}

// handleDump answers holding registers as JSON: ?start=&count= (count 16
// when absent).
func (b *Bank) handleDump(w http.ResponseWriter, r *http.Request) {
	start, err1 := strconv.ParseUint(r.URL.Query().Get("start"), 10, 16)
	count, err2 := strconv.ParseUint(r.URL.Query().Get("count"), 10, 16)
	if r.URL.Query().Get("count") == "" {
		count, err2 = 16, nil
	}
	if err1 != nil || err2 != nil || start+count > bankSize {
		http.Error(w, fmt.Sprintf("start and count must give a range within the %d registers", bankSize), http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	regs := append([]uint16(nil), b.holding[start:start+count]...)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(regs); err != nil {
		b.logger.Warn("registers", "error", err)
	}
}

// handleSet sets one holding register, protected or not, to the decimal
// value in the request body: an operator overriding a setpoint.
func (b *Bank) handleSet(w http.ResponseWriter, r *http.Request) {
	addr, err := strconv.ParseUint(r.PathValue("addr"), 10, 16)
	if err != nil || addr >= bankSize {
		http.Error(w, "no such register", http.StatusNotFound)
		return
	}
	var value uint16
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64)).Decode(&value); err != nil {
		http.Error(w, "body must be a value from 0 to 65535", http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.holding[addr] = value
	b.mu.Unlock()
	b.logger.Info("setpoint overridden", "register", addr, "value", value, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
