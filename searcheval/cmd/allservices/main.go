// Command allservices links every service of the search evaluation (the
// fake S3, Redis, MQTT, TURN and SMTP servers) into one binary, with the
// runtime tools and a package loader (golang.org/x/tools/go/packages), as
// a service that hosts code tools and analyses code might. It serves
// nothing: its -deps snapshot, over 600 files, is the large snapshot whose
// start-up cost TestStartupCost (package heldout) measures.
package main

import (
	"fmt"

	"github.com/embedmcp/mcp/runtimetools"
	"github.com/embedmcp/mcp/searcheval/mqttapp"
	"github.com/embedmcp/mcp/searcheval/redisapp"
	"github.com/embedmcp/mcp/searcheval/s3app"
	"github.com/embedmcp/mcp/searcheval/smtpapp"
	"github.com/embedmcp/mcp/searcheval/turnapp"
	"golang.org/x/tools/go/packages"
)

func main() {
	fmt.Println(s3app.Grants, redisapp.Grants, mqttapp.Grants, turnapp.Grants, smtpapp.Grants)
	_, _, _ = s3app.NewService, redisapp.NewService, mqttapp.NewService
	_, _ = turnapp.NewService, smtpapp.NewService
	_, _ = runtimetools.Register, packages.Load
}
