package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
)

const tokenUsage = `usage: catalogd token create --user NAME [--name NAME] [--duration D] [--data-dir DIR | --store DSN]

Creates a personal access token for the user, stored (hashed) like one made
through GraphQL's createAccessToken, so that it can be listed and revoked, and
prints it on stdout. A user that does not exist is created (active, without a
password): tokens work only for users that exist and are neither suspended
nor removed. It works on the store directly: whoever can run it can read the
database anyway.
`

// runToken is "catalogd token": access tokens for scripts.
func runToken(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return fmt.Errorf("%s", tokenUsage)
	}
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs, getenv)
	user := fs.String("user", "", "username (or corpuser URN) whose privileges the token carries")
	name := fs.String("name", "", "name of the token (default: catalogd-cli)")
	duration := fs.Duration("duration", 30*24*time.Hour, "lifetime; 0 means no expiry")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *user == "" {
		return fmt.Errorf("--user is required\n\n%s", tokenUsage)
	}
	urn := *user
	if u, err := catalog.ParseURN(urn); err != nil || u.EntityType() != "corpuser" {
		urn = catalog.NewURN("corpuser", *user)
	}
	if *name == "" {
		*name = "catalogd-cli"
	}
	db, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, rec, err := openAuth(ctx, &sf, db, getenv, true, nil)
	if err != nil {
		return err
	}
	reg := registry.Default()
	// Search documents of the token entity are kept by the server's indexer;
	// restore-indices rebuilds them if the CLI ran while it was down.
	_, recordEvents, err := openEvents(ctx, db)
	if err != nil {
		return err
	}
	ing := ingest.New(reg, db, ingest.WithAuditor(rec), ingest.WithAuditor(svc), recordEvents)
	// The root password, if generated here, goes to stderr: stdout is the token.
	if err := bootstrapAuth(ctx, svc, ing, rec, stderr); err != nil {
		return err
	}
	created, err := svc.EnsureUser(ctx, catalog.SystemActor, urn)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(stderr, "user %s created\n", urn)
	}
	token, meta, err := svc.CreateAccessToken(ctx, catalog.SystemActor, urn, *name, "created with catalogd token create", *duration)
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "token %s for %s", meta.ID, meta.ActorURN)
	if meta.ExpiresAt > 0 {
		fmt.Fprintf(stderr, ", expires %s", time.UnixMilli(meta.ExpiresAt).UTC().Format(time.RFC3339))
	}
	fmt.Fprintln(stderr)
	return nil
}
