package codetools

// keepWatch keeps the stop function of a watch Register started.
func (c *Catalog) keepWatch(stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stops = append(c.stops, stop)
}

// Close stops keeping the catalog's tool entries in step with the
// ToolSets it was registered in (Register): they stay as they were. The
// catalog goes on answering. Close returns nil; calling it again does
// nothing.
func (c *Catalog) Close() error {
	c.mu.Lock()
	stops := c.stops
	c.stops = nil
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	return nil
}
