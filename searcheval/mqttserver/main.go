// Command mqttserver serves an MQTT broker (mochi-mqtt) with the code tools
// at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/mqttsnap ./mqttserver
//	go run ./mqttserver -snapshot /tmp/mqttsnap [-addr 127.0.0.1:9002] [-mqtt 127.0.0.1:1883]
package main

import (
	"flag"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/mqttapp"
)

func main() {
	f := evalcmd.New("mqttserver", "127.0.0.1:9002")
	tcp := flag.String("mqtt", "127.0.0.1:1883", "MQTT listen `address`")
	ws := flag.String("ws", "", "MQTT over websockets listen `address`")
	flag.Parse()
	if f.Evaluating() {
		*tcp = ""
	}
	mcpSrv, broker, h, err := mqttapp.NewService(f.Snapshot(), mqttapp.Config{TCPAddr: *tcp, WebsocketAddr: *ws, AuditTopics: []string{"audit/"}}, f.Logger)
	f.Check(err)
	if !f.Evaluating() {
		f.Check(broker.Serve())
		defer broker.Close()
	}
	f.Serve(mcpSrv, mqttapp.Grants, h, "mqtt", *tcp)
}
