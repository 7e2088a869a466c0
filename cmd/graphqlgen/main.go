// Command graphqlgen generates catalogd's GraphQL executor: gqlgen with the
// plugin of internal/graphqlgen, which generates the fields annotated in the
// schema. Run by `go generate ./graphql/...` (make generate).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"

	"github.com/catalogd/catalogd/internal/graphqlgen"
	"github.com/catalogd/catalogd/internal/schemagen"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "graphqlgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("graphqlgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "gqlgen.yml", "gqlgen configuration file")
	schemas := fs.String("schemas", "../schemas", "directory of the metadata model (entities.yaml, aspects/, types/)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	model, err := schemagen.Load(*schemas, schemagen.Options{Strict: true})
	if err != nil {
		return err
	}
	if len(model.Errors) > 0 {
		return fmt.Errorf("metadata model: %s", strings.Join(model.Errors, "; "))
	}
	cfg, err := config.LoadConfig(*path)
	if err != nil {
		return err
	}
	if err := graphqlgen.Clean(cfg); err != nil {
		return err
	}
	return api.Generate(cfg, api.PrependPlugin(graphqlgen.New(model)))
}
