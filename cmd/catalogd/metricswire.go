package main

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/metrics"
)

// newMetrics returns the registry the server's metrics are gathered from,
// with the Go runtime's and the process's, and catalogd's own metrics.
func newMetrics() (*prometheus.Registry, *metrics.Metrics) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg, metrics.New(reg)
}

// ingestMetrics reports the outcomes of the write pipeline's requests.
type ingestMetrics struct{ m *metrics.Metrics }

var _ ingest.Observer = ingestMetrics{}

func (o ingestMetrics) Committed(n int, changes []ingest.Change) {
	o.m.Proposals("applied", n)
	for _, c := range changes {
		o.m.AspectChanged(c.EntityType, c.Aspect, c.Deleted)
	}
}

func (o ingestMetrics) Failed(n int, err error) {
	o.m.Proposals(strings.ReplaceAll(catalog.KindOf(err).String(), " ", "_"), n)
}
