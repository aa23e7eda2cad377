package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Content types, the values of Content.Type.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource"
)

// Content is one block of a tool result's content: text, image, audio, a
// resource link or an embedded resource. Build it with TextContent,
// ImageContent, AudioContent, ResourceLinkContent or
// EmbeddedResourceContent; the
// fields that apply depend on Type and the others are ignored when encoding.
type Content struct {
	// Type is one of the Content* constants.
	Type string
	// Text is the text of a text block.
	Text string
	// Data is the raw bytes of an image or audio block (base64 on the wire).
	Data []byte
	// MIMEType is the MIME type of image, audio and resource link blocks.
	MIMEType string
	// URI, Name, Title, Description and Size describe a resource link.
	URI         string
	Name        string
	Title       string
	Description string
	Size        *int64
	// Resource is the embedded resource of a resource block.
	Resource *ResourceContents
	// Annotations are optional audience/priority hints.
	Annotations *ContentAnnotations
	// Meta is the block's _meta object.
	Meta map[string]any
}

// ResourceContents is an embedded resource: text or binary contents at a URI.
type ResourceContents struct {
	URI      string // where the contents come from
	MIMEType string // the contents' media type, if known
	// Text holds text contents; Blob binary contents. Set exactly one.
	Text string
	Blob []byte
}

// ContentAnnotations are optional hints on a content block.
type ContentAnnotations struct {
	// Audience lists who the block is for: "user", "assistant" or both.
	Audience []string `json:"audience,omitempty"`
	// Priority is the block's importance, from 0 (least) to 1 (most).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is when the contents last changed, in ISO 8601.
	LastModified string `json:"lastModified,omitempty"`
}

// TextContent returns a text content block.
func TextContent(text string) Content { return Content{Type: ContentText, Text: text} }

// ImageContent returns an image content block holding data of the given MIME type.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MIMEType: mimeType}
}

// AudioContent returns an audio content block holding data of the given MIME type.
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentAudio, Data: data, MIMEType: mimeType}
}

// ResourceLinkContent returns a link to a resource the client may fetch.
func ResourceLinkContent(uri, name string) Content {
	return Content{Type: ContentResourceLink, URI: uri, Name: name}
}

// EmbeddedResourceContent returns a content block that embeds r.
func EmbeddedResourceContent(r ResourceContents) Content {
	return Content{Type: ContentResource, Resource: &r}
}

type wireContent struct {
	Type        string              `json:"type"`
	Text        *string             `json:"text,omitempty"`
	Data        *string             `json:"data,omitempty"`
	MIMEType    string              `json:"mimeType,omitempty"`
	URI         string              `json:"uri,omitempty"`
	Name        string              `json:"name,omitempty"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Size        *int64              `json:"size,omitempty"`
	Resource    *wireResource       `json:"resource,omitempty"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
	Meta        map[string]any      `json:"_meta,omitempty"`
}

type wireResource struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// MarshalJSON encodes c as the MCP content block of its Type. It fails for
// an unknown Type or a block missing what its type requires.
func (c Content) MarshalJSON() ([]byte, error) {
	w := wireContent{Type: c.Type, Annotations: c.Annotations, Meta: c.Meta}
	switch c.Type {
	case ContentText:
		w.Text = &c.Text
	case ContentImage, ContentAudio:
		if c.MIMEType == "" {
			return nil, fmt.Errorf("mcp: %s content needs a MIME type", c.Type)
		}
		d := base64.StdEncoding.EncodeToString(c.Data)
		w.Data = &d
		w.MIMEType = c.MIMEType
	case ContentResourceLink:
		if c.URI == "" || c.Name == "" {
			return nil, fmt.Errorf("mcp: resource_link content needs a URI and a name")
		}
		w.URI, w.Name, w.Title, w.Description, w.MIMEType, w.Size = c.URI, c.Name, c.Title, c.Description, c.MIMEType, c.Size
	case ContentResource:
		r := c.Resource
		if r == nil || r.URI == "" {
			return nil, fmt.Errorf("mcp: resource content needs a resource with a URI")
		}
		wr := &wireResource{URI: r.URI, MIMEType: r.MIMEType}
		if r.Blob != nil {
			b := base64.StdEncoding.EncodeToString(r.Blob)
			wr.Blob = &b
		} else {
			t := r.Text
			wr.Text = &t
		}
		w.Resource = wr
	default:
		return nil, fmt.Errorf("mcp: unknown content type %q", c.Type)
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes an MCP content block, so clients and tests can read
// results back. It fails, as MarshalJSON does, for an unknown type or a
// block missing what its type requires.
func (c *Content) UnmarshalJSON(b []byte) error {
	var w wireContent
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if err := w.check(); err != nil {
		return err
	}
	*c = Content{Type: w.Type, MIMEType: w.MIMEType, URI: w.URI, Name: w.Name, Title: w.Title,
		Description: w.Description, Size: w.Size, Annotations: w.Annotations, Meta: w.Meta}
	if w.Text != nil {
		c.Text = *w.Text
	}
	if w.Data != nil {
		d, err := base64.StdEncoding.DecodeString(*w.Data)
		if err != nil {
			return fmt.Errorf("mcp: %s content data: %w", w.Type, err)
		}
		c.Data = d
	}
	if w.Resource != nil {
		r := &ResourceContents{URI: w.Resource.URI, MIMEType: w.Resource.MIMEType}
		if w.Resource.Text != nil {
			r.Text = *w.Resource.Text
		}
		if w.Resource.Blob != nil {
			d, err := base64.StdEncoding.DecodeString(*w.Resource.Blob)
			if err != nil {
				return fmt.Errorf("mcp: resource blob: %w", err)
			}
			r.Blob = d
		}
		c.Resource = r
	}
	return nil
}

// check reports a decoded block that lacks what its type requires.
func (w *wireContent) check() error {
	switch w.Type {
	case ContentText:
		if w.Text == nil {
			return fmt.Errorf("mcp: text content without text")
		}
	case ContentImage, ContentAudio:
		if w.Data == nil || w.MIMEType == "" {
			return fmt.Errorf("mcp: %s content needs data and a MIME type", w.Type)
		}
	case ContentResourceLink:
		if w.URI == "" || w.Name == "" {
			return fmt.Errorf("mcp: resource_link content needs a URI and a name")
		}
	case ContentResource:
		r := w.Resource
		if r == nil || r.URI == "" || (r.Text == nil) == (r.Blob == nil) {
			return fmt.Errorf("mcp: resource content needs a resource with a URI and either text or a blob")
		}
	default:
		return fmt.Errorf("mcp: unknown content type %q", w.Type)
	}
	return nil
}
