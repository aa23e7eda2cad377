package codetools

import (
	"os"
	"strconv"
)

// knob is a temporary tuning hook (removed before merge).
func knob(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv("K_"+name), 64); err == nil {
		return v
	}
	return def
}
