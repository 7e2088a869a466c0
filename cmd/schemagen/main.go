// Command schemagen checks the metadata model under schemas/ and generates
// the typed models (gen/models) and registry tables (gen/registry) from it.
//
//	schemagen -schemas schemas -out gen [-strict]
//
// Problems are printed on stderr; errors stop generation (exit status 1).
// A missing aspect schema is a warning unless -strict is given.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/catalogd/catalogd/internal/schemagen"
)

func main() {
	schemas := flag.String("schemas", "schemas", "directory holding entities.yaml, aspects/ and types/")
	out := flag.String("out", "gen", "output directory (gen/models and gen/registry are written below it)")
	strict := flag.Bool("strict", false, "treat missing aspect schemas and a missing entities.yaml as errors")
	verbose := flag.Bool("v", false, "list the files written")
	flag.Parse()
	os.Exit(run(*schemas, *out, *strict, *verbose))
}

func run(schemas, out string, strict, verbose bool) int {
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
