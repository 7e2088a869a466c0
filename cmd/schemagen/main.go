// Command schemagen checks the metadata model under schemas/ and generates
// the typed models (gen/models) and registry tables (gen/registry) from it,
// and with -openapi the OpenAPI v3 entity paths and schemas of every entity
// type and aspect (DIR/entities.gen.json, merged into the hand-written
// DIR/openapi.yaml by the openapi package).
//
//	schemagen -schemas schemas -out gen [-openapi openapi] [-strict]
//
// Problems are printed on stderr; errors stop generation (exit status 1).
// A missing aspect schema is a warning unless -strict is given.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/catalogd/catalogd/internal/schemagen"
)

func main() {
	schemas := flag.String("schemas", "schemas", "directory holding entities.yaml, aspects/ and types/")
	out := flag.String("out", "gen", "output directory (gen/models and gen/registry are written below it)")
	strict := flag.Bool("strict", false, "treat missing aspect schemas and a missing entities.yaml as errors")
	verbose := flag.Bool("v", false, "list the files written")
	oapi := flag.String("openapi", "", "directory of openapi.yaml, where entities.gen.json is written (none: not written)")
	flag.Parse()
	os.Exit(run(*schemas, *out, *oapi, *strict, *verbose))
}

func run(schemas, out, oapi string, strict, verbose bool) int {
	start := time.Now()
	m, err := schemagen.Load(schemas, schemagen.Options{Strict: strict})
	if err != nil {
		fmt.Fprintf(os.Stderr, "schemagen: %v\n", err)
		return 1
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(os.Stderr, "schemagen: warning: %s\n", w)
	}
	for _, e := range m.Errors {
		fmt.Fprintf(os.Stderr, "schemagen: error: %s\n", e)
	}
	if len(m.Errors) > 0 {
		fmt.Fprintf(os.Stderr, "schemagen: %d error(s), %d warning(s); nothing generated\n", len(m.Errors), len(m.Warnings))
		return 1
	}
	res, err := schemagen.Generate(m, out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "schemagen: %v\n", err)
		return 1
	}
	if oapi != "" {
		if err := writeOpenAPI(m, oapi, verbose); err != nil {
			fmt.Fprintf(os.Stderr, "schemagen: %v\n", err)
			return 1
		}
	}
	if verbose {
		for _, p := range res.Written {
			fmt.Fprintf(os.Stderr, "schemagen: wrote %s\n", p)
		}
		for _, p := range res.Removed {
			fmt.Fprintf(os.Stderr, "schemagen: removed %s\n", p)
		}
	}
	if len(m.Warnings) > 0 || verbose {
		fmt.Fprintf(os.Stderr, "schemagen: %d entities, %d aspects, %d types; %d file(s) written, %d unchanged, %d warning(s) in %v\n",
			len(m.Entities), len(m.Aspects), len(m.Types), len(res.Written), res.Unchanged, len(m.Warnings), time.Since(start).Round(time.Millisecond))
	}
	return 0
}

// writeOpenAPI writes dir/entities.gen.json when it changes. The component
// names of dir/openapi.yaml are left to it.
func writeOpenAPI(m *schemagen.Model, dir string, verbose bool) error {
	src, err := os.ReadFile(filepath.Join(dir, "openapi.yaml"))
	if err != nil {
		return err
	}
	var doc struct {
		Components map[string]map[string]any `yaml:"components"`
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "openapi.yaml"), err)
	}
	taken := map[string]bool{}
	for _, kind := range doc.Components {
		for name := range kind {
			taken[name] = true
		}
	}
	b, err := m.OpenAPI(taken)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, "entities.gen.json")
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return err
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "schemagen: wrote %s\n", p)
	}
	return nil
}
