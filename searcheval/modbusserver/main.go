// Command modbusserver serves a Modbus TCP device simulator
// (simonvetter/modbus) with an admin API and the code tools at /mcp: a real
// service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/modbussnap ./modbusserver
//	go run ./modbusserver -snapshot /tmp/modbussnap [-addr 127.0.0.1:9006] [-modbus tcp://127.0.0.1:5020] [-unit 1]
package main

import (
	"flag"
	"time"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/modbusapp"
)

func main() {
	f := evalcmd.New("modbusserver", "127.0.0.1:9006")
	url := flag.String("modbus", "tcp://127.0.0.1:5020", "Modbus listen `URL`")
	unit := flag.Uint("unit", 1, "Modbus unit `id` to answer; 0 answers every unit")
	flag.Parse()
	if f.Evaluating() {
		*url = "tcp://127.0.0.1:0"
	}
	cfg := modbusapp.Config{ModbusURL: *url, UnitID: uint8(*unit), MaxClients: 4, IdleTimeout: time.Minute,
		Protected: [2]uint16{100, 199}, Setpoints: map[uint16]uint16{100: 2150, 101: 60}}
	mcpSrv, ms, _, h, err := modbusapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer ms.Stop()
	f.Serve(mcpSrv, modbusapp.Grants, h, "modbus", *url)
}
