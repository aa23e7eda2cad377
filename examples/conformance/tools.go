package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"time"

	"github.com/embedmcp/mcp"
)

// Texts the suite's scenario descriptions give for the fixed tools.
const (
	simpleText   = "This is a simple text response for testing."
	errorText    = "This tool intentionally returns an error for testing"
	embeddedText = "This is an embedded resource content."
	mixedText    = "Multiple content types test:"
	mixedJSON    = `{"test":"data","value":123}`
)

// schema2020 is the input schema the json-schema-2020-12 scenario expects
// verbatim in tools/list: $schema, $defs (with an $anchor),
// additionalProperties false, allOf/anyOf and if/then/else.
const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {
        "street": { "type": "string" },
        "city": { "type": "string" }
      }
    }
  },
  "properties": {
    "name": { "type": "string" },
    "address": { "$ref": "#/$defs/address" },
    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
    "phone": { "type": "string" },
    "email": { "type": "string" }
  },
  "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
  "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
  "then": { "required": ["phone"] },
  "else": { "required": ["email"] },
  "additionalProperties": false
}`

// headerSchema is the input schema of test_header_param: one argument
// mirrored into the Mcp-Param-Region header (2026-07-28, SEP-2243).
const headerSchema = `{
  "type": "object",
  "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
  "required": ["region"]
}`

// step is the pause between the notifications of the streaming tools.
const step = 50 * time.Millisecond

type echoIO struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

// Names of the tools the 2026-07-28 scenarios use as probes.
const (
	dynamicTool = "test_dynamic_tool" // toggled by test_trigger_tool_change
	metaCaps    = "io.modelcontextprotocol/clientCapabilities"
)

// registerTools adds every tool of the fixture to ts.
func registerTools(ts *mcp.ToolSet) error {
	pngData, err := tinyPNG()
	if err != nil {
		return err
	}
	wavData := tinyWAV()
	schema, err := mcp.ParseSchema([]byte(schema2020))
	if err != nil {
		return err
	}
	hdrSchema, err := mcp.ParseSchema([]byte(headerSchema))
	if err != nil {
		return err
	}
	// echo is for the Inspector and TypeScript SDK checks: a typed tool
	// with structured output.
	echo, err := mcp.NewTool(mcp.ToolInfo{Name: "echo", Description: "Returns the given text unchanged.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}},
		func(_ context.Context, _ *mcp.Request, in echoIO) (echoIO, error) { return in, nil })
	if err != nil {
		return err
	}
	fixed := func(name, desc string, res func() *mcp.Result) mcp.Tool {
		return mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: desc},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return res(), nil })
	}
	raw := func(name, desc string, fn func(context.Context, *mcp.Request) (*mcp.Result, error)) mcp.Tool {
		return mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: desc}, fn)
	}
	err = ts.Register(
		// The tools of the 2025-11-25 server scenarios.
		fixed("test_simple_text", "Returns a simple text response.", func() *mcp.Result {
			return mcp.TextResult(simpleText)
		}),
		fixed("test_image_content", "Returns a small PNG image.", func() *mcp.Result {
			return &mcp.Result{Content: []mcp.Content{mcp.ImageContent(pngData, "image/png")}}
		}),
		fixed("test_audio_content", "Returns a short WAV clip.", func() *mcp.Result {
			return &mcp.Result{Content: []mcp.Content{mcp.AudioContent(wavData, "audio/wav")}}
		}),
		fixed("test_embedded_resource", "Returns an embedded text resource.", func() *mcp.Result {
			return &mcp.Result{Content: []mcp.Content{mcp.EmbeddedResourceContent(mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: embeddedText})}}
		}),
		fixed("test_multiple_content_types", "Returns text, an image and an embedded resource.", func() *mcp.Result {
			return &mcp.Result{Content: []mcp.Content{
				mcp.TextContent(mixedText),
				mcp.ImageContent(pngData, "image/png"),
				mcp.EmbeddedResourceContent(mcp.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: mixedJSON}),
			}}
		}),
		fixed("test_error_handling", "Always fails with a tool error (isError).", func() *mcp.Result {
			return mcp.ErrorResult(errorText)
		}),
		raw("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100, 50 ms apart.", withProgress),
		raw("test_tool_with_logging", "Sends three info log messages, 50 ms apart.", withLogging),
		mcp.NewRawTool(mcp.ToolInfo{Name: "json_schema_2020_12_tool",
			Description: "Tool with JSON Schema 2020-12 features", InputSchema: schema}, echoArguments),

		// Probes of the 2026-07-28 scenarios (server-stateless,
		// http-custom-header-server-validation).
		mcp.NewRawTool(mcp.ToolInfo{Name: "test_header_param",
			Description: "Echoes its region argument, which clients mirror into the Mcp-Param-Region header.",
			InputSchema: hdrSchema}, echoArguments),
		raw("test_missing_capability", "Needs the client's sampling capability; fails with -32021 without it.", needsSampling),
		raw("test_logging_tool", "Sends one info log message, which only a request naming a log level receives.", logOnce),
		fixed("test_streaming_elicitation", "Would elicit input; this stateless server never sends requests to the client, so it answers with a tool error.",
			func() *mcp.Result {
				return mcp.ErrorResult("elicitation is not available: this server never sends requests to the client")
			}),
		raw("test_trigger_tool_change", "Adds or removes the tool "+dynamicTool+", changing the tool list.",
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return toggleDynamic(ts) }),

		echo,
	)
	if err != nil {
		return err
	}
	if err := ts.Register(mrtrTools()...); err != nil {
		return err
	}
	tasks, err := taskTools()
	if err != nil {
		return err
	}
	return ts.Register(tasks...)
}

func echoArguments(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
	return mcp.TextResult(string(req.Arguments)), nil
}

// needsSampling refuses, as 2026-07-28 requires, a request whose client did
// not declare the sampling capability.
func needsSampling(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
	caps, _ := req.Meta[metaCaps].(map[string]any)
	if _, ok := caps["sampling"]; !ok {
		return nil, &mcp.Error{Code: mcp.CodeMissingClientCapability,
			Message: "Missing required client capability: sampling",
			Data:    map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
	}
	return mcp.ErrorResult("sampling is not available: this server never sends requests to the client"), nil
}

func logOnce(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
	if err := req.Log(mcp.LevelInfo, "test_logging_tool", "a log message"); err != nil {
		return nil, err
	}
	return mcp.TextResult("logged"), nil
}

// toggleDynamic registers test_dynamic_tool, or removes it if present.
func toggleDynamic(ts *mcp.ToolSet) (*mcp.Result, error) {
	if ts.Remove(dynamicTool) > 0 {
		return mcp.TextResult("removed " + dynamicTool), nil
	}
	err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: dynamicTool, Description: "Appears and disappears."},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("here"), nil }))
	if err != nil && !errors.Is(err, mcp.ErrDuplicateTool) {
		return nil, err
	}
	return mcp.TextResult("added " + dynamicTool), nil
}

func withProgress(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := sleep(ctx, step); err != nil {
				return nil, err
			}
		}
		if err := req.Progress(p, 100, ""); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Progress test completed"), nil
}

func withLogging(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := sleep(ctx, step); err != nil {
				return nil, err
			}
		}
		if err := req.Log(mcp.LevelInfo, "test_tool_with_logging", msg); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Logging test completed"), nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// tinyPNG encodes a 2×2 red PNG.
func tinyPNG() ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for x := range 2 {
		for y := range 2 {
			img.Set(x, y, color.NRGBA{R: 255, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tinyWAV returns a 1 ms, 8 kHz, 8-bit mono PCM WAV file of silence.
func tinyWAV() []byte {
	const samples, rate = 8, 8000
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	w(uint32(16))   // fmt chunk size
	w(uint16(1))    // PCM
	w(uint16(1))    // mono
	w(uint32(rate)) // sample rate
	w(uint32(rate)) // byte rate
	w(uint16(1))    // block align
	w(uint16(8))    // bits per sample
	b.WriteString("data")
	w(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples))
	return b.Bytes()
}
